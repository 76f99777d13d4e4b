"""One open-loop step at a constant rate, its latency counted from each request's intended send time.

The tool is vegeta (already the suite's open-loop tool, a Go binary installed by setup.sh) with a
fixed pool of workers: vegeta's default, unbounded workers spawn goroutines and connections into a
spiral once the server lags (measured here: 10,000/s asked of Go net/http, 2,772/s sent, p50 3.8 s),
so a step would measure the tool. A fixed pool brings coordinated omission back instead: once every
worker waits, the pacer sends late, and vegeta's own latency starts at the late send. So the latency
of a request is counted here from its place in the schedule: vegeta's constant pacer sends hit `seq`
at `seq / rate` after the attack began, and `vegeta encode` gives every hit's seq, actual send time
and latency; latency = (send + latency) - (t0 + seq / rate), t0 the schedule's origin (the earliest
send relative to its slot: no hit goes out early). This is what wrk2 does inside the tool, done
after the run from vegeta's per-request record, exact for a constant pacer.

How far the pacer fell behind (send lag) and how many hits went out at all (sent rate against
offered) are recorded too: they say when the pool was the limit (bench/selfcheck.py decides
whether that voids the step). The first `warmup_s` seconds of a step are sent but not counted.
"""
from __future__ import annotations

import csv
import io
import math
import subprocess
from dataclasses import dataclass, field

from loadtools.measurement import Measurement
from loadtools.base import LoadSpec
from loadtools.errors import classify
from loadtools.vegeta import Vegeta, protocol_flags, targets

WORKERS = 64  # vegeta's initial workers (goroutines, each one request in flight)
MAX_WORKERS = 256  # ... and the cap: at most this many requests in flight, so at most this many connections
LATENCY_KEYS = ("p50", "p90", "p99", "p99.9")


@dataclass
class StepMeasurement:
    """What one constant-rate step measured (after its warm-up), latency in ms from the intended send."""

    offered_rate: float
    seconds: float  # the measured window (warm-up excluded)
    sent: int = 0  # hits whose slot fell in the window
    total_completed: int = 0  # answers of the whole attack, warm-up included (what the server's CPU served)
    completed: int = 0  # of those, answered (any status)
    ok: int = 0  # answered 2xx
    non_2xx: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    error_samples: list[str] = field(default_factory=list)
    latency_ms: dict[str, float | None] = field(default_factory=dict)  # from the intended send time
    service_ms: dict[str, float | None] = field(default_factory=dict)  # vegeta's own (from the actual send)
    mean_ms: float | None = None
    max_ms: float | None = None
    send_lag_p99_ms: float | None = None  # how late the pacer sent (0 when it kept the schedule)
    send_lag_max_ms: float | None = None

    @property
    def sent_rate(self) -> float:
        """Hits actually sent per second (a pacer that fell behind sends fewer than offered)."""
        return self.sent / self.seconds if self.seconds else 0.0

    @property
    def achieved_rate(self) -> float:
        """2xx answers per second of the window."""
        return self.ok / self.seconds if self.seconds else 0.0

    @property
    def success_ratio(self) -> float:
        return self.ok / self.sent if self.sent else 0.0

    def measurement(self) -> Measurement:
        """As the suite's Measurement (bench/schema.py), for a Result line."""
        latency = {k: self.latency_ms.get(k) for k in ("p50", "p90", "p99", "p99.9")}
        latency.update({"p95": self.latency_ms.get("p95"), "max": self.max_ms, "mean": self.mean_ms})
        errors = {k: self.errors.get(k, 0) for k in ("connect", "read", "write", "timeout", "other")}
        return Measurement(requests=self.completed, duration_s=round(self.seconds, 3),
                           requests_per_s=round(self.achieved_rate, 2), latency_ms=latency, errors=errors,
                           non_2xx=self.non_2xx, success_ratio=round(self.success_ratio, 6),
                           error_samples=self.error_samples[:5])


