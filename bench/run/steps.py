"""One measurement step, the only way the benchmark measures: a closed-loop run of the chosen tool
(Steps.closed) or one constant-rate vegeta step of a capacity ramp (Steps.open), each returned as
a Result with its self-check; Steps.failed records a run that could not be measured.

Steps owns what every step shares (the session's Ledger: the results file and the sequence
number; the pinning; the noise probe; the backends' ceilings) and records what its callers hand
back (Steps.record). The runner (bench/run/runner.py) and the capacity ramps (bench/run/ramper.py)
both stand on it: they decide what to measure and when to measure again, and call nothing of
each other.
"""
from __future__ import annotations

import random
import shlex
from dataclasses import dataclass, field, fields
from datetime import datetime, timezone
from pathlib import Path

from bench import noise, schema, selfcheck
from bench.capacity import search
from bench.capacity.search import Slo
from bench.planning.plan import RunSpec, Settings
from bench.run import hosts
from bench.run.progress import Progress
from bench.run.sampler import TreeSampler
from bench.schema import Result
from harness import pinning, protocols, versions
from harness.entry import EntryProcess
from loadtools import LoadSpec, Tool
from loadtools import get as get_tool
from loadtools.openloop import OpenLoop, StepMeasurement, parse_csv
from loadtools.ws import WsLoadError, WsOpenLoop, ws_url
from loadtools.ws import version as ws_version
from processes.bounded import run_bounded
from servers.core import catalog
from servers.core.cores import usable_cores

RAW_LIMIT = 1_000_000  # characters kept of each raw output section


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def fixed_id(entry: str, operation: str, users: int) -> int:
    """The id of tools that send one URL: stable per stack and route, so reruns compare."""
    return random.Random(f"{entry}/{operation}").randint(1, users)


@dataclass(frozen=True)
class LoadKnobs:
    """The load tool's settings every step of a session shares: its timeout, the ids' range, locust's
    distributed mode (local worker processes, workers on other hosts, the master's bind)."""

    timeout_s: float
    users: int
    load_workers: int = 0
    remote_workers: int = 0
    master_bind: str = ""

    @classmethod
    def of(cls, settings: Settings) -> "LoadKnobs":
        return cls(**{f.name: getattr(settings, f.name) for f in fields(cls)})


@dataclass(frozen=True)
class StepSettings:
    """What the steps of a session take from its Settings, and nothing more: the load tool's knobs, a
    server started elsewhere (--target), the preset and repeats' order each result names, the warm-up,
    the noise threshold each result carries and the capacity ramp's steps."""

    load: LoadKnobs
    target: str
    preset: str
    rounds_order: str
    warmup_s: float
    noise_threshold_pct: float
    ramp: search.RampSettings

    @classmethod
    def of(cls, settings: Settings) -> "StepSettings":
        return cls(load=LoadKnobs.of(settings), target=settings.target, preset=settings.preset,
                   rounds_order=settings.rounds_order, warmup_s=settings.warmup_s,
                   noise_threshold_pct=settings.noise_threshold_pct, ramp=settings.ramp)


def load_spec(knobs: LoadKnobs, run: RunSpec, base_url: str, stem: str, workdir: Path,
              duration_s: float | None = None, requests: int | None = -1) -> LoadSpec:
    return LoadSpec(
        base_url=base_url, path=run.path, connections=run.connections or 1, streams=run.streams, threads=run.threads,
        duration_s=run.duration_s if duration_s is None else duration_s,
        requests=run.requests if requests == -1 else requests, rate=run.rate, keepalive=run.keepalive,
        protocol=run.protocol, ca_file=protocols.get(run.protocol).ca_file(), timeout_s=knobs.timeout_s,
        users=knobs.users, fixed_id=fixed_id(run.entry.name, run.operation, knobs.users),
        workdir=workdir, stem=stem, load_workers=knobs.load_workers,
        remote_workers=knobs.remote_workers, master_bind=knobs.master_bind)


@dataclass
class Target:
    """Where a step sends its load: the URL, the server process started here (None: --target), the
    notes every result of that server carries."""

    base_url: str
    server: EntryProcess | None = None
    notes: list[str] = field(default_factory=list)


@dataclass
class Ledger:
    """What every result of this benchmark shares, and where each one is written."""

    tool: Tool
    tool_version: str
    pinning: pinning.Pinning
    machine: dict
    out: Path
    results_file: Path
    results: list[Result] = field(default_factory=list)
    index: int = 0


