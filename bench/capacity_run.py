"""Run capacity ramps inside a benchmark: each step one vegeta attack at a constant rate, one Result line.

The runner (bench/runner.py) starts the entry and checks its contract as for any run, then hands
a capacity RunSpec to Ramper.ramp, which climbs the ladder of bench/capacity.py. Before the first
ramp, Ramper.calibrate measures the load tool's own limit: the same ramp against the fastest
trivial server (Go net/http's hello) on the same pinned cores; steps above that rate are not run
and the report voids every cell above it.
"""
from __future__ import annotations

from bench import capacity, selfcheck
from bench.capacity import Outcome, Slo
from bench.sampler import TreeSampler
from loadtools.base import ToolMissing
from loadtools.openloop import OpenLoop, parse_csv
from harness.entry import EntryFailed, EntryProcess
from processes.bounded import run_bounded
from processes.ports import free_port
from servers.core import catalog

CALIBRATION_ENTRY = "nethttp"  # the fastest trivial server of the catalog (Go net/http, hello)
CALIBRATION_OP = "hello"


def kept_up_misses(rate: float, sent_rate: float, achieved_rate: float, success: float | None) -> list[str]:
    """Calibration's criterion: the tool sent and got answered (nearly) all it offered."""
    why = []
    if sent_rate < selfcheck.SENT_SHORT * rate:
        why.append(f"sent {sent_rate:,.0f}/s of {rate:,.0f}/s")
    if achieved_rate < selfcheck.SENT_SHORT * rate:
        why.append(f"answered {achieved_rate:,.0f}/s of {rate:,.0f}/s")
    if success is None or success < capacity.MIN_SUCCESS:
        why.append(f"success {100 * (success or 0):.2f}%")
    return why


