"""A free TCP port on loopback, for an entry, a backend or a load tool started next.

By default the kernel's choice (bind to port 0): any free ephemeral port, which another process may
take before ours binds it. Where the environment names a range (REFSUITE_PORTS=LOW-HIGH: the tests
give each parallel worker a range of its own, below the ephemeral range), the next port of that
range that nothing holds, handed out under a lock file: processes that share a range (a test and
the benchmark run it starts) never get the same port, and no outgoing connection takes one of them
as its local port meanwhile, since the kernel picks those from the ephemeral range only.
"""
from __future__ import annotations

import fcntl
import os
import socket
import tempfile
from pathlib import Path

RANGE_ENV = "REFSUITE_PORTS"


class NoFreePort(RuntimeError):
    """Every port of the range is held."""


def port_range() -> tuple[int, int] | None:
    """(low, high) of REFSUITE_PORTS, None when it is not set."""
    raw = os.environ.get(RANGE_ENV, "").strip()
    if not raw:
        return None
    try:
        low, high = (int(part) for part in raw.split("-"))
    except ValueError:
        raise ValueError(f"{RANGE_ENV}={raw!r}: expected LOW-HIGH, e.g. 10000-10999") from None
    if not 1024 <= low <= high <= 65535:
        raise ValueError(f"{RANGE_ENV}={raw!r}: expected 1024 <= LOW <= HIGH <= 65535")
    return low, high


def _bindable(host: str, port: int) -> bool:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def _counter_file(low: int, high: int) -> Path:
    return Path(tempfile.gettempdir()) / f"refsuite-ports-{low}-{high}"


def _from_range(host: str, low: int, high: int) -> int:
    """The next bindable port after the last one handed out of the range, the counter kept in a
    locked file so that every process of the range takes turns."""
    size = high - low + 1
    with open(_counter_file(low, high), "a+") as counter:
        fcntl.flock(counter, fcntl.LOCK_EX)
        counter.seek(0)
        text = counter.read().strip()
        last = int(text) if text.isdigit() else -1
        for step in range(1, size + 1):
            index = (last + step) % size
            if _bindable(host, low + index):
                counter.seek(0)
                counter.truncate()
                counter.write(str(index))
                counter.flush()
                return low + index
    raise NoFreePort(f"no free port in {low}-{high} ({RANGE_ENV}) on {host}")


def free_port(host: str = "127.0.0.1") -> int:
    span = port_range()
    if span is not None:
        return _from_range(host, *span)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]
