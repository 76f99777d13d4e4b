"""WebSocket load (docs/websockets.md): the suite's Go program loadtools/wsload, built into .build/bin by
processes.gobuild, run bounded, its one JSON object parsed into a WsResult and the suite's Measurement.

Modes: echo (closed loop, one message in flight per connection), echo-rate (open loop, latency from each
message's scheduled send), broadcast (fan-out latency from the send time in each payload; sent, received
and combined messages/s), idle (connections held, then each asked for one echo) and churn (connect, one
echo, close). `python -m loadtools.ws --url ws://127.0.0.1:PORT/ws/echo --mode echo` runs one and prints
the parsed result.
"""
from __future__ import annotations

import argparse
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from loadtools.base import LoadSpec, Tool, Unsupported
from loadtools.measurement import ERROR_KINDS, Measurement
from loadtools.openloop import StepMeasurement
from processes import gobuild
from processes.bounded import run_bounded

SOURCE = Path(__file__).resolve().parent / "wsload"
BINARY = gobuild.BUILD_DIR / "bin" / "wsload"
MODES = ("echo", "echo-rate", "broadcast", "idle", "churn")
DRAIN_MARGIN_S = 30.0  # past the run and its drain: connect, sync and close of every connection


class WsLoadError(RuntimeError):
    """wsload refused its options or did not finish; the message has its stderr."""


@dataclass
class WsSpec:
    """One wsload run against url (ws://, loopback only: the tool refuses any other address)."""

    url: str
    mode: str = "echo"
    conns: int = 64
    size: int = 32
    text: bool = False
    duration_s: float = 5.0
    warmup_s: float = 0.0
    rate: float | None = None  # echo-rate: messages per second over all connections
    timeout_s: float = 5.0

    def argv(self, binary: str) -> list[str]:
        if self.mode not in MODES:
            raise ValueError(f"unknown mode {self.mode!r}; one of {', '.join(MODES)}")
        argv = [binary, "-url", self.url, "-mode", self.mode, "-conns", str(self.conns), "-size", str(self.size),
                "-duration", f"{self.duration_s}s", "-warmup", f"{self.warmup_s}s", "-timeout", f"{self.timeout_s}s"]
        if self.text:
            argv.append("-text")
        if self.rate:
            argv += ["-rate", str(self.rate)]
        return argv

    def time_limit(self) -> float:
        return self.duration_s + 2 * self.timeout_s + DRAIN_MARGIN_S


@dataclass
class WsResult:
    """wsload's report: counts over the measured window, rates per second of it, latencies in ms."""

    mode: str
    library: str
    conns: int
    size: int
    duration_s: float
    connected: int
    sent: int
    received: int
    completed: int  # echoes matched, broadcast deliveries, churn cycles, idle connections still echoing
    lost: int  # echo-rate and broadcast: messages owed and never seen; idle: connections that died
    per_s: float
    sent_per_s: float
    received_per_s: float
    combined_per_s: float  # sent + received per second, granian's broadcast figure
    connects_per_s: float = 0.0
    completed_all: int = 0  # echo and echo-rate: echoes matched over the whole run, the warm-up included
    cpu_s: float = 0.0  # the tool's own CPU, user + system
    # the measured window's CPU per message sent or received in it: a core of the tool moves about 1e6 / this a second
    cpu_per_message_us: float = 0.0
    latency_ms: dict[str, float] = field(default_factory=dict)
    connect_ms: dict[str, float] = field(default_factory=dict)
    send_lag_ms: dict[str, float] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)  # connect, read, write, timeout, mismatch
    close_codes: dict[str, int] = field(default_factory=dict)
    error_samples: list[str] = field(default_factory=list)

    def measurement(self) -> Measurement:
        """As the suite's Measurement: a request is one echo (or delivery, or cycle); a wrong answer
        (bytes or opcode) counts as an answer that is not a success, and a message owed and never seen
        as a timeout."""
        mismatch = self.errors.get("mismatch", 0)
        errors = {kind: self.errors.get(kind, 0) for kind in ERROR_KINDS}
        errors["timeout"] += self.lost if self.mode in ("echo-rate", "broadcast") else 0
        errors["other"] += self.lost if self.mode == "idle" else 0
        latency = {key: self.latency_ms.get(key) for key in ("p50", "p90", "p95", "p99", "p99.9", "max", "mean")}
        return Measurement(requests=self.completed + mismatch, duration_s=self.duration_s,
                           requests_per_s=self.per_s, latency_ms=latency, errors=errors, non_2xx=mismatch,
                           error_samples=self.error_samples[:5]).finish()


