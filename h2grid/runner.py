"""Running the grid on one endpoint: the entry started as it serves that mode (one worker: a connection is
served by one worker, so the attacker and the legitimate client meet on it; HTTPS with the suite's pair for
h2; --http2 where the server needs it for the mode), then h2spec against it (h2spec_runs), or one attack probe with the legitimate client and the tree
sampler beside it (probe).

The server runs pinned to the server's cores and the attacker to the tool's (harness.pinning: on 2 cores,
one each); the client and the sampler are threads of this process, the attacker a process of its own.
"""
from __future__ import annotations

import contextlib
import json
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from harness import pinning
from harness.tls import ensure as tls_pair
from harness.entry import ROOT, EntryProcess
from h2grid import h2spec
from h2grid.attacks import get as get_attack
from h2grid.client import LegitClient
from h2grid.controls.pairs import Control
from h2grid.controls.process import ControlProcess
from h2grid.endpoints import Endpoint
from h2grid.judge import Judgement, Window, judge
from h2grid.sampler import TreeSampler
from processes.bounded import run_bounded
from processes.ports import free_port

WARMUP_S = 0.5  # the client's first connection and requests, left out of the baseline
BASELINE_S = 1.0
AFTER_S = 3.0


class ProbeError(RuntimeError):
    """The probe itself failed (the attacker did not run, the server did not start); the message says why."""


@dataclass
class Served:
    process: EntryProcess
    port: int
    ca_file: str


@contextlib.contextmanager
def serving(endpoint: Endpoint, plan: pinning.Pinning | None = None) -> Iterator[Served]:
    """The endpoint's entry on a free loopback port, stopped (its whole tree) on the way out."""
    port = free_port()
    pair = tls_pair() if endpoint.mode.tls else None
    args = ["--port", str(port), "--workers", "1", *endpoint.flags, *(pair.server_flags() if pair else [])]
    process = EntryProcess(endpoint.entry, args, prefix=plan.server_prefix() if plan else None)
    try:
        process.start()
        yield Served(process, port, str(pair.ca) if pair else "")
    finally:
        process.stop()


def h2spec_runs(endpoint: Endpoint, runs: int = 1) -> list[dict[str, h2spec.Case]]:
    """h2spec's every case against a fresh server of the endpoint, `runs` times (one server for them all)."""
    with serving(endpoint) as served:
        return [h2spec.run(served.port, endpoint.mode.tls) for _ in range(runs)]


def h2spec_cases(endpoint: Endpoint, case_ids: list[str]) -> dict[str, h2spec.Case]:
    """Chosen cases again, each alone (h2spec numbers a chosen case's report afresh)."""
    with serving(endpoint) as served:
        found: dict[str, h2spec.Case] = {}
        for case_id in case_ids:
            found.update(h2spec.run(served.port, endpoint.mode.tls, (case_id,)))
        return found


@dataclass
class ProbeResult:
    target: str  # the endpoint's id, or the control's key
    attack: str
    judgement: Judgement
    sent: dict  # what the attacker sent and what the server did with its connections (attacks.base.Sent)
    stopped: str  # how the server stopped afterwards

    def as_record(self) -> dict:
        sent = {k: v for k, v in self.sent.items() if k not in ("started", "ended", "attack")}
        return {"outcome": self.judgement.outcome, "judgement": self.judgement.as_dict(), "sent": sent}


def _died(served: Served) -> str:
    if not served.process.alive():
        return f"the server exited ({served.process.proc.returncode}): {served.process.stderr_tail()[:300]}"
    return ""


def _caught_up(client: LegitClient, until: float) -> None:
    """Wait until the client has sent the requests due before `until` (one stuck in its timeout during the attack
    delays those after it: they are sent late, their latency counted from when they were due), at most a
    request timeout more."""
    deadline = time.monotonic() + client.timeout + 1.0
    while time.monotonic() < deadline and not (client.samples and client.samples[-1].due >= until - client.interval):
        time.sleep(0.05)


