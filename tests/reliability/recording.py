"""The reliability run's record of each stack: records/<entry>.json's `reliability` section
(servers/core/records.py), written when the run is over and only when RELIABILITY_RECORD=1, so a
partial run while debugging never overwrites a complete one.

A stack's section lists the outcome of each of its tests (its id without the stack), and is complete
when every reliability test file was collected, none of that stack's tests was deselected (-k, -m)
and each of them ran to an outcome. The HTTP/1.1 conformance cases are the `conformance` section's
(their own run), not repeated here. Write them all, or one stack's:

    RELIABILITY_RECORD=1 ./test.sh -m reliability tests/reliability [-k ENTRY]
"""
from __future__ import annotations

import os
from collections import defaultdict
from pathlib import Path

from harness import versions
from servers.core import catalog, records

ENABLED = os.environ.get("RELIABILITY_RECORD", "") == "1"
HERE = Path(__file__).resolve().parent
# The conformance cases have a section of their own (the judge's run).
OTHER_SECTIONS = {"test_reliability_conformance.py"}


def entry_of(item) -> str | None:
    """The catalog entry a reliability test runs (its `name` parameter), None for a test of no one
    stack, of another section, or outside this suite."""
    path = Path(item.fspath)
    if path.parent != HERE or path.name in OTHER_SECTIONS:
        return None
    params = getattr(getattr(item, "callspec", None), "params", {})
    name = params.get("name")
    return name if name in catalog.BY_NAME else None


def test_id(item) -> str:
    """The test's id without its stack: file::function[other parameters]."""
    params = {k: v for k, v in getattr(getattr(item, "callspec", None), "params", {}).items() if k != "name"}
    suffix = f"[{'-'.join(str(v) for v in params.values())}]" if params else ""
    return f"{Path(item.fspath).name}::{item.originalname}{suffix}"


class Recorder:
    """Collects outcomes per stack while the run goes, writes the sections at its end."""

    def __init__(self) -> None:
        self.selected: dict[str, list] = defaultdict(list)
        self.deselected: set[str] = set()
        self.files: set[str] = set()
        self.outcomes: dict[str, dict[str, str]] = defaultdict(dict)

    def _counted(self, item) -> str | None:
        if Path(item.fspath).parent == HERE:
            self.files.add(Path(item.fspath).name)
        return entry_of(item)

    def deselect(self, items) -> None:
        for item in items:
            name = self._counted(item)
            if name:
                self.deselected.add(name)

    def collected(self, items) -> None:
        for item in items:
            name = self._counted(item)
            if name:
                self.selected[name].append(test_id(item))

    def report(self, item, report) -> None:
        name = entry_of(item)
        if not name:
            return
        key, outcomes = test_id(item), self.outcomes[name]
        if report.when == "call" or (report.when == "setup" and not report.passed):
            if hasattr(report, "wasxfail"):
                outcome = "xfailed" if report.skipped else "passed"
            else:
                outcome = {"passed": "passed", "failed": "failed", "skipped": "skipped"}[report.outcome]
            outcomes[key] = outcome
        elif report.when == "teardown" and report.failed:
            outcomes[key] = "failed"

    def state(self) -> dict:
        """What this process saw, for the run's controller (each parallel worker runs some of the tests)."""
        return {"selected": self.selected, "deselected": sorted(self.deselected), "files": sorted(self.files),
                "outcomes": self.outcomes}

    def merge(self, state: dict) -> None:
        """Add what a worker saw: every worker collects every test, each reports the ones it ran."""
        for name, tests in state["selected"].items():
            self.selected[name] = list(dict.fromkeys([*self.selected.get(name, []), *tests]))
        self.deselected |= set(state["deselected"])
        self.files |= set(state["files"])
        for name, outcomes in state["outcomes"].items():
            self.outcomes[name].update(outcomes)

    def write(self, interrupted: bool, seconds: float, scale: float) -> list[Path]:
        every_file = {p.name for p in HERE.glob("test_*.py")} <= self.files
        stamp = records.stamp()
        date, commit = stamp["date"], stamp["commit"]
        written = []
        for name, tests in self.selected.items():
            outcomes = self.outcomes.get(name, {})
            complete = (every_file and not interrupted and name not in self.deselected
                        and all(test in outcomes for test in tests))
            run = {"date": date, "commit": commit, "versions": versions.for_entry(name), "complete": complete,
                   "seconds": seconds, "scale": scale}
            written.append(records.write_section(name, "reliability", {"run": run, "tests": dict(sorted(outcomes.items()))}))
        return written
