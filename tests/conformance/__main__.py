"""`python -m tests.conformance`: write docs/conformance.md from the records' conformance sections.

The records (records/<entry>.json, servers/core/records.py) are written by the conformance run with
CONFORMANCE_RECORD=1 (tests/reliability/test_reliability_conformance.py; tests/conformance/pinning.py);
`--run` runs it first, over every stack or those named with `-k`. A stack whose record (or whose parser
owner's) is missing, stale, incomplete or from a run with changed cells is shown unverified, with why.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from servers.core import catalog, records

from . import report

ROOT = Path(__file__).resolve().parents[2]
TEST = "tests/reliability/test_reliability_conformance.py"
PAGE = ROOT / "docs" / "conformance.md"


def sections() -> dict[str, dict | None]:
    return {e.name: (records.load(e.name) or {}).get("conformance") for e in catalog.ENTRIES}


def front_versions(found: dict[str, dict | None]) -> dict[str, str]:
    """The fronts' versions the records ran with (one per front; several are listed)."""
    seen: dict[str, set[str]] = {}
    for section in found.values():
        for front, version in ((section or {}).get("run", {}).get("fronts") or {}).items():
            seen.setdefault(front, set()).add(version)
    return {front: ", ".join(sorted(versions)) for front, versions in seen.items()}


def render() -> str:
    found = sections()
    return report.page(found, front_versions(found))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.conformance", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=PAGE, help="default: %(default)s")
    parser.add_argument("--run", action="store_true", help=f"run {TEST} first with CONFORMANCE_RECORD=1 (./test.sh)")
    parser.add_argument("-k", dest="select", default="", help="with --run: only these tests (pytest -k, an entry)")
    args = parser.parse_args(argv)
    if args.run:
        env = {**os.environ, "CONFORMANCE_RECORD": "1"}
        command = [str(ROOT / "test.sh"), "-q", "-p", "no:cacheprovider", "-m", "reliability", TEST]
        done = subprocess.run(command + (["-k", args.select] if args.select else []), cwd=ROOT, env=env)
        if done.returncode != 0:
            print(f"the conformance tests failed (exit {done.returncode}): the page is not written", file=sys.stderr)
            return done.returncode
    args.out.write_text(render())
    rows = report.rows(sections())
    unverified = [r.name for r in rows if r.unverified]
    print(f"written: {args.out} ({len(rows) - len(unverified)} stacks verified"
          + (f"; unverified: {', '.join(unverified)}" if unverified else "") + ")")
    return 0


if __name__ == "__main__":
    sys.exit(main())