class Steps:
    def __init__(self, settings: StepSettings, ledger: Ledger, progress: Progress, *, probe: noise.Probe | None = None,
                 ceilings=None, backend_urls: dict[str, str] | None = None, backend_pids=lambda: []):
        self.settings = settings
        self.ledger = ledger
        self.progress = progress
        self.tool = ledger.tool
        self.probe = probe
        self.ceilings = ceilings
        self.backend_urls = dict(backend_urls or {})
        self.backend_pids = backend_pids  # () -> pids of the local backends: their CPU is not foreign
        self.openloop = OpenLoop()
        self.ws_loop = WsOpenLoop()  # the open loop of a WebSocket operation (wsload echo-rate)
        self._vegeta_version = ""
        self._tools: dict[str, Tool] = {self.tool.name: self.tool}

    def tool_of(self, run: RunSpec) -> Tool:
        """The tool of a closed-loop run: the session's, or wsload for a WebSocket operation (RunSpec.tool)."""
        if run.tool not in self._tools:
            self._tools[run.tool] = get_tool(run.tool)
        return self._tools[run.tool]

    # -- the common parts of a step ------------------------------------------------------------
    def _begin(self, run: RunSpec, description: str, target: Target) -> Result:
        self.ledger.index += 1
        self.progress.begin(self.ledger.index, description)
        return self.result(run, target)

    def result(self, run: RunSpec, target: Target) -> Result:
        """A Result with the facts of run's stack and session, nothing measured yet."""
        entry, s, ledger, server = run.entry, self.settings, self.ledger, target.server
        tool = self.tool_of(run)
        threads = tool.threads(load_spec(s.load, run, target.base_url, "facts", ledger.out / "work"))
        backend = catalog.backend_of(run.operation)
        where = pinning.placement(ledger.pinning.as_dict(), [b for b in catalog.BACKENDS if self.backend_urls.get(b)],
                                  local_server=not s.target)
        return Result(
            entrypoint=entry.name, language=entry.language, framework=entry.framework, server=entry.server,
            model=entry.model, tags=list(entry.tags), dev_only=entry.dev_only,
            dev_only_reason=entry.dev_only_reason, caveats=list(entry.caveat_texts),
            workers=server.workers if server is not None and server.workers is not None else run.workers,
            interpreter=run.interpreter, interpreter_facts=server.interpreter_facts() if server is not None else {},
            server_cores=run.cores or (len(ledger.pinning.server_cpus) if ledger.pinning.enabled
                                       and ledger.pinning.server_cpus else usable_cores()),
            operation=run.operation, path=run.path, tool=run.tool,
            tool_version=ledger.tool_version if tool is self.tool else tool.version(),
            connections=run.connections if not run.rate else None, streams=run.streams if not run.rate else None,
            threads=threads, rate=run.rate, loop=run.loop, keepalive=run.keepalive, protocol=run.protocol,
            tls_verified=tool.verifies_certificate if protocols.get(run.protocol).tls else None,
            duration_s=run.duration_s, requests_target=run.requests, target=s.target,
            pinning=ledger.pinning.as_dict(), placement=where, shared_cores=pinning.sharing(where, backend),
            server_options=dict(run.server_options),
            machine=ledger.machine,
            backends=hosts.backends_of(run.operation, self.backend_urls),
            # a server started elsewhere may run other versions than this checkout has installed
            versions=versions.for_entry(entry.name, run.interpreter or None, http2=protocols.get(run.protocol).http2)
            if not s.target else {},
            preset=s.preset, repeat=run.repeat, repeats=run.repeats, timestamp=now(),
            rounds_order=s.rounds_order, sequence=ledger.index,
            notes=list(target.notes) + (["server started elsewhere: no CPU or RSS, versions unknown"]
                                        if s.target else []))

    def _load(self, argv: list[str], timeout: float, target: Target, watch: selfcheck.Watch, result: Result):
        """Run the tool's argv under the watch (and the server's sampler); the finished process. The local
        backends' CPU meanwhile is recorded beside the server's (their process trees, read before and after)."""
        backends = list(self.backend_pids())
        before = selfcheck.trees_cpu(backends)
        if target.server is not None:
            with TreeSampler(target.server.pid) as sampler, watch:
                done = run_bounded(argv, timeout=timeout)
            result.server_cpu_s, result.server_peak_rss_mb = sampler.cpu_s, sampler.peak_rss_mb
            result.server_peak_pss_mb = sampler.peak_pss_mb
        else:
            with watch:
                done = run_bounded(argv, timeout=timeout)
        if backends:
            after = selfcheck.trees_cpu(backends)
            result.backend_cpu_s = round(sum(max(0.0, after[pid] - before.get(pid, after[pid])) for pid in after), 3)
        return done

    def _watch(self, target: Target, sample_connections: bool = True) -> selfcheck.Watch:
        pins = self.ledger.pinning
        known = lambda: ([target.server.pid] if target.server is not None else []) + list(self.backend_pids())  # noqa: E731
        return selfcheck.Watch(target.base_url, pins.tool_cpus if pins.enabled else [],
                               sample_connections=sample_connections, known_pids=known)

    def _server_died(self, result: Result, target: Target, during: str) -> None:
        server = target.server
        if server is not None and not server.alive():
            result.status = "failed"
            result.failure = (result.failure + "; " if result.failure else "") + \
                f"server exited during the {during} (code {server.proc.poll()}): {server.stderr_tail()}"

    # -- the steps -----------------------------------------------------------------------------
    def failed(self, run: RunSpec, why: str, target: Target) -> Result:
        """A run that could not be measured, recorded as failed."""
        result = self._begin(run, run.describe(), target)
        result.status, result.failure = "failed", why
        self.record(result)
        return result

    def warm_up(self, run: RunSpec, base_url: str) -> None:
        tool = self.tool_of(run)
        spec = load_spec(self.settings.load, run, base_url, "warmup", self.ledger.out / "work",
                         duration_s=self.settings.warmup_s, requests=None)
        run_bounded([*self.ledger.pinning.tool_prefix(), *tool.command(spec)], timeout=tool.time_limit(spec))
        tool.discard(spec)

    def closed(self, run: RunSpec, target: Target, rerun: int = 0) -> Result:
        """One run of the chosen tool as planned (closed loop, or vegeta at --rate); not yet recorded."""
        ledger, base_url, tool = self.ledger, target.base_url, self.tool_of(run)
        result = self._begin(run, run.describe(), target)
        stem = f"{ledger.index:03d}-{run.entry.name}-{run.protocol}-{run.operation}-{run.tool}-" \
               f"{'r%g' % run.rate if run.rate else 'c%d' % run.connections}{'m%d' % run.streams if run.streams > 1 else ''}-" \
               f"{'ka' if run.keepalive else 'close'}-{run.repeat + 1}"
        spec = load_spec(self.settings.load, run, base_url, stem, ledger.out / "work")
        argv = [*ledger.pinning.tool_prefix(), *tool.command(spec)]
        result.backend_ceiling = self.ceilings.for_run(run) if self.ceilings is not None else {}
        result.url = spec.fixed_url() if not tool.random_ids else base_url + run.path
        result.ids = tool.ids(spec)
        result.rerun = rerun
        probe_token = self.probe.begin() if self.probe is not None else None
        watch = self._watch(target)
        done = self._load(argv, tool.time_limit(spec), target, watch, result)
        if probe_token is not None:
            self._apply_probe(result, self.probe.end(probe_token))
        raw = tool.collect(spec, done.stdout, done.stderr)
        result.raw_output = self._save_raw(stem, argv, done.returncode, raw)
        result.load_hosts, result.load_workers = tool.load_hosts(raw)
        result.load_master = hosts.load_master(argv)
        try:
            result.apply(tool.parse(raw))
        except (ValueError, KeyError) as exc:
            result.status, result.failure = "failed", f"{tool.name}: {exc}"
        if done.timed_out:
            result.status = "failed"
            result.failure = (result.failure + "; " if result.failure else "") + \
                f"{tool.name} killed after its time limit of {done.seconds:.0f} s"
        elif done.returncode not in (0, None) and result.ok and not result.requests:
            result.status, result.failure = "failed", f"{tool.name} exit {done.returncode}: " \
                                                      f"{(done.stderr.strip().splitlines() or [''])[-1]}"
        self._server_died(result, target, "run")
        if result.server_cpu_s is not None and result.requests:
            result.cpu_per_request_ms = round(result.server_cpu_s * 1000 / result.requests, 4)
        if result.backend_cpu_s is not None and result.requests and catalog.backend_of(run.operation):
            result.backend_cpu_per_request_ms = round(result.backend_cpu_s * 1000 / result.requests, 4)
        self._check_closed(result, watch.result, selfcheck.gil_reenabled(target.server))
        return result

    def open(self, run: RunSpec, target: Target, rate: float, *, phase: str, mode: str, slo: Slo,
             limit: float | None = None, rerun: int = 0) -> Result:
        """One constant-rate vegeta step at rate (a ramp's step, a calibration's, a cost step); the
        SLO's verdict in slo_held, void_reasons when the tool (or its limit) was the bound. Not yet
        recorded."""
        ramp, ledger, base_url = self.settings.ramp, self.ledger, target.base_url
        conn = "" if run.keepalive else " close"
        result = self._begin(run, f"{run.stack} {run.operation} {mode} {phase} {rate:,.0f}/s{conn}", target)
        seconds = ramp.cost_seconds(rate, slo) if mode == "cost" else ramp.step_seconds(rate, slo)
        duration = seconds + ramp.warmup_s
        stem = f"{ledger.index:03d}-{run.entry.name}-{run.protocol}-{run.operation}-{mode}-r{rate:g}-" \
               f"{'ka' if run.keepalive else 'close'}-{run.repeat + 1}" + \
               (f"-again{rerun}" if rerun else "")
        spec = load_spec(self.settings.load, run, base_url, stem, ledger.out / "work", duration_s=duration, requests=None)
        ws = run.operation in catalog.WS_OPERATIONS
        if ws:  # wsload echo-rate: its warm-up sent but not counted, as vegeta's window below
            ws_spec = self.ws_loop.spec(base_url, run.path, rate, duration, ramp.warmup_s, spec.timeout_s)
            argv, time_limit = [*ledger.pinning.tool_prefix(), *self.ws_loop.command(ws_spec)], ws_spec.time_limit()
        else:
            argv = [*ledger.pinning.tool_prefix(), *self.openloop.command(spec, rate, duration)]
            time_limit = self.openloop.time_limit(duration, spec.timeout_s)
        result.mode, result.phase, result.rate, result.loop, result.rerun = mode, phase, rate, "open", rerun
        result.connections, result.duration_s = None, round(seconds, 3)
        result.slo = slo.as_dict()
        result.tool, result.tool_version = ("wsload", ws_version()) if ws else ("vegeta", self.vegeta_version())
        if result.tls_verified is not None:
            result.tls_verified = self.openloop.vegeta.verifies_certificate
        result.url = ws_url(base_url, run.path) if ws else base_url + run.path
        result.ids = "" if ws else self.openloop.vegeta.ids(spec)
        if mode != "calibration":
            result.backend_ceiling = self.ceilings.for_run(run) if self.ceilings is not None else {}
        watch = self._watch(target, sample_connections=False)
        done = self._load(argv, time_limit, target, watch, result)
        if ws:
            try:
                measured = self.ws_loop.measure(done.stdout, rate)
            except (ValueError, KeyError, WsLoadError) as exc:
                measured = StepMeasurement(offered_rate=rate, seconds=seconds)
                result.status, result.failure = "failed", f"wsload: {exc}"
        else:
            measured = parse_csv(self.openloop.collect(spec), rate, duration, ramp.warmup_s)
        result.apply(measured.measurement())
        result.sent_rate = round(measured.sent_rate, 1)
        result.send_lag_p99_ms = measured.send_lag_p99_ms
        result.service_latency_ms = dict(measured.service_ms)
        w = watch.result
        result.tool_cpu_s, result.tool_cpu_pct, result.tool_cores_busy_pct = \
            w.tool_cpu_s, w.tool_cpu_pct, w.tool_cores_busy_pct
        result.foreign_cpu_pct = w.foreign_cpu_pct
        if result.server_cpu_s is not None and measured.total_completed:
            result.cpu_per_request_ms = round(result.server_cpu_s * 1000 / measured.total_completed, 4)
        if result.backend_cpu_s is not None and measured.total_completed and catalog.backend_of(run.operation):
            result.backend_cpu_per_request_ms = round(result.backend_cpu_s * 1000 / measured.total_completed, 4)
        if done.timed_out or (done.returncode not in (0, None) and not measured.sent):
            result.status = "failed"
            result.failure = f"{result.tool} exit {done.returncode}: {(done.stderr.strip().splitlines() or [''])[-1]}"
            return result
        self._server_died(result, target, "step")
        if not result.ok:
            return result
        result.void_reasons = selfcheck.void_reasons(selfcheck.Check(
            loop="open", tool_cpu_pct=w.tool_cpu_pct, tool_cores_busy_pct=w.tool_cores_busy_pct,
            offered_rate=rate, sent_rate=measured.sent_rate, tool_limit_rate=limit,
            backend_share=selfcheck.backend_share(result), gil_reenabled=selfcheck.gil_reenabled(target.server)))
        if mode == "calibration":  # the tool's limit is a rate it keeps up with, whatever the latency
            result.slo_misses = kept_up_misses(rate, measured.sent_rate, measured.achieved_rate, result.success_ratio)
        else:
            result.slo_misses = slo.misses(result.latency_ms, result.success_ratio)
        result.slo_held = not result.slo_misses
        return result

    def vegeta_version(self) -> str:
        if not self._vegeta_version:
            self._vegeta_version = self.openloop.vegeta.version()
        return self._vegeta_version

    def record(self, result: Result) -> None:
        """Write result to the results file (at once: an interrupted run keeps what it measured)."""
        schema.append(self.ledger.results_file, result)
        self.ledger.results.append(result)
        self.progress.end(result)

    # -- the self-check and the probe ----------------------------------------------------------
    def _check_closed(self, result: Result, watched: selfcheck.Watched, gil_reenabled: str | None = None) -> None:
        """The cell's self-check: the tool's CPU, the connections open, Little's law, the backend's share."""
        result.tool_cpu_s, result.tool_cpu_pct = watched.tool_cpu_s, watched.tool_cpu_pct
        result.tool_cores_busy_pct, result.connections_open = watched.tool_cores_busy_pct, watched.connections_open
        result.foreign_cpu_pct = watched.foreign_cpu_pct
        if not result.ok:
            return
        mean = result.latency_ms.get("mean")
        result.littles_ratio = selfcheck.littles_ratio(selfcheck.in_flight(result.connections, result.streams),
                                                       result.requests_per_s, mean)
        if result.littles_ratio is not None:
            result.littles_ratio = round(result.littles_ratio, 3)
        result.void_reasons = selfcheck.void_reasons(selfcheck.Check(
            loop=result.loop, tool_cpu_pct=watched.tool_cpu_pct, tool_cores_busy_pct=watched.tool_cores_busy_pct,
            connections=result.connections, streams=result.streams or 1,
            connections_open=watched.connections_open, requests_per_s=result.requests_per_s, mean_latency_ms=mean,
            offered_rate=result.rate, sent_rate=None, backend_share=selfcheck.backend_share(result),
            error_share=result.errors_total / max(1, result.requests + result.errors_total),
            gil_reenabled=gil_reenabled))

    def _apply_probe(self, result: Result, reading: noise.Reading) -> None:
        result.probe_before, result.probe_after = reading.before, reading.after
        result.probe_moved_pct, result.noisy, result.steal_pct = reading.moved_pct, reading.noisy, reading.steal_pct
        result.noise_threshold_pct = self.settings.noise_threshold_pct

    def _save_raw(self, stem: str, argv: list[str], code: int | None, raw: dict[str, str]) -> str:
        path = self.ledger.out / "raw" / f"{stem}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        parts = [f"$ {shlex.join(argv)}", f"# exit {code}"]
        for name, text in raw.items():
            if text:
                clipped = text if len(text) <= RAW_LIMIT else text[:RAW_LIMIT] + "\n... (clipped)\n"
                parts.append(f"==> {name} <==\n{clipped.rstrip()}")
        path.write_text("\n".join(parts) + "\n")
        return str(path.relative_to(self.ledger.out))


def kept_up_misses(rate: float, sent_rate: float, achieved_rate: float, success: float | None) -> list[str]:
    """Calibration's criterion: the tool sent and got answered (nearly) all it offered."""
    why = []
    if sent_rate < selfcheck.SENT_SHORT * rate:
        why.append(f"sent {sent_rate:,.0f}/s of {rate:,.0f}/s")
    if achieved_rate < selfcheck.SENT_SHORT * rate:
        why.append(f"answered {achieved_rate:,.0f}/s of {rate:,.0f}/s")
    if success is None or success < search.MIN_SUCCESS:
        why.append(f"success {100 * (success or 0):.2f}%")
    return why
