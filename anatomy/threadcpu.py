"""Each thread's CPU seconds over a window, from /proc/PID/task/TID/stat (through psutil).

py-spy's idle detection misses threads parked in C (SimpleQueue.get, Condition.wait, a recv in a
health-check thread): it reports them as running. A thread's own CPU time over the same window is
the check: the attribution spreads exactly that much CPU over the thread's samples, so a parked
thread adds nothing however often py-spy sampled it.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import psutil


@dataclass
class Snapshot:
    process: float  # the process's CPU seconds (threads that have exited included)
    threads: dict[int, float]  # tid -> CPU seconds
    names: dict[int, str]  # tid -> the thread's name (comm)


def _name(pid: int, tid: int) -> str:
    try:
        return Path(f"/proc/{pid}/task/{tid}/comm").read_text().strip()
    except OSError:
        return str(tid)


def snapshot(pid: int) -> Snapshot:
    try:
        proc = psutil.Process(pid)
        with proc.oneshot():
            times = proc.cpu_times()
            threads = {t.id: t.user_time + t.system_time for t in proc.threads()}
    except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
        return Snapshot(0.0, {}, {})
    return Snapshot(times.user + times.system, threads, {tid: _name(pid, tid) for tid in threads})


@dataclass
class Window:
    """CPU over the window: of the process, and of each thread alive at both ends."""

    process: float
    threads: dict[int, float]
    names: dict[int, str]


def between(before: Snapshot, after: Snapshot) -> Window:
    both = before.threads.keys() & after.threads.keys()
    return Window(max(0.0, after.process - before.process),
                  {tid: max(0.0, after.threads[tid] - before.threads[tid]) for tid in both},
                  {tid: after.names.get(tid, str(tid)) for tid in both})
