"""Ready when the port accepts: for servers whose main process holds no listening socket.

granian's workers and hypercorn's each bind (or listen on) the port themselves and tell their
parent nothing, so the ready line waits until a connection to the port succeeds.
"""
from __future__ import annotations

import socket
import threading
import time
from typing import Callable

from servers.options import Options

WORKER_START_SECONDS = 60  # a worker imports its framework before it listens


def announce_when_accepting(options: Options, ready: Callable[[], None]) -> None:
    """Start a thread that polls the port and calls ready() once it accepts a connection."""

    def poll() -> None:
        deadline = time.monotonic() + WORKER_START_SECONDS
        while time.monotonic() < deadline:
            try:
                socket.create_connection((options.host, options.port), timeout=1).close()
            except OSError:
                time.sleep(0.05)
                continue
            ready()
            return

    threading.Thread(target=poll, name="announce-when-accepting", daemon=True).start()
