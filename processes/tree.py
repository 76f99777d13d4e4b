"""Stopping a process and everything it started, on psutil.

A process is named by its pid and its start time counted from boot (`started_since_boot`), so a
pid that the kernel has handed to another process meanwhile is never signalled. psutil's
create_time is that start plus the boot time read from the clock, which moves when the clock is
adjusted (psutil's docs say so): a state file read minutes later then no longer matched its
process, and `down` left a running backend behind. The tree is snapshotted before
the first signal: PostgreSQL's backends and a server's workers run in sessions or groups of their
own, and once their parent is gone nothing links them to it any more.
"""
from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from dataclasses import dataclass, field

import psutil

KILL_WAIT_S = 5.0  # a SIGKILLed process is gone within this, even beside a CPU hog


class StillRunning(RuntimeError):
    """A process outlived SIGKILL (uninterruptible sleep); the message names it."""


@dataclass
class Stopped:
    how: str  # "exited N", "killed after SIGTERM timeout", "was not running"
    killed: list[int] = field(default_factory=list)  # pids that needed SIGKILL


def started_since_boot(proc: psutil.Process) -> float:
    """When proc started, in seconds since boot: its identity beside its pid, unmoved by clock changes."""
    return round(proc.create_time() - psutil.boot_time(), 2)


def process(pid: int, started: float | None = None) -> psutil.Process | None:
    """The running process pid, if it is the one that started at `started` (started_since_boot)."""
    try:
        proc = psutil.Process(pid)
        if started is not None and abs(started_since_boot(proc) - started) > 0.011:
            return None  # the pid was reused
        return proc if is_running(proc) else None
    except psutil.Error:
        return None


def is_running(proc: psutil.Process) -> bool:
    """Running, not a zombie: an exited child of ours is reaped here, since another program (a
    restarted PostgreSQL checking its lock file's pid) would take a zombie for alive."""
    try:
        if proc.status() != psutil.STATUS_ZOMBIE:
            return proc.is_running()
    except psutil.Error:
        return False
    with contextlib.suppress(ChildProcessError):
        os.waitpid(proc.pid, os.WNOHANG)
    return False


def tree(proc: psutil.Process) -> list[psutil.Process]:
    """proc and its descendants right now."""
    try:
        return [proc, *proc.children(recursive=True)]
    except psutil.Error:
        return []


def kill_group(pid: int, sig: int = signal.SIGKILL) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


def wait_gone(procs: list[psutil.Process], timeout: float) -> list[psutil.Process]:
    """Wait up to timeout s for procs to exit; the ones still running (zombies count as gone: a
    worker whose supervisor exited first waits for init to reap it, which may be slow)."""
    deadline = time.monotonic() + timeout
    alive = procs
    while True:
        # short rounds: psutil waits out the whole timeout on a zombie that is not our child
        _, alive = psutil.wait_procs(alive, timeout=0.05)
        alive = [p for p in alive if is_running(p)]
        if not alive or time.monotonic() >= deadline:
            return alive


def stop(target: subprocess.Popen | psutil.Process | int, grace: float = 5.0,
         first_signal: int = signal.SIGTERM) -> Stopped:
    """Send first_signal, wait grace s for the whole tree, then SIGKILL the process group and every
    survivor and wait until they are gone. A Popen is waited on through itself, so that its
    returncode is the real one."""
    popen = target if isinstance(target, subprocess.Popen) else None
    pid = target.pid if isinstance(target, (subprocess.Popen, psutil.Process)) else target
    if popen is not None and popen.poll() is not None:
        kill_group(pid)  # leftover workers of a process that already exited
        return Stopped(f"exited {popen.returncode}")
    root = target if isinstance(target, psutil.Process) else process(pid)
    if root is None or not is_running(root):
        if popen is not None:
            popen.wait()
            return Stopped(f"exited {popen.returncode}")
        return Stopped("was not running")
    procs = tree(root)
    try:
        leads_group = os.getpgid(pid) == pid
    except ProcessLookupError:
        leads_group = False
    with contextlib.suppress(psutil.Error):
        root.resume()  # a paused (SIGSTOPped) process would never act on the signal
        root.send_signal(first_signal)
    deadline = time.monotonic() + grace
    code = None
    if popen is not None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            code = popen.wait(grace)
        procs = procs[1:]
    alive = wait_gone(procs, deadline - time.monotonic())
    if popen is not None and code is None:
        alive.insert(0, root)
    if not alive:
        return Stopped(f"exited {code}" if popen is not None else "exited")
    if leads_group:
        kill_group(pid)  # its own group: what it forked since the snapshot goes too
    for proc in alive:
        with contextlib.suppress(psutil.Error):
            proc.kill()  # psutil refuses a reused pid
    if popen is not None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            popen.wait(KILL_WAIT_S)
    lingering = wait_gone([p for p in alive if p.pid != pid or popen is None], KILL_WAIT_S)
    if lingering:
        raise StillRunning(f"pids {[p.pid for p in lingering]} did not stop after SIGKILL")
    return Stopped("killed after SIGTERM timeout", [p.pid for p in alive])
