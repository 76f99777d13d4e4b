"""processes.tree: a stop ends the whole tree, children in sessions of their own too, and never
signals a process that merely reuses a pid."""
import signal
import subprocess
import sys

import psutil
import pytest

from processes import tree


def live_processes(pids: list[int]) -> list[int]:
    """The pids still running (the machine's init may leave zombies unreaped: those are gone)."""
    return [pid for pid in pids if (proc := tree.process(pid)) is not None and tree.is_running(proc)]


def test_stop_ends_children_in_sessions_of_their_own() -> None:
    """As PostgreSQL's backends after a SIGKILLed postmaster: out of the process group, still running."""
    script = (
        "import subprocess, sys, time; "
        "child = subprocess.Popen(['sleep', '60'], start_new_session=True); "
        "print(child.pid, flush=True); time.sleep(60)"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        child = int(parent.stdout.readline())
        stopped = tree.stop(parent.pid, grace=0.5)
        parent.wait(timeout=5)
        assert stopped.killed == [child]  # SIGTERM ended the parent alone; the child was found and killed
        assert live_processes([child]) == []
    finally:
        parent.kill()
        parent.wait()


def test_a_process_that_ignores_sigterm_is_killed_and_its_exit_code_read() -> None:
    script = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('ready', flush=True); time.sleep(60)"
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, start_new_session=True)
    proc.stdout.readline()
    stopped = tree.stop(proc, grace=0.3)
    assert stopped.how == "killed after SIGTERM timeout" and stopped.killed == [proc.pid]
    assert proc.returncode == -signal.SIGKILL


def test_a_reused_pid_is_not_the_recorded_process() -> None:
    """A pid recorded with its start time names that process only: another start time is another process."""
    proc = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        started = tree.started_since_boot(psutil.Process(proc.pid))
        assert tree.process(proc.pid, started) is not None
        assert tree.process(proc.pid, started - 5.0) is None  # as if the recorded one had exited long ago
        assert tree.stop(tree.process(proc.pid, started - 5.0) or proc.pid + 10**7).how == "was not running"
        assert proc.poll() is None
    finally:
        proc.kill()
        proc.wait()


def test_the_recorded_process_is_still_named_after_the_clock_moves(monkeypatch) -> None:
    """The boot time psutil reads from the clock moves when the clock is adjusted (NTP, a VM's
    resync): a process recorded before still names itself, so `down` stops it."""
    proc = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        started = tree.started_since_boot(psutil.Process(proc.pid))
        created = psutil.Process(proc.pid).create_time()
        boot_time = psutil._psplatform.boot_time
        monkeypatch.setattr(psutil._psplatform, "boot_time", lambda: boot_time() + 1.0)
        assert psutil.Process(proc.pid).create_time() == pytest.approx(created + 1.0)  # the clock moved
        assert tree.process(proc.pid, started) is not None
    finally:
        proc.kill()
        proc.wait()