class Ramper:
    def __init__(self, runner):
        self.runner = runner  # the Runner: load_spec, base_result, finish, progress, settings
        self.settings = runner.settings
        self.slo = Slo.parse(self.settings.slo)
        self.tool = OpenLoop()
        self.limit: float | None = None  # the tool's own limit, once calibrated
        self._version = ""

    def vegeta_version(self) -> str:
        if not self._version:
            self._version = self.tool.vegeta.version()
        return self._version

    def calibrate(self, ctx) -> None:
        """The tool's own limit: a ramp against Go net/http's hello, mode "calibration"."""
        from bench.plan import RunSpec  # the plan imports capacity; this module is imported by the runner

        entry = catalog.get(CALIBRATION_ENTRY)
        server = EntryProcess(entry.name, ["--port", str(free_port())], ctx.out / "logs" / "calibration.log",
                              prefix=ctx.pinning.server_prefix())
        self.runner.progress.note(f"measuring the load tool's own limit: a ramp against {entry.name} "
                                  f"{CALIBRATION_OP} ...")
        try:
            server.start()
        except (EntryFailed, OSError) as exc:
            self.runner.progress.note(f"no tool limit measured ({exc}): cells are not checked against it",
                                      "yellow")
            return
        run = RunSpec(entry=entry, operation=CALIBRATION_OP, path=catalog.OPERATIONS[CALIBRATION_OP],
                      tool="vegeta", connections=0, threads=None, rate=None, keepalive=True,
                      duration_s=self.settings.ramp.step_s, requests=None, repeat=0, repeats=1, workers=None,
                      mode="capacity")
        try:
            outcomes = self.ramp(ctx, run, server.url, server, [], mode="calibration")
        finally:
            server.stop()
        held = [o.rate for o in outcomes if o.held and not o.void]
        self.limit = max(held) if held else None
        if self.limit:
            self.runner.progress.note(f"load tool limit: {self.limit:,.0f}/s held against {entry.name} "
                                      f"(steps above it are not run; cells there would be void)")

    def ramp(self, ctx, run, base_url: str, server: EntryProcess | None, notes: list[str],
             mode: str = "capacity") -> list[Outcome]:
        try:
            self.tool.vegeta.binary()
        except ToolMissing as exc:
            self.runner.record_failure(ctx, run, str(exc), server=server, notes=notes)
            return []

        def measure(rate: float, phase: str) -> Outcome:
            result = self.step(ctx, run, base_url, server, notes, rate, phase, mode)
            why = "; ".join(result.void_reasons or result.slo_misses or ([result.failure] if not result.ok else []))
            return Outcome(rate, held=bool(result.slo_held), void=bool(result.void_reasons), why=why)

        limit = None if mode == "calibration" else self.limit
        return capacity.run_ramp(measure, self.settings.ramp, limit=limit)

    def cost(self, ctx, run, base_url: str, server: EntryProcess | None, notes: list[str]) -> None:
        """One step at run.rate, the common rate of its operation: the stack's cost per request there."""
        try:
            self.tool.vegeta.binary()
        except ToolMissing as exc:
            self.runner.record_failure(ctx, run, str(exc), server=server, notes=notes)
            return
        self.step(ctx, run, base_url, server, notes, run.rate, "cost", "cost")

    def step(self, ctx, run, base_url, server, notes, rate: float, phase: str, mode: str):
        s, ramp = self.settings, self.settings.ramp
        ctx.index += 1
        seconds = ramp.step_seconds(rate, self.slo)
        duration = seconds + ramp.warmup_s
        stem = f"{ctx.index:03d}-{run.entry.name}-{run.operation}-{mode}-r{rate:g}-{run.repeat + 1}"
        spec = self.runner.load_spec(run, base_url, stem, duration_s=duration, requests=None)
        argv = [*ctx.pinning.tool_prefix(), *self.tool.command(spec, rate, duration)]
        self.runner.progress.begin(ctx.index, f"{run.entry.name} {run.operation} {mode} {phase} {rate:,.0f}/s")
        result = self.runner.base_result(ctx, run, server, notes)
        result.mode, result.phase, result.rate, result.loop = mode, phase, rate, "open"
        result.connections, result.duration_s = None, round(seconds, 3)
        result.slo = self.slo.as_dict()
        result.tool, result.tool_version = "vegeta", self.vegeta_version()
        result.url = base_url + run.path
        result.ids = self.tool.vegeta.ids(spec)
        watch = selfcheck.Watch(base_url, ctx.pinning.tool_cpus if ctx.pinning.enabled else [],
                                sample_connections=False)
        if server is not None:
            with TreeSampler(server.pid) as sampler, watch:
                done = run_bounded(argv, timeout=self.tool.time_limit(duration, spec.timeout_s))
            result.server_cpu_s, result.server_peak_rss_mb = sampler.cpu_s, sampler.peak_rss_mb
        else:
            with watch:
                done = run_bounded(argv, timeout=self.tool.time_limit(duration, spec.timeout_s))
        measured = parse_csv(self.tool.collect(spec), rate, duration, ramp.warmup_s)
        result.apply(measured.measurement())
        result.sent_rate = round(measured.sent_rate, 1)
        result.send_lag_p99_ms = measured.send_lag_p99_ms
        result.service_latency_ms = dict(measured.service_ms)
        w = watch.result
        result.tool_cpu_s, result.tool_cpu_pct, result.tool_cores_busy_pct = \
            w.tool_cpu_s, w.tool_cpu_pct, w.tool_cores_busy_pct
        if result.server_cpu_s is not None and measured.total_completed:
            result.cpu_per_request_ms = round(result.server_cpu_s * 1000 / measured.total_completed, 4)
        if done.timed_out or (done.returncode not in (0, None) and not measured.sent):
            result.status = "failed"
            result.failure = f"vegeta exit {done.returncode}: {(done.stderr.strip().splitlines() or [''])[-1]}"
        elif server is not None and not server.alive():
            result.status, result.failure = "failed", f"server exited during the step: {server.stderr_tail()}"
        else:
            result.void_reasons = selfcheck.void_reasons(selfcheck.Check(
                loop="open", tool_cpu_pct=w.tool_cpu_pct, tool_cores_busy_pct=w.tool_cores_busy_pct, offered_rate=rate, sent_rate=measured.sent_rate,
                tool_limit_rate=self.limit if mode != "calibration" else None))
            if mode == "calibration":  # the tool's limit is a rate it keeps up with, whatever the latency
                result.slo_misses = kept_up_misses(rate, measured.sent_rate, measured.achieved_rate,
                                                   result.success_ratio)
            else:
                result.slo_misses = self.slo.misses(result.latency_ms, result.success_ratio)
            result.slo_held = not result.slo_misses
        self.runner.finish(ctx, result)
        return result
