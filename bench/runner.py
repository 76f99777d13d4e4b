"""Carry out a plan: backends up and seeded, each entry started, contract checked, warmed up, loaded,
measured, stopped. Every planned run ends as one Result line, failed ones included.

Whatever happens (a failed start, a tool killed on its time limit, Ctrl-C, SIGTERM) the servers,
load tools and local backends started here are stopped in `finally` blocks.
"""
from __future__ import annotations

import random
import shlex
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path

from bench import capacity, hosts, noise, rounds, schema, selfcheck, verify
from harness import pinning
from bench.capacity_run import Ramper
from bench.ceiling import Ceilings
from bench.plan import Plan, RunSpec
from bench.progress import Progress
from bench.sampler import TreeSampler
from bench.schema import Result
from loadtools import LoadSpec, Tool
from loadtools import get as get_tool
from harness import machine, versions
from harness.backends import BackendsFailed, BackendSession
from harness.entry import EntryFailed, EntryProcess
from processes.bounded import run_bounded
from processes.ports import free_port
from servers.core import catalog

RAW_LIMIT = 1_000_000  # characters kept of each raw output section


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def fixed_id(entry: str, operation: str, users: int) -> int:
    """The id of tools that send one URL: stable per stack and route, so reruns compare."""
    return random.Random(f"{entry}/{operation}").randint(1, users)


@dataclass
class Context:
    """What every result of this benchmark shares."""

    tool: Tool
    tool_version: str
    pinning: pinning.Pinning
    machine: dict
    out: Path
    results_file: Path
    results: list[Result] = field(default_factory=list)
    index: int = 0


