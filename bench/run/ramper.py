"""Run capacity ramps inside a benchmark: each step one vegeta attack at a constant rate (Steps.open), or for a
WebSocket operation one wsload echo-rate run, one Result line.

The runner (bench/run/runner.py) starts the entry and checks its contract as for any run, then hands
a capacity RunSpec to Ramper.ramp, which climbs the ladder of bench/capacity/search.py and returns the
steps it measured. Before the first ramp, Ramper.calibrate measures the load tool's own limit: the
same ramp against the fastest trivial server (Go net/http's hello, or its WebSocket echo for wsload) on the same
pinned cores; steps above that rate are not run and the report voids every cell above it.

A void step (the tool, not the stack, was the bound: bench/selfcheck.py), and a step that missed the
SLO while other processes took much of the machine (Result.foreign_cpu_pct), is measured again,
after a pause, up to RampSettings.void_reruns times before the ramp believes it, as --rerun-noisy
does for closed-loop runs: the first one is kept in the file, superseded.
"""
from __future__ import annotations

import time

from bench.capacity import search
from bench.capacity.search import Outcome, Slo
from bench.planning.plan import RunSpec
from bench.run.steps import Steps, Target
from bench.schema import Result
from loadtools import ws
from loadtools.base import ToolMissing
from harness import protocols
from harness.entry import EntryFailed, EntryProcess
from processes import gobuild
from processes.ports import free_port
from servers.core import catalog

CALIBRATION_ENTRY = "nethttp"  # the fastest trivial server of the catalog (Go net/http, hello)
CALIBRATION_OP = "hello"
WS_CALIBRATION_OP = "ws-echo"  # a WebSocket operation's tool (wsload) against net/http's coder/websocket echo


def limit_key(run: RunSpec) -> tuple[str, int | None, str]:
    """Which calibration a step is held to: its protocol, its placement and the calibration's operation (hello for
    vegeta, ws-echo for wsload), the key the report reads the limits by too (bench/capacity/tally.py tool_limits)."""
    return run.protocol, run.cores, WS_CALIBRATION_OP if run.operation in catalog.WS_OPERATIONS else CALIBRATION_OP


