"""`python -m tests.conformance`: write docs/conformance.md from a run's verdicts.

The verdicts are those the reliability suite's conformance tests recorded in
results/reliability/summary.json (tests/reliability/test_reliability_conformance.py); `--run` runs
those tests first (every stack, then the stacks with a smuggling-relevant caveat behind nginx).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from harness import versions

from . import nginx, report

ROOT = Path(__file__).resolve().parents[2]
TEST = "tests/reliability/test_reliability_conformance.py"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.conformance", description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=ROOT / "results" / "reliability" / "summary.json",
                        help="a reliability run's summary.json (default: %(default)s)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "conformance.md", help="default: %(default)s")
    parser.add_argument("--run", action="store_true", help=f"run {TEST} first (./test.sh, a few minutes)")
    args = parser.parse_args(argv)
    if args.run:
        env = {**os.environ, "RELIABILITY_OUT": str(args.results.parent)}
        done = subprocess.run([str(ROOT / "test.sh"), "-q", "-p", "no:cacheprovider", "-m", "reliability", TEST],
                              cwd=ROOT, env=env)
        if done.returncode != 0:
            print(f"the conformance tests failed (exit {done.returncode}): the page is not written", file=sys.stderr)
            return done.returncode
    try:
        summary = json.loads(args.results.read_text())
    except (OSError, ValueError) as exc:
        parser.error(f"cannot read {args.results}: {exc}; run the conformance tests first (--run)")
    rows = {name: row for name, row in summary["stacks"].items() if row.get("conformance")}
    if not rows:
        parser.error(f"{args.results} has no conformance verdicts; run the conformance tests first (--run)")
    found = {name: versions.for_entry(name) for name in rows}
    args.out.write_text(report.page(rows, summary["run"], found, nginx.version()))
    print(f"written: {args.out} ({len(rows)} stacks)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
