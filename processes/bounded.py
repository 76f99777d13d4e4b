"""Child processes that never outlive the tool that started them: bounded runs of a command, and
spawning that an interrupt cannot split from its Popen object."""
from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from processes.tree import kill_group


@dataclass
class Completed:
    argv: list[str]
    returncode: int | None
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False


_spawning = 0
_interrupt_pending = False


def interrupt() -> None:
    """Stop the benchmark (called from the CLI's signal handler).

    A signal that lands inside subprocess.Popen would leave a started child with no Popen object
    to kill it by, so while a child is being spawned the interrupt waits for spawning() to end.
    """
    global _interrupt_pending
    if _spawning:
        _interrupt_pending = True
        return
    raise KeyboardInterrupt


@contextmanager
def spawning() -> Iterator[None]:
    """Wrap a Popen call: an interrupt that arrives meanwhile is raised once the pid is known."""
    global _spawning, _interrupt_pending
    _spawning += 1
    try:
        yield
    finally:
        _spawning -= 1
        if _interrupt_pending and not _spawning:
            _interrupt_pending = False
            raise KeyboardInterrupt


def run_bounded(argv: list[str], timeout: float, env: dict[str, str] | None = None,
                cwd: str | None = None) -> Completed:
    """Run argv in its own process group; kill the group after timeout s or on any exception."""
    started = time.monotonic()
    proc = None
    try:
        with spawning():
            proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                    errors="replace", start_new_session=True, env=env, cwd=cwd)
        stdout, stderr = proc.communicate(timeout=timeout)
        return Completed(argv, proc.returncode, stdout, stderr, time.monotonic() - started)
    except subprocess.TimeoutExpired:
        kill_group(proc.pid)
        stdout, stderr = proc.communicate()
        return Completed(argv, None, stdout, stderr, time.monotonic() - started, timed_out=True)
    except BaseException:
        if proc is not None:
            kill_group(proc.pid)
            proc.wait()
        raise