def probe(endpoint: Endpoint, attack: str, seconds: float | None = None) -> ProbeResult:
    """One attack for `seconds` (None: the attack's own) at a fresh server of the endpoint, judged (judge.py)."""
    plan = pinning.plan(True)
    with serving(endpoint, plan) as served:
        return ProbeResult(endpoint.id, attack, *_probe_served(served, endpoint.mode.tls, attack, seconds, plan))


@contextlib.contextmanager
def serving_control(control: Control, tls: bool, plan: pinning.Pinning | None = None) -> Iterator[Served]:
    """A control server (h2grid.controls) on a free loopback port, h2 over TLS or h2c, stopped on the way out."""
    port = free_port()
    pair = tls_pair() if tls else None
    process = ControlProcess(control, ["--port", str(port), *(pair.server_flags() if pair else [])],
                             prefix=plan.server_prefix() if plan else None)
    try:
        process.start()
        yield Served(process, port, str(pair.ca) if pair else "")
    finally:
        process.stop()


def probe_control(control: Control, tls: bool, attack: str, seconds: float | None = None) -> ProbeResult:
    """One attack at a fresh control server, judged as an endpoint's probe is."""
    plan = pinning.plan(True)
    with serving_control(control, tls, plan) as served:
        return ProbeResult(control.key, attack, *_probe_served(served, tls, attack, seconds, plan))


def _probe_served(served: Served, tls: bool, attack: str, seconds: float | None,
                  plan: pinning.Pinning) -> tuple[Judgement, dict, str]:
    judgement, sent = probe_port(served.port, tls, attack, seconds, served.ca_file, served.process.pid,
                                 plan.tool_prefix(), lambda: _died(served))
    return judgement, sent, served.process.stop_note


def probe_port(port: int, tls: bool, attack: str, seconds: float | None = None, ca_file: str = "", pid: int = 0,
               tool_prefix: list[str] | None = None, died: Callable[[], str] | None = None) -> tuple[Judgement, dict]:
    """One attack at any loopback server on `port`, with the legitimate client beside it, judged: the server's
    process tree (`pid`, its CPU and RSS) is read when given (without it the judge says what it could not see)."""
    seconds = seconds or get_attack(attack).seconds
    sampler = TreeSampler(pid).start() if pid else None
    client = LegitClient("127.0.0.1", port, tls, ca_file).start()
    started = time.monotonic()
    time.sleep(WARMUP_S + BASELINE_S)
    before = Window(started + WARMUP_S, time.monotonic())
    argv = [*(tool_prefix or []), sys.executable, "-m", "h2grid.attacks", attack, "--port", str(port),
            "--seconds", str(seconds), *(["--tls", "--ca", ca_file] if tls else [])]
    done = run_bounded(argv, timeout=seconds + 60, cwd=str(ROOT))
    attack_end = time.monotonic()
    time.sleep(AFTER_S)
    _caught_up(client, attack_end + AFTER_S)
    samples = client.stop()
    points = sampler.stop() if sampler else []
    if done.returncode != 0 or not done.stdout.strip():
        raise ProbeError(f"the {attack} probe did not run (exit {done.returncode}"
                         f"{', timed out' if done.timed_out else ''}): {done.stderr.strip()[-500:]}")
    sent = json.loads(done.stdout.strip().splitlines()[-1])
    during = Window(sent["started"], max(sent["ended"], sent["started"] + 0.1))
    after = Window(during.end, attack_end + AFTER_S)
    gone = died() if died else ""
    if not gone and points and points[0].pids - points[-1].pids:
        lost = points[0].pids - points[-1].pids
        gone = f"{len(lost)} of its {len(points[0].pids)} processes died (pids {', '.join(map(str, sorted(lost)))})"
    return judge(attack, samples, points, before, during, after, sent, gone), sent
