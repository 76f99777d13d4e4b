"""Which parallel worker runs which tests: a stack's tests on one worker (its server started once for all of
them), the `alone` tests together on one (tests/alone.py), every other test wherever a worker is free.

pytest-xdist's own `--dist loadgroup` passes a test's group to the controller by appending it to the test's
node id, which pytest 9.2 no longer reads (pytest-xdist #1386): the groups are silently ignored. So the
groups travel explicitly here: each worker writes the group of every test it collected into the run's
directory while it collects, and the controller's scheduler (xdist's LoadScopeScheduling, a scope per
group) reads them when it hands out the work, which it does only once every worker has collected.
"""
from __future__ import annotations

import json
from pathlib import Path

from xdist.scheduler import LoadScopeScheduling


def write(run_dir: Path, worker: str, groups: dict[str, str]) -> None:
    """A worker's collected tests' groups (node id -> group), for the controller."""
    path = run_dir / f"groups-{worker}.json"
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(groups))
    temporary.replace(path)


def read(run_dir: Path) -> dict[str, str]:
    groups: dict[str, str] = {}
    for path in sorted(run_dir.glob("groups-*.json")):
        groups.update(json.loads(path.read_text()))
    return groups


class GroupScheduling(LoadScopeScheduling):
    """LoadScopeScheduling with a scope per group: a grouped test's scope is its group, any other test is a
    scope of its own."""

    def __init__(self, config, log=None, run_dir: Path | None = None) -> None:
        super().__init__(config, log)
        self.run_dir = run_dir
        self._groups: dict[str, str] | None = None

    def _split_scope(self, nodeid: str) -> str:
        if self._groups is None:  # first asked once every worker has collected (and written its groups)
            self._groups = read(self.run_dir) if self.run_dir else {}
        return self._groups.get(nodeid, nodeid)