def parse(stdout: str) -> WsResult:
    """wsload's JSON object (it prints nothing else on stdout)."""
    data = json.loads(stdout)
    if data.get("tool") != "wsload":
        raise WsLoadError(f"not a wsload report: {stdout[:200]!r}")
    return WsResult(
        mode=data["mode"], library=data["library"], conns=data["conns"], size=data["size"],
        duration_s=data["duration_s"], connected=data["connected"], sent=data["sent"], received=data["received"],
        completed=data["completed"], lost=data["lost"], per_s=data["per_s"], sent_per_s=data["sent_per_s"],
        received_per_s=data["received_per_s"], combined_per_s=data["combined_per_s"],
        connects_per_s=data.get("connects_per_s", 0.0), completed_all=data.get("completed_all", 0),
        cpu_s=data.get("cpu_s", 0.0),
        cpu_per_message_us=data.get("cpu_per_message_us", 0.0), latency_ms=data.get("latency_ms") or {},
        connect_ms=data.get("connect_ms") or {}, send_lag_ms=data.get("send_lag_ms") or {},
        errors=data.get("errors") or {}, close_codes=data.get("close_codes") or {},
        error_samples=data.get("error_samples") or [])


def step_measurement(r: WsResult, rate: float) -> StepMeasurement:
    """An echo-rate run as one step of the capacity ramp (loadtools/openloop.py's StepMeasurement): an echo is a
    request, its latency counted from its scheduled send (wsload does so), a wrong echo an answer that failed, an echo
    owed and never seen a timeout; how late the sender fell behind is the pacer's lag."""
    mismatch = r.errors.get("mismatch", 0)
    errors = {kind: count for kind in ERROR_KINDS if (count := r.errors.get(kind, 0))}
    if r.lost:
        errors["timeout"] = errors.get("timeout", 0) + r.lost
    latency = {key: r.latency_ms.get(key) for key in ("p50", "p90", "p95", "p99", "p99.9")}
    return StepMeasurement(offered_rate=rate, seconds=r.duration_s, sent=r.sent, total_completed=r.completed_all,
                           completed=r.completed + mismatch, ok=r.completed, non_2xx=mismatch, errors=errors,
                           error_samples=r.error_samples[:5], latency_ms=latency, mean_ms=r.latency_ms.get("mean"),
                           max_ms=r.latency_ms.get("max"), send_lag_p99_ms=r.send_lag_ms.get("p99"),
                           send_lag_max_ms=r.send_lag_ms.get("max"))


def ws_url(base_url: str, path: str) -> str:
    """The ws:// URL of a route of a server the benchmark knows by its http:// base URL."""
    return "ws" + base_url.removeprefix("http") + path


class WsLoad(Tool):
    """wsload as the benchmark's tool of a WebSocket operation's closed-loop runs (the HTTP tools cannot load
    them): /ws/echo with one message in flight per connection (HttpArena's echo-ws), or at --rate (echo-rate),
    /ws/broadcast with each connection a client; an echo, or a delivery, is a request of the result."""

    name = binary_name = "wsload"
    install = "built from loadtools/wsload by ./setup.sh (processes/gobuild.py)"
    supports_close = False
    supports_rate = True  # echo-rate

    def binary(self) -> str:
        return str(binary())

    def version(self) -> str:
        return version()

    def check(self, spec: LoadSpec) -> None:
        super().check(spec)
        if spec.rate and spec.path.endswith("/ws/broadcast"):
            raise Unsupported("wsload's broadcast is closed-loop: each client sends once its own message came back")

    def ws_spec(self, spec: LoadSpec) -> WsSpec:
        mode = "broadcast" if spec.path.endswith("/ws/broadcast") else "echo-rate" if spec.rate else "echo"
        return WsSpec(url=ws_url(spec.base_url, spec.path), mode=mode, conns=spec.connections, size=MESSAGE_BYTES,
                      duration_s=spec.duration_s, rate=spec.rate, timeout_s=spec.timeout_s)

    def command(self, spec: LoadSpec) -> list[str]:
        return self.ws_spec(spec).argv(self.binary())

    def time_limit(self, spec: LoadSpec) -> float:
        return self.ws_spec(spec).time_limit()

    def parse(self, raw: dict[str, str]) -> Measurement:
        return parse(raw["stdout"]).measurement()