class Runner:
    def __init__(self, plan: Plan, out: Path, progress: Progress):
        self.plan = plan
        self.settings = plan.settings
        self.out = Path(out)
        self.progress = progress
        self.tool = get_tool(self.settings.tool)
        self.probe: noise.Probe | None = None
        self.backend_urls: dict[str, str] = {}
        self.ramper = Ramper(self)  # capacity ramps (bench/capacity_run.py)

    # -- checks before anything starts ---------------------------------------------------------
    def load_spec(self, run: RunSpec, base_url: str, stem: str, duration_s: float | None = None,
                  requests: int | None = -1) -> LoadSpec:
        s = self.settings
        return LoadSpec(
            base_url=base_url, path=run.path, connections=run.connections or 1, threads=run.threads,
            duration_s=run.duration_s if duration_s is None else duration_s,
            requests=run.requests if requests == -1 else requests, rate=run.rate, keepalive=run.keepalive,
            timeout_s=s.timeout_s, users=s.users, fixed_id=fixed_id(run.entry.name, run.operation, s.users),
            workdir=self.out / "work", stem=stem, load_workers=s.load_workers,
            remote_workers=s.remote_workers, master_bind=s.master_bind)

    def validate(self) -> None:
        """Raise ToolMissing or Unsupported before any process is started."""
        self.tool.binary()
        for run in self.plan.runs:
            if run.mode:
                self.ramper.tool.vegeta.binary()
            else:
                self.tool.check(self.load_spec(run, "http://127.0.0.1:1", "check"))

    # -- the benchmark -------------------------------------------------------------------------
    def execute(self) -> list[Result]:
        self.validate()
        s = self.settings
        self.out.mkdir(parents=True, exist_ok=True)
        ctx = Context(tool=self.tool, tool_version=self.tool.version(),
                      pinning=pinning.plan(s.pin, s.server_cores, local_server=not s.target),
                      machine=machine.describe(), out=self.out, results_file=self.out / "results.jsonl")
        self.progress.start(len(self.plan.runs))
        self.progress.note(f"{len(self.plan.runs)} runs of {len(self.plan.entries)} stacks with {self.tool.name} "
                           f"{ctx.tool_version}; {ctx.pinning.describe()}")
        if self.plan.runs and getattr(self.tool, "announce", None):
            announcement = self.tool.announce(self.load_spec(self.plan.runs[0], s.target or "http://HOST", "announce"))
            if announcement:
                self.progress.note(announcement, "yellow")
        needed = self.plan.backends()
        session = BackendSession(needed, self.out / "backends", s.users, s.mongo_url, s.redis_url)
        try:
            if s.noise_probe:
                self.probe = noise.Probe(s.noise_threshold_pct).start()
            backend_failure = ""
            if needed:
                self.progress.note(f"starting and seeding {' and '.join(needed)} ...")
                try:
                    session.start()
                except BackendsFailed as exc:
                    backend_failure = f"backends: {exc}"
                    self.progress.note(backend_failure, "red")
                for note in session.notes:
                    self.progress.note(note)
            self.backend_urls = {"mongo": session.mongo_url, "redis": session.redis_url}
            self.ceilings = Ceilings({"mongo": session.mongo_url, "redis": session.redis_url}, s.users,
                                     self.progress.note)
            if any(run.mode for run in self.plan.runs):
                self.ramper.calibrate(ctx)
            for stint in rounds.schedule(self.plan):
                group, runs = stint.group, stint.runs
                if backend_failure:  # recorded as failed; the entry still runs its other routes
                    for run in runs:
                        if catalog.backend_of(run.operation):
                            self.record_failure(ctx, run, backend_failure, notes=group.notes)
                    runs = [r for r in runs if not catalog.backend_of(r.operation)]
                if runs:
                    self.run_entry(ctx, group.entry, group.workers, runs, session, group.notes)
            self.cost_pass(ctx, session)
        finally:
            if self.probe is not None:
                self.probe.stop()
                self.probe = None
            session.stop()
            self.progress.stop()
        return ctx.results

    def cost_pass(self, ctx: Context, session: BackendSession) -> None:
        """After every ramp: each stack once more at its operation's common rate (capacity.common_rate,
        known only now), one step each, so that their CPU per request is compared at one rate."""
        rates = {op: capacity.common_rate(group)
                 for op, group in capacity.by_operation(capacity.capacities(ctx.results)).items()}
        stacks: dict[tuple, list[RunSpec]] = {}
        for run in self.plan.runs:
            if run.mode == "capacity" and run.repeat == 0 and rates.get(run.operation):
                cost = replace(run, mode="cost", rate=rates[run.operation])
                stacks.setdefault((run.entry.name, run.workers), []).append(cost)
        if stacks:
            self.progress.note("cost per request at the common rate: "
                               + ", ".join(f"{op} {rate:,.0f}/s" for op, rate in rates.items() if rate))
        for runs in stacks.values():
            self.run_entry(ctx, runs[0].entry, runs[0].workers, runs, session, [])

    def run_entry(self, ctx: Context, entry, workers: int | None, runs: list[RunSpec],
                  session: BackendSession, notes: list[str]) -> None:
        s = self.settings
        server: EntryProcess | None = None
        base_url = s.target.rstrip("/")
        try:
            if not s.target:
                args = ["--port", str(free_port()), *session.server_flags()]
                if workers is not None:
                    args += ["--workers", str(workers)]
                server = EntryProcess(entry.name, args, self.out / "logs" / f"{entry.name}.log",
                                     prefix=ctx.pinning.server_prefix())
                self.progress.note(f"starting {entry.name} ...")
                try:
                    server.start()
                except (EntryFailed, OSError) as exc:
                    for run in runs:
                        self.record_failure(ctx, run, f"server: {exc}", notes=notes)
                    return
                base_url = server.url
            contract_failure: dict[str, str | None] = {}  # operation -> why it broke the contract, or None
            warmed: set[tuple] = set()
            for run in runs:
                if server is not None and not server.alive():
                    self.record_failure(ctx, run, f"server exited earlier (code {server.proc.poll()}): "
                                                  f"{server.stderr_tail()}", server=server, notes=notes)
                    continue
                if run.operation not in contract_failure:
                    contract_failure[run.operation] = self.contract_failure(run, base_url, server)
                if contract_failure[run.operation] is not None:
                    self.record_failure(ctx, run, f"contract: {contract_failure[run.operation]}", server=server,
                                        notes=notes)
                    continue
                if run.mode == "cost":
                    self.ramper.cost(ctx, run, base_url, server, notes)
                    continue
                if run.mode:  # a capacity ramp: its steps warm up themselves
                    self.ramper.ramp(ctx, run, base_url, server, notes)
                    continue
                if run.group not in warmed and s.warmup_s > 0:
                    warmed.add(run.group)
                    self.warm_up(ctx, run, base_url)
                self.measure(ctx, run, base_url, server, notes)
        finally:
            if server is not None:
                server.stop()
                if server.stop_note.startswith("killed"):
                    self.progress.note(f"{entry.name} ignored SIGTERM for 5 s: killed", "yellow")

    def contract_failure(self, run: RunSpec, base_url: str, server: EntryProcess | None) -> str | None:
        """None when run's route answers the contract (bench/verify.py), else why it does not."""
        users = self.settings.users
        try:
            verify.verify(base_url, run.operation, run.path, users, fixed_id(run.entry.name, run.operation, users))
        except (verify.ContractError, OSError) as exc:
            why = str(exc)
            if server is not None and isinstance(exc, OSError):
                why += f"; server stderr: {server.stderr_tail()}"
            return why
        return None

    def warm_up(self, ctx: Context, run: RunSpec, base_url: str) -> None:
        spec = self.load_spec(run, base_url, "warmup", duration_s=self.settings.warmup_s, requests=None)
        argv = [*ctx.pinning.tool_prefix(), *self.tool.command(spec)]
        run_bounded(argv, timeout=self.tool.time_limit(spec))
        self.tool.discard(spec)

    def measure(self, ctx: Context, run: RunSpec, base_url: str, server: EntryProcess | None,
                notes: list[str]) -> None:
        """Measure a run; while the noise probe flags it and --rerun-noisy allows, measure it again."""
        result = self.measure_once(ctx, run, base_url, server, notes)
        while result.ok and result.noisy and result.rerun < self.settings.rerun_noisy:
            result.superseded = True
            self.finish(ctx, result)
            self.progress.note(f"noisy (probe moved {result.probe_moved_pct:.1f}%): measuring again", "yellow")
            result = self.measure_once(ctx, run, base_url, server, notes, rerun=result.rerun + 1)
        self.finish(ctx, result)

    def measure_once(self, ctx: Context, run: RunSpec, base_url: str, server: EntryProcess | None,
                     notes: list[str], rerun: int = 0) -> Result:
        ctx.index += 1
        stem = f"{ctx.index:03d}-{run.entry.name}-{run.operation}-{run.tool}-" \
               f"{'r%g' % run.rate if run.rate else 'c%d' % run.connections}-" \
               f"{'ka' if run.keepalive else 'close'}-{run.repeat + 1}"
        spec = self.load_spec(run, base_url, stem)
        argv = [*ctx.pinning.tool_prefix(), *self.tool.command(spec)]
        ceiling = self.ceilings.for_run(run)
        self.progress.begin(ctx.index, run.describe())
        result = self.base_result(ctx, run, server, notes)
        result.backend_ceiling = ceiling
        result.url = spec.fixed_url() if not self.tool.random_ids else base_url + run.path
        result.ids = self.tool.ids(spec)
        result.rerun = rerun
        probe_token = self.probe.begin() if self.probe is not None else None
        watch = selfcheck.Watch(base_url, ctx.pinning.tool_cpus if ctx.pinning.enabled else [])
        if server is not None:
            with TreeSampler(server.pid) as sampler, watch:
                done = run_bounded(argv, timeout=self.tool.time_limit(spec))
            result.server_cpu_s, result.server_peak_rss_mb = sampler.cpu_s, sampler.peak_rss_mb
        else:
            with watch:
                done = run_bounded(argv, timeout=self.tool.time_limit(spec))
        if probe_token is not None:
            self.apply_probe(result, self.probe.end(probe_token))
        raw = self.tool.collect(spec, done.stdout, done.stderr)
        result.raw_output = self.save_raw(stem, argv, done.returncode, raw)
        result.load_hosts, result.load_workers = self.tool.load_hosts(raw)
        result.load_master = hosts.load_master(argv)
        try:
            result.apply(self.tool.parse(raw))
        except (ValueError, KeyError) as exc:
            result.status, result.failure = "failed", f"{self.tool.name}: {exc}"
        if done.timed_out:
            result.status = "failed"
            result.failure = (result.failure + "; " if result.failure else "") + \
                f"{self.tool.name} killed after its time limit of {done.seconds:.0f} s"
        elif done.returncode not in (0, None) and result.ok and not result.requests:
            result.status, result.failure = "failed", f"{self.tool.name} exit {done.returncode}: " \
                                                      f"{(done.stderr.strip().splitlines() or [''])[-1]}"
        if server is not None and not server.alive():
            result.status = "failed"
            result.failure = (result.failure + "; " if result.failure else "") + \
                f"server exited during the run (code {server.proc.poll()}): {server.stderr_tail()}"
        if result.server_cpu_s is not None and result.requests:
            result.cpu_per_request_ms = round(result.server_cpu_s * 1000 / result.requests, 4)
        self.check(result, watch.result)
        return result

    def check(self, result: Result, watched: selfcheck.Watched) -> None:
        """The cell's self-check: the tool's CPU, the connections open, Little's law, the backend's share."""
        result.tool_cpu_s, result.tool_cpu_pct = watched.tool_cpu_s, watched.tool_cpu_pct
        result.tool_cores_busy_pct, result.connections_open = watched.tool_cores_busy_pct, watched.connections_open
        if not result.ok:
            return
        mean = result.latency_ms.get("mean")
        result.littles_ratio = selfcheck.littles_ratio(result.connections, result.requests_per_s, mean)
        if result.littles_ratio is not None:
            result.littles_ratio = round(result.littles_ratio, 3)
        result.void_reasons = selfcheck.void_reasons(selfcheck.Check(
            loop=result.loop, tool_cpu_pct=watched.tool_cpu_pct, tool_cores_busy_pct=watched.tool_cores_busy_pct,
            connections=result.connections,
            connections_open=watched.connections_open, requests_per_s=result.requests_per_s, mean_latency_ms=mean,
            offered_rate=result.rate, sent_rate=None, backend_share=selfcheck.backend_share(result),
            error_share=result.errors_total / max(1, result.requests + result.errors_total)))

    def apply_probe(self, result: Result, reading: noise.Reading) -> None:
        result.probe_before, result.probe_after = reading.before, reading.after
        result.probe_moved_pct, result.noisy, result.steal_pct = reading.moved_pct, reading.noisy, reading.steal_pct
        result.noise_threshold_pct = self.settings.noise_threshold_pct

    # -- results -------------------------------------------------------------------------------
    def base_result(self, ctx: Context, run: RunSpec, server: EntryProcess | None, notes: list[str]) -> Result:
        entry, s = run.entry, self.settings
        return Result(
            entrypoint=entry.name, language=entry.language, framework=entry.framework, server=entry.server,
            model=entry.model, tags=list(entry.tags), dev_only=entry.dev_only,
            dev_only_reason=entry.dev_only_reason, caveats=list(entry.caveat_texts),
            workers=server.workers if server is not None and server.workers is not None else run.workers,
            operation=run.operation, path=run.path, tool=run.tool, tool_version=ctx.tool_version,
            connections=run.connections if not run.rate else None,
            threads=self._threads(run), rate=run.rate, loop=run.loop, keepalive=run.keepalive,
            duration_s=run.duration_s, requests_target=run.requests, target=s.target,
            pinning=ctx.pinning.as_dict(), machine=ctx.machine,
            backends=hosts.backends_of(run.operation, self.backend_urls),
            # a server started elsewhere may run other versions than this checkout has installed
            versions=versions.for_entry(entry.name) if not s.target else {},
            preset=s.preset, repeat=run.repeat, repeats=run.repeats, timestamp=now(),
            rounds_order=s.rounds_order, sequence=ctx.index,
            notes=list(notes) + (["server started elsewhere: no CPU or RSS, versions unknown"] if s.target else []))

    def _threads(self, run: RunSpec) -> int | None:
        if run.tool == "wrk":
            return max(1, min(run.threads or 2, run.connections))
        return run.threads if run.tool == "hey" else None

    def record_failure(self, ctx: Context, run: RunSpec, why: str, server: EntryProcess | None = None,
                       notes: list[str] | None = None) -> None:
        ctx.index += 1
        self.progress.begin(ctx.index, run.describe())
        result = self.base_result(ctx, run, server, notes or [])
        result.status, result.failure = "failed", why
        self.finish(ctx, result)

    def finish(self, ctx: Context, result: Result) -> None:
        schema.append(ctx.results_file, result)
        ctx.results.append(result)
        self.progress.end(result)

    def save_raw(self, stem: str, argv: list[str], code: int | None, raw: dict[str, str]) -> str:
        path = self.out / "raw" / f"{stem}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        parts = [f"$ {shlex.join(argv)}", f"# exit {code}"]
        for name, text in raw.items():
            if text:
                clipped = text if len(text) <= RAW_LIMIT else text[:RAW_LIMIT] + "\n... (clipped)\n"
                parts.append(f"==> {name} <==\n{clipped.rstrip()}")
        path.write_text("\n".join(parts) + "\n")
        return str(path.relative_to(self.out))