def percentile(sorted_values: list[float], q: float) -> float | None:
    """Nearest-rank percentile (q in 0..100) of an ascending list; None when empty."""
    if not sorted_values:
        return None
    rank = max(1, math.ceil(q / 100 * len(sorted_values)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


def parse_csv(text: str, rate: float, duration_s: float, warmup_s: float = 0.0) -> StepMeasurement:
    """`vegeta encode -to csv` of one attack at `rate` for `duration_s`: latencies from the intended sends.

    The window counted is the schedule's slots after the warm-up; a pacer that fell behind sent fewer
    hits than the window has slots (sent_rate < offered).

    Columns: timestamp (ns), code, latency (ns), bytes out, bytes in, error, body, attack, seq, ...
    """
    rows = []
    for cells in csv.reader(io.StringIO(text)):
        if len(cells) < 9 or not cells[0].isdigit():
            continue
        rows.append((int(cells[8]), int(cells[0]), int(cells[1]), int(cells[2]), cells[5]))
    interval_ns = 1e9 / rate
    seconds = max(0.0, duration_s - warmup_s)
    if not rows:
        return StepMeasurement(offered_rate=rate, seconds=seconds)
    # The schedule's origin: no hit is sent before its slot, so the smallest (send - slot) is the origin.
    t0 = min(sent - seq * interval_ns for seq, sent, _, _, _ in rows)
    first_slot = math.ceil(warmup_s * rate)
    counted = [r for r in rows if r[0] >= first_slot]
    total_completed = sum(1 for r in rows if r[2] != 0)
    step = StepMeasurement(offered_rate=rate, seconds=seconds, sent=len(counted), total_completed=total_completed)
    intended, service, lags = [], [], []
    for seq, sent, code, latency_ns, error in counted:
        slot = t0 + seq * interval_ns
        lags.append((sent - slot) / 1e6)
        intended.append((sent + latency_ns - slot) / 1e6)
        service.append(latency_ns / 1e6)
        if code == 0:
            kind = classify(error or "no response")
            step.errors[kind] = step.errors.get(kind, 0) + 1
            if len(step.error_samples) < 5 and error and error not in step.error_samples:
                step.error_samples.append(error)
            continue
        step.completed += 1
        if 200 <= code < 300:
            step.ok += 1
        else:
            step.non_2xx += 1
    intended.sort()
    service.sort()
    lags.sort()
    for key in (*LATENCY_KEYS, "p95"):
        q = float(key[1:])
        step.latency_ms[key] = _round(percentile(intended, q))
        step.service_ms[key] = _round(percentile(service, q))
    if intended:
        step.mean_ms = _round(sum(intended) / len(intended))
        step.max_ms = _round(intended[-1])
        step.send_lag_p99_ms = _round(max(0.0, percentile(lags, 99)))
        step.send_lag_max_ms = _round(max(0.0, lags[-1]))
    return step


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


@dataclass
class OpenLoop:
    """vegeta's command for one step and the parse of its record (the process is run by the caller)."""

    workers: int = WORKERS
    max_workers: int = MAX_WORKERS
    vegeta: Vegeta = field(default_factory=Vegeta)

    def command(self, spec: LoadSpec, rate: float, seconds: float) -> list[str]:
        target_file = spec.file(".targets")
        target_file.write_text(targets(spec))
        # vegeta takes whole milliseconds for -duration; rates as hits per second
        return [self.vegeta.binary(), "attack", f"-targets={target_file}", f"-output={spec.file('.bin')}",
                f"-rate={max(1, round(rate))}/1s", f"-duration={max(1, round(seconds * 1000))}ms",
                f"-timeout={max(1, math.ceil(spec.timeout_s))}s",
                f"-keepalive={'true' if spec.keepalive else 'false'}", "-max-body=0", *protocol_flags(spec),
                f"-workers={self.workers}", f"-max-workers={self.max_workers}"]

    def collect(self, spec: LoadSpec) -> str:
        """The attack's per-request record as CSV (the binary file is removed)."""
        binfile = spec.file(".bin")
        if not binfile.exists():
            return ""
        try:
            return subprocess.run([self.vegeta.binary(), "encode", "-to", "csv", str(binfile)],
                                  capture_output=True, text=True, timeout=120).stdout
        finally:
            binfile.unlink(missing_ok=True)

    def time_limit(self, seconds: float, timeout_s: float) -> float:
        return seconds + timeout_s + 30.0
