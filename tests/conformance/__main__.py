"""`python -m tests.conformance`: write docs/conformance.md from the records' conformance sections.

The records (records/<entry>.json, servers/core/records.py) are written by the conformance run with
CONFORMANCE_RECORD=1 (tests/reliability/test_reliability_conformance.py; tests/conformance/pinning.py);
`--run` runs it first, over every stack or those named with `-k`. The page is written only when every
record it shows comes from a complete run whose tests passed.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from servers.core import catalog, records

from . import nginx, report

ROOT = Path(__file__).resolve().parents[2]
TEST = "tests/reliability/test_reliability_conformance.py"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.conformance", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "conformance.md", help="default: %(default)s")
    parser.add_argument("--run", action="store_true",
                        help=f"run {TEST} first with CONFORMANCE_RECORD=1 (./test.sh; about 15 s a stack)")
    parser.add_argument("-k", dest="select", default="", help="with --run: only these tests (pytest -k, an entry)")
    args = parser.parse_args(argv)
    if args.run:
        env = {**os.environ, "CONFORMANCE_RECORD": "1"}
        command = [str(ROOT / "test.sh"), "-q", "-p", "no:cacheprovider", "-m", "reliability", TEST]
        done = subprocess.run(command + (["-k", args.select] if args.select else []), cwd=ROOT, env=env)
        if done.returncode != 0:
            print(f"the conformance tests failed (exit {done.returncode}): the page is not written", file=sys.stderr)
            return done.returncode
    recs = {e.name: (records.load(e.name) or {}).get("conformance") for e in catalog.ENTRIES}
    missing = [name for name, section in recs.items() if not section]
    unfit = [name for name, section in recs.items() if section and not (
        section["run"].get("complete") and section["run"].get("passed"))]
    if unfit:
        parser.error("records not from a complete run whose tests passed: " + ", ".join(unfit)
                     + f"; rerun them (CONFORMANCE_RECORD=1 ./test.sh -m reliability {TEST} -k <entry>)")
    shown = {name: section for name, section in recs.items() if section}
    if not shown:
        parser.error(f"no record has a conformance section; run the conformance tests first (--run)")
    args.out.write_text(report.record_page(shown, nginx.version()))
    print(f"written: {args.out} ({len(shown)} stacks" + (f"; without a record: {', '.join(missing)}" if missing else "")
          + ")")
    return 0


if __name__ == "__main__":
    sys.exit(main())
