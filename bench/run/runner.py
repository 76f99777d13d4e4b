"""Carry out a plan: backends up and seeded, each entry started, contract checked, warmed up, loaded,
measured, stopped. Every planned run ends as one Result line, failed ones included.

What to measure and when is decided here (and, for a capacity ramp, in bench/run/ramper.py); how
one step is measured and recorded is bench/run/steps.py, the one step API both call.

Whatever happens (a failed start, a tool killed on its time limit, Ctrl-C, SIGTERM) the servers,
load tools and local backends started here are stopped in `finally` blocks.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from bench import noise
from bench.capacity import search, tally
from bench.planning import rounds
from bench.planning.plan import Plan, RunSpec
from bench.run import verify
from bench.run.ceiling import Ceilings
from bench.run.progress import Progress
from bench.run.ramper import Ramper, limit_key
from bench.run.steps import Ledger, StepSettings, Steps, Target, fixed_id, load_spec
from bench.schema import Result
from harness import machine, pinning, protocols
from harness.backends import BackendsFailed, BackendSession
from harness.entry import EntryFailed, EntryProcess
from loadtools import get as get_tool
from loadtools.openloop import OpenLoop
from processes.ports import free_port
from servers.core import catalog, server_options


class Runner:
    def __init__(self, plan: Plan, out: Path, progress: Progress):
        self.plan = plan
        self.settings = plan.settings
        self.step_settings = StepSettings.of(plan.settings)  # what the steps take of it, the load tool's knobs among them
        self.out = Path(out)
        self.progress = progress
        self.tool = get_tool(self.settings.tool)

    # -- checks before anything starts ---------------------------------------------------------
    def validate(self) -> None:
        """Raise ToolMissing or Unsupported before any process is started."""
        self.tool.binary()
        for run in self.plan.runs:
            if run.mode:
                OpenLoop().vegeta.check(load_spec(self.step_settings.load, run, "http://127.0.0.1:1", "check", self.out / "work"))
            else:
                self.tool.check(load_spec(self.step_settings.load, run, "http://127.0.0.1:1", "check", self.out / "work"))

    # -- the benchmark -------------------------------------------------------------------------
    def execute(self) -> list[Result]:
        self.validate()
        s = self.settings
        self.out.mkdir(parents=True, exist_ok=True)
        needed = self.plan.backends()
        session = BackendSession(needed, self.out / "backends", s.users, s.mongo_url, s.redis_url)
        # one pinning per number of server cores of the plan (the cores axis; None: the run's default)
        self.placements = {cores: pinning.plan(s.pin, cores, local_server=not s.target, backends=bool(session.to_start))
                           for cores in dict.fromkeys(group.cores for group in self.plan.entries)}
        pins = next(iter(self.placements.values()), None) or pinning.plan(s.pin, None, local_server=not s.target)
        session.cpus = pins.backend_cpus
        self.session = session
        ledger = Ledger(tool=self.tool, tool_version=self.tool.version(), pinning=pins,
                        machine=machine.describe(), out=self.out, results_file=self.out / "results.jsonl")
        self.progress.start(len(self.plan.runs))
        self.progress.note(f"{len(self.plan.runs)} runs of {len(self.plan.entries)} stacks with {self.tool.name} "
                           f"{ledger.tool_version}; " + "; ".join(
                               (f"{cores} server core{'s' if cores > 1 else ''}: " if cores else "") + p.describe()
                               for cores, p in self.placements.items()))
        if self.plan.runs and getattr(self.tool, "announce", None):
            announcement = self.tool.announce(load_spec(self.step_settings.load, self.plan.runs[0], s.target or "http://HOST", "announce",
                                                        self.out / "work"))
            if announcement:
                self.progress.note(announcement, "yellow")
        probe = None
        try:
            if s.noise_probe:
                probe = noise.Probe(s.noise_threshold_pct).start()
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
            urls = {"mongo": session.mongo_url, "redis": session.redis_url}
            steps = Steps(self.step_settings, ledger, self.progress, probe=probe, ceilings=Ceilings(urls, s.users, self.progress.note),
                          backend_urls=urls, backend_pids=session.pids)
            ramper = Ramper(steps, search.Slo.parse(s.slo), s.ramp)
            for protocol, cores, op in dict.fromkeys(limit_key(run) for run in self.plan.runs if run.mode):
                # the tool's own limit on each protocol (TLS costs the tool too), placement (its cores) and tool
                self.place(steps, cores)
                ramper.calibrate(protocol, cores, op)
            for runs, notes in self.stints(steps, backend_failure):
                self.run_entry(steps, ramper, runs, notes)
            foreign = tally.foreign_load(ledger.results)
            if foreign is not None:
                self.progress.note(foreign.describe(), "yellow" if foreign.reruns or foreign.void_cells else "")
        finally:
            if probe is not None:
                probe.stop()
            session.stop()
            self.progress.stop()
        return ledger.results

    def place(self, steps: Steps, cores: int | None) -> None:
        """The pinning of a number of server cores for the steps that follow (the cores axis); the local
        backends follow the server's cores where they share them (harness/pinning.py)."""
        pins = self.placements.get(cores)
        if pins is None or pins is steps.ledger.pinning:
            return
        moved = pins.backend_cpus != steps.ledger.pinning.backend_cpus
        steps.ledger.pinning = pins
        if moved and self.session.pids():
            cpus = pins.backend_cpus or pinning.usable_cpus()
            for pid in self.session.pids():
                pinning.pin_tree(pid, cpus)
            self.progress.note(f"local backends now on cpu {pinning.cpu_list(cpus)}"
                               + (f" ({cores} server cores)" if cores else ""))

    def stints(self, steps: Steps, backend_failure: str) -> Iterator[tuple[list[RunSpec], list[str]]]:
        """Each server start's runs and notes, placed: the plan's in its rounds' order (bench/planning/rounds.py),
        then the cost pass's, worked out only once every ramp before them was measured (a generator: lazily)."""
        for stint in rounds.schedule(self.plan):
            group, runs = stint.group, stint.runs
            self.place(steps, group.cores)
            if backend_failure:  # recorded as failed; the entry still runs its other routes
                for run in runs:
                    if catalog.backend_of(run.operation):
                        steps.failed(run, backend_failure, Target("", notes=group.notes))
                runs = [r for r in runs if not catalog.backend_of(r.operation)]
            if runs:
                yield runs, group.notes
        for runs in self.cost_runs(steps):
            self.place(steps, runs[0].cores)
            yield runs, []

    def cost_runs(self, steps: Steps) -> list[list[RunSpec]]:
        """After every ramp: each stack once more at its operation's common rate (tally.common_rate,
        known only now: one rate for every stack and protocol of the operation), one step each, so that
        their CPU per request is compared at one rate; with --close (or --close-only) a second step there
        with a connection per request (the handshake of each new connection, over TLS). A list a stack."""
        rates = {op: tally.common_rate(group)
                 for op, group in tally.by_operation(tally.capacities(steps.ledger.results)).items()}
        passes = [True] + [False] * (False in self.settings.keepalive)
        stacks: dict[tuple, list[RunSpec]] = {}
        for run in self.plan.runs:
            if run.mode == "capacity" and run.repeat == 0 and rates.get(run.operation):
                stacks.setdefault((run.entry.name, run.workers, run.protocol, run.interpreter, run.cores), []).extend(
                    replace(run, mode="cost", rate=rates[run.operation], keepalive=keepalive) for keepalive in passes)
        if stacks:
            self.progress.note("cost per request at the common rate: "
                               + ", ".join(f"{op} {rate:,.0f}/s" for op, rate in rates.items() if rate)
                               + ("; kept connections and a connection per request" if len(passes) > 1 else ""))
        return list(stacks.values())

    def run_entry(self, steps: Steps, ramper: Ramper, runs: list[RunSpec], notes: list[str]) -> None:
        """One server start (none with --target) serving runs, which share its entry, workers, protocol,
        interpreter and server options."""
        s = self.settings
        first = runs[0]
        entry, workers, protocol, interpreter = first.entry, first.workers, first.protocol, first.interpreter
        server: EntryProcess | None = None
        target = Target(s.target.rstrip("/"), None, notes)
        try:
            if not s.target:
                args = ["--port", str(free_port()), *self.session.server_flags(), *protocols.get(protocol).server_flags()]
                if workers is not None:
                    args += ["--workers", str(workers)]
                log = "-".join(filter(None, (entry.name, interpreter if entry.language == "python" else "")))
                server = EntryProcess(entry.name, args, self.out / "logs" / f"{log}.log",
                                      prefix=steps.ledger.pinning.server_prefix(), interpreter=interpreter or None,
                                      env=server_options.environment(dict(first.server_options)))
                self.progress.note(f"starting {first.stack}" + (f" ({protocol})" if protocol != protocols.DEFAULT
                                                                    else "") + " ...")
                try:
                    server.start()
                except (EntryFailed, OSError) as exc:
                    for run in runs:
                        steps.failed(run, f"server: {exc}", target)
                    return
                target = Target(server.url, server, notes)
            contract_failure: dict[str, str | None] = {}  # operation -> why it broke the contract, or None
            warmed: set[tuple] = set()
            for run in runs:
                if server is not None and not server.alive():
                    steps.failed(run, f"server exited earlier (code {server.proc.poll()}): {server.stderr_tail()}",
                                 target)
                    continue
                if run.operation not in contract_failure:
                    contract_failure[run.operation] = self.contract_failure(run, target)
                if contract_failure[run.operation] is not None:
                    steps.failed(run, f"contract: {contract_failure[run.operation]}", target)
                    continue
                if run.mode == "cost":
                    ramper.cost(run, target)
                elif run.mode:  # a capacity ramp: its steps warm up themselves
                    # every repeat from the same ladder (the closed-loop knee of this run, else the ladder's foot):
                    # the repeats are independent, so their min-max is an interval
                    guess = search.knee_guess(steps.ledger.results, entry.name, run.operation, run.interpreter,
                                                run.cores)
                    ramper.ramp(run, target, guess=guess)
                else:
                    if run.group not in warmed and s.warmup_s > 0:
                        warmed.add(run.group)
                        steps.warm_up(run, target.base_url)
                    self.measure(steps, run, target)
        finally:
            if server is not None:
                server.stop()
                if server.stop_note.startswith("killed"):
                    self.progress.note(f"{entry.name} ignored SIGTERM for 5 s: killed", "yellow")

    def contract_failure(self, run: RunSpec, target: Target) -> str | None:
        """None when run's route answers the contract (bench/run/verify.py), else why it does not."""
        users = self.settings.users
        try:
            verify.verify(target.base_url, run.operation, run.path, users,
                          fixed_id(run.entry.name, run.operation, users), http2=protocols.get(run.protocol).http2)
        except (verify.ContractError, OSError) as exc:
            why = str(exc)
            if target.server is not None and isinstance(exc, OSError):
                why += f"; server stderr: {target.server.stderr_tail()}"
            return why
        return None

    def measure(self, steps: Steps, run: RunSpec, target: Target) -> None:
        """Measure a run; while the noise probe flags it and --rerun-noisy allows, measure it again."""
        result = steps.closed(run, target)
        while result.ok and result.noisy and result.rerun < self.settings.rerun_noisy:
            result.superseded = True
            steps.record(result)
            self.progress.note(f"noisy (probe moved {result.probe_moved_pct:.1f}%): measuring again", "yellow")
            result = steps.closed(run, target, rerun=result.rerun + 1)
        steps.record(result)
