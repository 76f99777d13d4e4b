"""The legitimate client of a probe: one WebSocket connection to /ws/echo (Python's websockets, as a user's
client, offering no compression, as the contract's clients), a 32-byte message every INTERVAL_S, each a Sample
(h2grid.client's: due time, latency from it, error) for h2grid.judge. A connection that fails is opened again at
the next message."""
from __future__ import annotations

import threading
import time

from websockets.sync.client import connect

from h2grid.client import Sample

INTERVAL_S = 0.05
REQUEST_TIMEOUT_S = 5.0
MESSAGE = b"legitimate client, 32 bytes ...."


class LegitClient:
    """start(), then stop() -> the samples; runs on a thread of its own."""

    def __init__(self, port: int, path: str = "/ws/echo", interval: float = INTERVAL_S,
                 timeout: float = REQUEST_TIMEOUT_S):
        self.url = f"ws://127.0.0.1:{port}{path}"
        self.interval, self.timeout = interval, timeout
        self.samples: list[Sample] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="ws-legit-client", daemon=True)

    def start(self) -> "LegitClient":
        self._thread.start()
        return self

    def stop(self) -> list[Sample]:
        self._stop.set()
        self._thread.join(self.timeout + 2)
        return list(self.samples)

    def _wait(self, due: float) -> bool:
        """Sleep until `due`; False once stopped."""
        wait = due - time.monotonic()
        return not (self._stop.wait(wait) if wait > 0 else self._stop.is_set())

    def _run(self) -> None:
        started, i = time.monotonic(), 0
        while True:
            due = started + i * self.interval
            if not self._wait(due):
                return
            try:
                with connect(self.url, open_timeout=self.timeout, close_timeout=1, compression=None) as ws:
                    while True:
                        ws.send(MESSAGE)
                        answer = ws.recv(timeout=self.timeout)
                        error = "" if answer == MESSAGE else f"wrong echo {answer[:40]!r}"
                        self.samples.append(Sample(due, time.monotonic() - due, error))
                        i += 1
                        due = started + i * self.interval
                        if not self._wait(due):
                            return
            except Exception as exc:  # noqa: BLE001 - every failure is a sample's error; the next one reconnects
                self.samples.append(Sample(due, time.monotonic() - due, f"{type(exc).__name__}: {str(exc)[:120]}"))
                i += 1
