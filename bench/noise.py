"""The noise probe: how fast this machine does a fixed piece of work, right before and after each run.

On a shared VM the neighbours move the machine: the same command gives half the requests/s an hour
later. The probe makes that visible per run. It times two fixed reference loads, well under a second
together:
  cpu_ms       a fixed pure-Python loop (median of a few chunks, in ms per chunk);
  loopback_ms  a fixed number of keep-alive HTTP requests from one client to a tiny stdlib
               http.server on 127.0.0.1 started once by the probe (median of a few batches, ms).
A run whose probe moved by more than a threshold (after vs before, the larger of the two) is
flagged noisy. CPU steal time over the run (from /proc/stat via psutil) is recorded as well: it is
the share of time the hypervisor gave this VM's CPUs to someone else.
"""
from __future__ import annotations

import http.client
import http.server
import statistics
import threading
import time
from dataclasses import dataclass

import psutil

from bench import defaults

CPU_CHUNKS, CPU_LOOP = 7, 100_000
# One chunk's time on the reference machine, quiet: the 2-core machine CI's budget (README "CI") was set on
# reads it in 6.4 ms at its fastest. speed_factor() says how much slower this machine is.
REFERENCE_CPU_MS = 6.4
LOOPBACK_BATCHES, LOOPBACK_REQUESTS = 7, 50
KEYS = ("cpu_ms", "loopback_ms")
BODY = b"probe\n"


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: the probe measures requests, not connection setup
    disable_nagle_algorithm = True  # headers and body go out apart: no 40 ms delayed-ACK stall

    def do_GET(self):  # noqa: N802 - the http.server API
        self.send_response(200)
        self.send_header("Content-Length", str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)

    def log_message(self, *args):  # noqa: ARG002 - quiet
        pass


def _cpu_chunk() -> float:
    start = time.perf_counter()
    total = 0
    for i in range(CPU_LOOP):
        total += i * i % 7
    return (time.perf_counter() - start) * 1000


def speed_ms(chunks: int = 31) -> float:
    """This machine's time for one chunk of the loop at its fastest (the minimum over many short chunks:
    neighbours and other processes only ever add to it)."""
    return min(_cpu_chunk() for _ in range(chunks))


def speed_factor(ms: float) -> float:
    """How many times slower than the reference machine (never below 1: a faster machine keeps the budget)."""
    return max(1.0, ms / REFERENCE_CPU_MS)


def _steal_and_total() -> tuple[float, float]:
    times = psutil.cpu_times()
    return getattr(times, "steal", 0.0), sum(times)


def moved_pct(before: dict, after: dict) -> float | None:
    """The larger relative change of the probe's readings, in percent of the before reading."""
    changes = [abs(after[k] / before[k] - 1.0) * 100 for k in KEYS
               if before.get(k) and after.get(k) is not None]
    # Kept to the readings' own resolution: rounded to 0.1 %, a quiet probe read 0.0 and passed
    # any threshold, however small.
    return round(max(changes), 3) if changes else None


@dataclass
class Reading:
    """What the probe says around one run (the fields a Result carries)."""

    before: dict
    after: dict
    moved_pct: float | None
    noisy: bool
    steal_pct: float | None


class Probe:
    """start() once, then around every run: token = begin(); ...; reading = end(token)."""

    def __init__(self, threshold_pct: float = defaults.NOISE_THRESHOLD_PCT):
        self.threshold_pct = threshold_pct
        self._server: http.server.ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._conn: http.client.HTTPConnection | None = None

    def start(self) -> "Probe":
        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="noise-probe", daemon=True)
        self._thread.start()
        self.measure()  # the first connection and the first loop are slower: not a reading
        return self

    def stop(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> "Probe":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def _request(self) -> None:
        if self._conn is None:
            assert self._server is not None, "start() the probe first"
            self._conn = http.client.HTTPConnection("127.0.0.1", self._server.server_address[1], timeout=5)
        try:
            self._conn.request("GET", "/")
            response = self._conn.getresponse()
            response.read()
        except (OSError, http.client.HTTPException):
            self._conn.close()
            self._conn = None
            raise

    def _loopback_batch(self) -> float:
        start = time.perf_counter()
        for _ in range(LOOPBACK_REQUESTS):
            self._request()
        return (time.perf_counter() - start) * 1000

    def measure(self) -> dict:
        """One reading: {"cpu_ms": ..., "loopback_ms": ...} (medians; loopback None if it failed)."""
        cpu = statistics.median(_cpu_chunk() for _ in range(CPU_CHUNKS))
        try:
            loopback = statistics.median(self._loopback_batch() for _ in range(LOOPBACK_BATCHES))
        except (OSError, http.client.HTTPException):
            loopback = None
        return {"cpu_ms": round(cpu, 3), "loopback_ms": None if loopback is None else round(loopback, 3)}

    def begin(self) -> tuple[dict, tuple[float, float]]:
        return self.measure(), _steal_and_total()

    def end(self, token: tuple[dict, tuple[float, float]]) -> Reading:
        before, (steal0, total0) = token
        steal1, total1 = _steal_and_total()
        after = self.measure()
        moved = moved_pct(before, after)
        steal = round(100 * (steal1 - steal0) / (total1 - total0), 2) if total1 > total0 else None
        return Reading(before, after, moved, moved is not None and moved > self.threshold_pct, steal)


if __name__ == "__main__":
    # `python -m bench.noise`: the machine-speed probe CI prints with its step table (scripts/ci-steps.sh).
    ms = speed_ms()
    print(f"cpu_ms={ms:.2f} reference_ms={REFERENCE_CPU_MS} factor={speed_factor(ms):.2f}")
