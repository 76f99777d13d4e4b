"""Server CPU seconds and peak RSS, sampled with psutil over the server's whole process tree.

CPU of the tree = the user+system time of every live process plus the time of the children each
has reaped (children_user/children_system), so workers that exit or are forked per connection
during the run still count. RSS is summed over the tree (shared pages of forked workers count
once per worker: an upper bound).
"""
from __future__ import annotations

import threading

import psutil


def tree(pid: int) -> list[psutil.Process]:
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def tree_cpu_rss(pid: int) -> tuple[float, int]:
    cpu, rss = 0.0, 0
    for proc in tree(pid):
        try:
            with proc.oneshot():
                t = proc.cpu_times()
                cpu += t.user + t.system + t.children_user + t.children_system
                rss += proc.memory_info().rss
        except (psutil.NoSuchProcess, psutil.ZombieProcess, psutil.AccessDenied):
            continue
    return cpu, rss


class TreeSampler:
    """with TreeSampler(pid) as s: ...  then s.cpu_s and s.peak_rss_mb."""

    def __init__(self, pid: int, interval: float = 0.2):
        self.pid, self.interval = pid, interval
        self.cpu_s: float | None = None
        self.peak_rss_mb: float | None = None
        self._start_cpu = 0.0
        self._peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _sample(self) -> float:
        cpu, rss = tree_cpu_rss(self.pid)
        self._peak = max(self._peak, rss)
        return cpu

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            self._sample()

    def __enter__(self) -> "TreeSampler":
        self._start_cpu = self._sample()
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(2)
        end = self._sample()
        self.cpu_s = round(max(0.0, end - self._start_cpu), 3)
        self.peak_rss_mb = round(self._peak / 2**20, 1)

