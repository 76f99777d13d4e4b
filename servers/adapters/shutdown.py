"""Stopping on SIGTERM/SIGINT within the contract's 5 s, whatever a server's threads are doing."""
from __future__ import annotations

import os
import signal
import threading
from typing import Callable

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)
GRACE_SECONDS = 3.0  # graceful drain for servers that have one; the rest of the 5 s is slack


def on_stop_signal(callback: Callable[[], None]) -> None:
    for sig in STOP_SIGNALS:
        signal.signal(sig, lambda signum, frame: callback())


def exit_deadline(seconds: float = GRACE_SECONDS + 1.0, code: int = 0) -> None:
    """Leave the process after `seconds` even if non-daemon threads hang (twisted's pool, say)."""
    timer = threading.Timer(seconds, os._exit, args=(code,))
    timer.daemon = True
    timer.start()
