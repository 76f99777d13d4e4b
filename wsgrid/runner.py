"""One WebSocket attack probe against one server, judged: the server's process tree sampled (h2grid's
TreeSampler), the legitimate client echoing before, during and after (wsgrid/client.py), the probe run in a
process of its own (wsgrid/probes.py), and h2grid.judge's rules (held, degraded, down: answers within 2 s,
RSS growth under 64 MiB, served again after) applied unchanged.

probe_bed(mode, name) runs it against the bed's own server (wsgrid/server.py), correct or faulty;
probe(port, pid, name) against any server already listening, for the grid to come.
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from h2grid.judge import Judgement, Window, judge
from h2grid.sampler import TreeSampler
from processes.bounded import run_bounded
from processes.ports import free_port
from processes.tree import stop
from wsgrid.client import LegitClient

ROOT = Path(__file__).resolve().parent.parent
SECONDS = 3.0
WARMUP_S = 0.5  # the client's connection and first messages, left out of the baseline
BASELINE_S = 1.0
AFTER_S = 3.0


class WebSocketProbe:
    """What h2grid's judge asks of a probe besides the samples (an HTTP/2 Attack's `exercised` and `bound_mib`): a
    WebSocket probe that could not reach its path says "not exercised: ..." as its ending (wsgrid/probes.py)."""

    bound_mib = None

    @staticmethod
    def exercised(sent: dict) -> str:
        ending = str(sent.get("ending", ""))
        return ending.removeprefix("not exercised: ") if ending.startswith("not exercised") else ""


class ProbeError(RuntimeError):
    """The probe's process did not run or print its result."""


@dataclass
class ProbeResult:
    name: str
    judgement: Judgement
    sent: dict  # what the probe sent and how its connection ended (wsgrid.probes.run)

    @property
    def exercised(self) -> bool:
        return not str(self.sent.get("ending", "")).startswith("not exercised")


def probe(port: int, pid: int, name: str, seconds: float = SECONDS) -> ProbeResult:
    """Run probe `name` against the server listening on `port` whose process is `pid`."""
    sampler = TreeSampler(pid).start()
    client = LegitClient(port).start()
    started = time.monotonic()
    time.sleep(WARMUP_S + BASELINE_S)
    before = Window(started + WARMUP_S, time.monotonic())
    done = run_bounded([sys.executable, "-m", "wsgrid.probes", name, "--port", str(port), "--seconds", str(seconds)],
                       timeout=seconds + 30, cwd=str(ROOT))
    attack_end = time.monotonic()
    time.sleep(AFTER_S)
    samples = client.stop()
    points = sampler.stop()
    if done.returncode != 0 or not done.stdout.strip():
        raise ProbeError(f"the {name} probe did not run (exit {done.returncode}"
                         f"{', timed out' if done.timed_out else ''}): {done.stderr.strip()[-500:]}")
    sent = json.loads(done.stdout.strip().splitlines()[-1])
    during = Window(sent["started"], max(sent["ended"], sent["started"] + 0.1))
    after = Window(during.end, attack_end + AFTER_S)
    died = "" if points[-1].pids else "the server's process is gone"
    return ProbeResult(name, judge(WebSocketProbe, samples, points, before, during, after, sent, died), sent)


def died_if_exited(result: ProbeResult, returncode: int | None) -> ProbeResult:
    """The result, judged down when the server's process had exited by the probe's end (returncode not None)."""
    if returncode is not None:
        result.judgement.outcome = "down"
        result.judgement.reasons.insert(0, f"the server exited ({returncode})")
    return result


def probe_bed(mode: str, name: str, seconds: float = SECONDS) -> ProbeResult:
    """Run probe `name` against a fresh wsgrid server in `mode` (correct or faulty)."""
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "wsgrid.server", "--mode", mode, "--port", str(port)],
                              cwd=str(ROOT), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              start_new_session=True)
    try:
        ready = server.stdout.readline()
        if "listening on" not in ready:
            raise ProbeError(f"wsgrid server ({mode}) did not start: {ready} {server.stderr.read()[-500:]}")
        return died_if_exited(probe(port, server.pid, name, seconds), server.poll())
    finally:
        stop(server)
