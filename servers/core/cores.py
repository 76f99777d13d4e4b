"""The cores this process may run on: the catalog's "one worker per core" and bench's CPU pinning."""
from __future__ import annotations

import os


def usable_cpus() -> list[int]:
    """CPU numbers this process may run on (respects taskset and cpusets, unlike os.cpu_count)."""
    try:
        return sorted(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return list(range(os.cpu_count() or 1))


def usable_cores() -> int:
    return len(usable_cpus())