# The open loop's connections: each carries rate / OPEN_LOOP_CONNECTIONS echoes a second, its own reader matching them
OPEN_LOOP_CONNECTIONS = 64
MESSAGE_BYTES = 32  # the benchmark's echo message (HttpArena's echo-ws sends small messages too)


class WsOpenLoop:
    """wsload's echo-rate as the capacity ramp's open-loop step of a WebSocket operation, the counterpart of
    loadtools/openloop.py's vegeta steps for HTTP: the run (its WsSpec gives the time limit), its command and the
    step's measurement."""

    @staticmethod
    def spec(base_url: str, path: str, rate: float, duration_s: float, warmup_s: float, timeout_s: float) -> WsSpec:
        return WsSpec(url=ws_url(base_url, path), mode="echo-rate", conns=OPEN_LOOP_CONNECTIONS, size=MESSAGE_BYTES,
                      duration_s=duration_s, warmup_s=warmup_s, rate=rate, timeout_s=timeout_s)

    def command(self, spec: WsSpec) -> list[str]:
        return spec.argv(str(binary()))

    @staticmethod
    def measure(stdout: str, rate: float) -> StepMeasurement:
        return step_measurement(parse(stdout), rate)


def version() -> str:
    """The project's tool, by the WebSocket library its go.mod pins (what a result records as the tool's version)."""
    pinned = re.search(r"github\.com/coder/websocket (v\S+)", (SOURCE / "go.mod").read_text())
    return f"wsload (coder/websocket {pinned.group(1) if pinned else 'unknown'})"


def binary(force: bool = False) -> Path:
    """wsload, built first when missing or older than its sources (the one Go build of the suite)."""
    gobuild.build(SOURCE, BINARY, force)
    return BINARY


def run(spec: WsSpec, prefix: list[str] | None = None) -> WsResult:
    """One bounded run (its command after `prefix`, e.g. harness.pinning's taskset); WsLoadError when wsload
    refused the options or was killed at its time limit."""
    done = run_bounded([*(prefix or []), *spec.argv(str(binary()))], timeout=spec.time_limit())
    if done.timed_out or done.returncode != 0:
        why = "killed at its time limit" if done.timed_out else f"exit {done.returncode}"
        raise WsLoadError(f"wsload {spec.mode} against {spec.url}: {why}: {done.stderr.strip()[:500]}")
    return parse(done.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m loadtools.ws", description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True, help="ws://127.0.0.1:PORT/ws/echo (loopback only)")
    parser.add_argument("--mode", choices=MODES, default="echo")
    parser.add_argument("--conns", type=int, default=64)
    parser.add_argument("--size", type=int, default=32)
    parser.add_argument("--text", action="store_true")
    parser.add_argument("--duration", type=float, default=5.0, help="seconds")
    parser.add_argument("--warmup", type=float, default=0.0, help="seconds of --duration not counted")
    parser.add_argument("--rate", type=float, default=None)
    args = parser.parse_args(argv)
    result = run(WsSpec(url=args.url, mode=args.mode, conns=args.conns, size=args.size, text=args.text,
                        duration_s=args.duration, warmup_s=args.warmup, rate=args.rate))
    print(json.dumps({k: v for k, v in result.__dict__.items() if not (isinstance(v, float) and math.isnan(v))},
                     indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
