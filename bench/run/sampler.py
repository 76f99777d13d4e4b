"""Server CPU seconds, peak RSS and peak PSS, sampled with psutil over the server's whole process tree.

CPU of the tree = the user+system time of every live process plus the time of the children each
has reaped (children_user/children_system), so workers that exit or are forked per connection
during the run still count. RSS is summed over the tree (shared pages of forked workers count
once per worker: an upper bound). PSS (proportional set size, /proc/PID/smaps_rollup) splits each
shared page among the processes that map it, so its sum over the tree is the memory the stack takes,
whether its workers are processes or threads: what the free-threading comparison weighs. Reading it
walks each process's page tables (about 0.3-1 ms a process), so it is read every PSS_EVERY samples.
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


PSS_EVERY = 5  # samples: PSS once a second at the default interval


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


def tree_pss(pid: int) -> int | None:
    """The tree's PSS in bytes; None where the kernel or permissions do not give it."""
    total = 0
    for proc in tree(pid):
        try:
            total += proc.memory_full_info().pss
        except (psutil.NoSuchProcess, psutil.ZombieProcess):
            continue
        except (psutil.AccessDenied, AttributeError):  # another user's process; no pss field off Linux
            return None
    return total


class TreeSampler:
    """with TreeSampler(pid) as s: ...  then s.cpu_s and s.peak_rss_mb."""

    def __init__(self, pid: int, interval: float = 0.2):
        self.pid, self.interval = pid, interval
        self.cpu_s: float | None = None
        self.peak_rss_mb: float | None = None
        self.peak_pss_mb: float | None = None
        self._start_cpu = 0.0
        self._peak = 0
        self._peak_pss: int | None = None
        self._samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _sample(self, pss: bool = False) -> float:
        cpu, rss = tree_cpu_rss(self.pid)
        self._peak = max(self._peak, rss)
        self._samples += 1
        if pss or self._samples % PSS_EVERY == 0:
            found = tree_pss(self.pid)
            if found is not None:
                self._peak_pss = max(self._peak_pss or 0, found)
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
        end = self._sample(pss=True)
        self.cpu_s = round(max(0.0, end - self._start_cpu), 3)
        self.peak_rss_mb = round(self._peak / 2**20, 1)
        self.peak_pss_mb = round(self._peak_pss / 2**20, 1) if self._peak_pss is not None else None

