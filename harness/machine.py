"""The machine a result was measured on: cores, CPU model, memory, kernel, Python."""
from __future__ import annotations

import functools
import os
import platform

from servers.core.cores import usable_cpus


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def memory_gb() -> float | None:
    try:
        import psutil

        return round(psutil.virtual_memory().total / 2**30, 1)
    except Exception:  # noqa: BLE001 - informational only
        return None


@functools.lru_cache(maxsize=1)
def describe() -> dict:
    return {
        "cores": os.cpu_count(),
        "usable_cores": len(usable_cpus()),
        "cpu_model": cpu_model(),
        "memory_gb": memory_gb(),
        "kernel": platform.release(),
        "os": platform.system(),
        "python": platform.python_version(),
        "python_implementation": platform.python_implementation(),
    }


def summary(machine: dict) -> str:
    return (f"{machine.get('cpu_model', '?')}, {machine.get('usable_cores', '?')}/{machine.get('cores', '?')} "
            f"cores, {machine.get('memory_gb', '?')} GiB, Linux {machine.get('kernel', '?')}, "
            f"Python {machine.get('python', '?')}")