class Ramper:
    def __init__(self, steps: Steps, slo: Slo, ramp: search.RampSettings):
        self.steps = steps
        self.slo = slo
        self.ramp_settings = ramp
        self.limits: dict[tuple, float | None] = {}  # limit_key -> the tool's own limit there, once calibrated

    def _tool_missing(self, run: RunSpec, target: Target) -> Result | None:
        try:
            if run.operation in catalog.WS_OPERATIONS:
                ws.binary()  # built from loadtools/wsload when missing
            else:
                self.steps.openloop.vegeta.binary()
        except (ToolMissing, gobuild.GoBuildError) as exc:
            return self.steps.failed(run, str(exc), target)
        return None

    def calibrate(self, protocol: str = protocols.DEFAULT, cores: int | None = None,
                  op: str = CALIBRATION_OP) -> list[Result]:
        """The tool's own limit on a protocol and placement (the steps' current pinning: `cores` server cores):
        a ramp against Go net/http's hello served so, mode "calibration" (over TLS the tool's handshakes and
        record crypto cost it CPU too; with fewer cores of its own, the tool sends less); for a WebSocket operation
        wsload's, against net/http's /ws/echo."""
        entry, ledger, note = catalog.get(CALIBRATION_ENTRY), self.steps.ledger, self.steps.progress.note
        websocket = op in catalog.WS_OPERATIONS
        where = f"{protocol}" + (f", {cores} server core{'s' if cores > 1 else ''}" if cores else "") + \
            (", WebSocket echo (wsload)" if websocket else "")
        server = EntryProcess(entry.name, ["--port", str(free_port()), *protocols.get(protocol).server_flags()],
                              ledger.out / "logs" / f"calibration-{protocol}{f'-{cores}cores' if cores else ''}.log",
                              prefix=ledger.pinning.server_prefix())
        note(f"measuring the load tool's own limit on {where}: a ramp against {entry.name} {op} ...")
        try:
            server.start()
        except (EntryFailed, OSError) as exc:
            note(f"no tool limit measured ({exc}): cells are not checked against it", "yellow")
            return []
        run = RunSpec(entry=entry, operation=op, path=catalog.path_of(op),
                      tool="wsload" if websocket else "vegeta", connections=0, threads=None, rate=None, keepalive=True,
                      duration_s=self.ramp_settings.step_s, requests=None, repeat=0, repeats=1, workers=None,
                      mode="capacity", protocol=protocol, cores=cores)
        try:
            results = self.ramp(run, Target(server.url, server), mode="calibration")
        finally:
            server.stop()
        held = [r.rate for r in results if r.slo_held and not r.void_reasons and not r.superseded]
        self.limits[limit_key(run)] = limit = max(held) if held else None
        if limit:
            note(f"load tool limit on {where}: {limit:,.0f}/s held against {entry.name} "
                 f"(steps above it are not run; cells there would be void)")
        return results

    def ramp(self, run: RunSpec, target: Target, mode: str = "capacity", guess: float | None = None) -> list[Result]:
        """Climb, bisect (bench/capacity.run_ramp) from guess, the stack's knee as far as known (its
        closed-loop rate of this run), else from the ladder's foot; every step measured, recorded
        and returned."""
        missing = self._tool_missing(run, target)
        if missing is not None:
            return [missing]
        results: list[Result] = []
        limit = None if mode == "calibration" else self.limits.get(limit_key(run))

        def measure(rate: float, phase: str) -> Outcome:
            result = self.measure(run, target, rate, phase, mode, limit, results)
            why = "; ".join(result.void_reasons or result.slo_misses or ([result.failure] if not result.ok else []))
            return Outcome(rate, held=bool(result.slo_held), void=bool(result.void_reasons), why=why)

        search.run_ramp(measure, self.ramp_settings, limit=limit, guess=guess)
        return results

    def measure(self, run: RunSpec, target: Target, rate: float, phase: str, mode: str, limit: float | None,
                results: list[Result]) -> Result:
        """One step at rate; measured again (after a pause) while RampSettings.void_reruns allows when
        the machine, not the stack, may have decided it (why_again)."""
        ramp = self.ramp_settings
        result = self.steps.open(run, target, rate, phase=phase, mode=mode, slo=self.slo, limit=limit)
        while result.rerun < ramp.void_reruns and (why := self.why_again(result, limit)):
            result.superseded = True
            self.steps.record(result)
            results.append(result)
            self.steps.progress.note(f"{why}: measuring again in {ramp.void_pause_s:g} s", "yellow")
            time.sleep(ramp.void_pause_s)
            result = self.steps.open(run, target, rate, phase=phase, mode=mode, slo=self.slo, limit=limit,
                                     rerun=result.rerun + 1)
        self.steps.record(result)
        results.append(result)
        return result

    def why_again(self, result: Result, limit: float | None) -> str:
        """Why a step is not believed yet ("" when it is): void (the tool was the bound; above the tool's
        own limit it stays void), or an SLO miss while other processes took at least
        RampSettings.spoiled_pct of the machine (a miss on a quiet machine is the stack's)."""
        if not result.ok or (limit and result.rate > limit):
            return ""
        if result.void_reasons:
            return f"void ({'; '.join(result.void_reasons)})"
        spoiled = self.ramp_settings.spoiled_pct
        # calibration too: a tool that fell behind while others took the machine did not meet its own limit
        if spoiled is not None and result.slo_held is False and (result.foreign_cpu_pct or 0.0) >= spoiled:
            return f"missed the SLO while others took {result.foreign_cpu_pct:.0f}% of the machine"
        return ""

    def cost(self, run: RunSpec, target: Target) -> list[Result]:
        """One step at run.rate, the common rate of its operation: the stack's cost per request there."""
        missing = self._tool_missing(run, target)
        if missing is not None:
            return [missing]
        results: list[Result] = []
        self.measure(run, target, run.rate, "cost", "cost", self.limits.get(limit_key(run)), results)
        return results
