"""The server's process tree over time: CPU seconds and RSS summed over the tree, every INTERVAL_S.

CPU of the tree is the user+system time of each live process plus what it has reaped of its children, so a
worker that dies or is replaced during a probe still counts; RSS is summed (an upper bound for forked
workers sharing pages). The pids seen are kept too: a probe tells a dead worker from a live one by them.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import psutil

from processes.tree import tree

INTERVAL_S = 0.1


@dataclass(frozen=True)
class Point:
    at: float  # time.monotonic()
    cpu_s: float
    rss: int  # bytes
    pids: frozenset[int]


def measure(root: psutil.Process) -> Point:
    cpu, rss, pids = 0.0, 0, set()
    for proc in tree(root):
        try:
            with proc.oneshot():
                times = proc.cpu_times()
                cpu += times.user + times.system + times.children_user + times.children_system
                rss += proc.memory_info().rss
                pids.add(proc.pid)
        except (psutil.NoSuchProcess, psutil.ZombieProcess, psutil.AccessDenied):
            continue
    return Point(time.monotonic(), cpu, rss, frozenset(pids))


class TreeSampler:
    """start(); stop() -> the points."""

    def __init__(self, pid: int, interval: float = INTERVAL_S):
        self.root = psutil.Process(pid)
        self.interval = interval
        self.points: list[Point] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tree-sampler", daemon=True)

    def start(self) -> "TreeSampler":
        self.points.append(measure(self.root))
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.points.append(measure(self.root))

    def stop(self) -> list[Point]:
        self._stop.set()
        self._thread.join(2)
        self.points.append(measure(self.root))
        return list(self.points)
