"""`./bench.sh run ... --anatomy`: after the runs, `python -m anatomy --bench-report OUT` as a process.

bench and anatomy both stand on the harness and never import each other: bench names the stacks
that ran (each on the first operation it was benchmarked on) and anatomy writes OUT/anatomy.html,
which bench.report.reports appends to report.html.
"""
from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from harness.entry import ROOT
from processes import tree
from processes.bounded import spawning

SECONDS = 6.0


def stacks(results: list) -> list[str]:
    """NAME:OP of each entry that ran, on the first operation it answered."""
    first_op: dict[str, str] = {}
    for r in results:
        if r.ok:
            first_op.setdefault(r.entrypoint, r.operation)
    return [f"{name}:{op}" for name, op in first_op.items()]


def write_anatomy(results: list, out: Path, seconds: float = SECONDS) -> int:
    """Run the anatomy of every stack that ran (its lines go to our stderr); its exit code."""
    names = stacks(results)
    if not names:
        return 0
    argv = [sys.executable, "-m", "anatomy", "--bench-report", str(out), "--seconds", str(seconds), *names]
    with spawning():
        proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, start_new_session=True)
    try:
        return proc.wait()
    except BaseException:
        # SIGINT: anatomy stops the entry and backends it started; its tree is killed after the grace
        tree.stop(proc, grace=10.0, first_signal=signal.SIGINT)
        raise
