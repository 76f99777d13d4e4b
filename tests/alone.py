"""Tests that measure something timing-sensitive run alone: no test of another parallel worker runs
meanwhile.

The suite runs on several pytest-xdist workers, since most of its time is waiting (servers starting,
held and silent connections, backends down, drains) while the cores idle. A test marked
`@pytest.mark.alone` (a load held within a latency bound, a benchmark's own self-checks) needs the
machine to itself. Every test holds a lock that the workers' processes share: shared by the others,
exclusive by an `alone` one. A second lock, the gate, gives the exclusive one precedence: it holds the
gate while it waits, so no new test starts before it, and the tests under way finish first.
The `alone` tests are one group of the run (tests/conftest.py), so one worker runs them one after the
other, and it keeps the exclusive lock from the first to the last: the others drain once, not once a test.
"""
from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path

DIR_ENV = "REFSUITE_ALONE_DIR"  # the run's directory of the two lock files, set by the controller
GROUP = "alone"  # the xdist group of every `alone` test


class Turns:
    """This process's hold on the run lock: shared for an ordinary test, exclusive for an `alone` one."""

    def __init__(self) -> None:
        self.mode: int | None = None
        self._gate = self._run = None
        self.waited_s = 0.0

    def _open(self):
        folder = Path(os.environ[DIR_ENV])
        self._gate, self._run = open(folder / "gate", "a"), open(folder / "run", "a")

    def take(self, alone: bool) -> None:
        """Hold the lock in the mode this test needs (kept when it already is)."""
        if not os.environ.get(DIR_ENV):
            return  # a run without workers: nothing runs beside it
        mode = fcntl.LOCK_EX if alone else fcntl.LOCK_SH
        if self.mode == mode:
            return
        self.give_back()
        self._open()
        started = time.monotonic()
        fcntl.flock(self._gate, fcntl.LOCK_EX)
        fcntl.flock(self._run, mode)
        if not alone:
            fcntl.flock(self._gate, fcntl.LOCK_UN)
        self.mode = mode
        self.waited_s = time.monotonic() - started

    def give_back(self) -> None:
        if self.mode is None:
            return
        for handle in (self._run, self._gate):
            fcntl.flock(handle, fcntl.LOCK_UN)
            handle.close()
        self.mode = None


TURNS = Turns()
