"""Ready when every worker listens: for granian, whose main process holds no listening socket.

On Linux granian's workers each bind the port themselves (SO_REUSEPORT) and tell their parent
nothing, so the ready line waits until the kernel lists as many listening sockets on the port
as there are workers (/proc/net/tcp, tcp6).
"""
from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Callable

from servers.core.options import Options

WORKER_START_SECONDS = 60  # a worker imports its framework before it listens
_LISTEN = "0A"  # TCP_LISTEN in /proc/net/tcp's st column


def listening_sockets(port: int) -> int:
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if fields[3] == _LISTEN and int(fields[1].rsplit(":", 1)[1], 16) == port:
                count += 1
    return count


def announce_when_listening(options: Options, ready: Callable[[], None]) -> None:
    """Start a thread that calls ready() once --workers sockets listen on the port."""

    def poll() -> None:
        deadline = time.monotonic() + WORKER_START_SECONDS
        while time.monotonic() < deadline:
            if listening_sockets(options.port) >= options.workers:
                ready()
                return
            time.sleep(0.05)

    threading.Thread(target=poll, name="announce-when-listening", daemon=True).start()
