"""The benchmark plan: Settings (what the command line or a preset asks for) expanded into runs.

A plan is grouped by stack: an entry on one protocol (one server start serves one protocol: harness.protocols),
one interpreter (the interpreter axis: an entry with the GIL on each of --interpreter, an _ft entry on
3.13t: servers/core/interpreters.py) and one number of server cores (the cores axis, --server-cores: each
count pinned on its own, harness/pinning.py); its runs are operations x keep-alive/close passes x connection
counts or rates x repeats. An entry whose server cannot serve a protocol (no TLS of its own) is left out of
it, with its spec's reason. bench/planning/rounds.py orders them: with repeats, in interleaved rounds (a server start
per stack and round) or sequentially (one server start per stack serves all its runs).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from servers.core import catalog, interpreters
from servers.core.catalog import Entry
from servers.core.cores import usable_cores

from bench import defaults, labels
from bench.capacity import search
from harness import pinning
from harness import protocols as protocol_axis
from servers.adapters.sizing import THREADS_PER_WORKER
from loadtools import DEFAULT_TOOL, WS_TOOL

DEFAULT_CONNECTIONS = (defaults.CONNECTIONS,)
DEFAULT_DURATION_S = defaults.DURATION_S
QUICK_DURATION_S = 3.0
QUICK_REQUESTS = 5_000
QUICK_REPEAT = 2  # --quick keeps at most 2 repeats of a preset: an interval still, a coarse one
DEFAULT_WARMUP_S = defaults.WARMUP_S
DEFAULT_TIMEOUT_S = defaults.TIMEOUT_S
DEFAULT_USERS = defaults.USERS
# The --quick matrix when no --servers is given: one stack of every framework, one Go
# counterpart, every operation of the contract.
QUICK_SERVERS = ("flask_gevent", "falcon_gunicorn_gthread", "sanic", "tornado", "twisted",
                 "stdlib_threaded", "fastapi_uvicorn", "starlette_granian", "nethttp")
# Seconds a run costs besides its load (verify, start the tool, collect) and an entry's start.
RUN_OVERHEAD_S = 0.7
START_OVERHEAD_S = 3.0
BACKENDS_OVERHEAD_S = 8.0
PROBE_OVERHEAD_S = 0.4  # the noise probe before and after a run
# --quick also ramps these operations to their capacity within the SLO (bench/capacity/search.py): the two ends
# TechEmpower's rankings span, a hello and a page rendered from the database. redis-pooled was ramped here
# before fortunes; its ramps (about 2 min of a --quick run here) made room for fortunes' (--capacity and the
# capacity-curves preset still ramp it).
QUICK_CAPACITY_OPS = ("hello", "fortunes")


@dataclass
class Settings:
    servers: list[str] = field(default_factory=list)  # entry names (already selected)
    ops: list[str] = field(default_factory=lambda: list(catalog.ALL_OPS))
    tool: str = DEFAULT_TOOL
    connections: list[int] = field(default_factory=lambda: list(DEFAULT_CONNECTIONS))
    streams: int = 1  # HTTP/2 streams in flight per connection (h2load -m)
    threads: int | None = None
    duration_s: float = DEFAULT_DURATION_S
    requests: int | None = None
    rates: list[float] = field(default_factory=list)  # vegeta constant rates (open loop)
    keepalive: list[bool] = field(default_factory=lambda: [True])  # the passes: True keep-alive, False close
    protocols: list[str] = field(default_factory=lambda: [protocol_axis.DEFAULT])  # h1, h1-tls (harness.protocols)
    repeat: int = defaults.REPEATS
    rounds_order: str = "interleaved"  # how repeats run: bench/planning/rounds.py
    noise_probe: bool = True  # time a fixed reference load before and after each run: bench/noise.py
    noise_threshold_pct: float = defaults.NOISE_THRESHOLD_PCT
    rerun_noisy: int = 0  # measure a noisy run again, at most this many times
    workers: int | None = None
    warmup_s: float = DEFAULT_WARMUP_S
    timeout_s: float = DEFAULT_TIMEOUT_S
    users: int = DEFAULT_USERS
    pin: bool = True
    server_cores: list[int] = field(default_factory=list)  # the cores axis: each count a stack of its own ([]: half)
    # the interpreter axis: the interpreters with the GIL that entries with the GIL run on (an _ft entry runs on
    # 3.13t whatever is given here): servers/core/interpreters.py
    interpreters: list[str] = field(default_factory=lambda: [interpreters.GIL])
    # workers at equal cores (workers_at_equal_cores): one per server core, or one process of threads for a
    # free-threaded entry whose workers are processes; an explicit --workers wins
    equal_cores: bool = False
    target: str = ""
    preset: str = ""
    quick: bool = False
    mongo_url: str = ""  # use these backends instead of starting local ones
    redis_url: str = ""
    load_workers: int = 0  # locust: local worker processes of its distributed mode (0: one process)
    remote_workers: int = 0  # locust: workers on other load hosts the master waits for
    master_bind: str = ""  # locust: the master's HOST[:PORT]
    # capacity ramps (bench/capacity/search.py): the operations ramped, and whether only those run
    capacity_ops: list[str] = field(default_factory=list)
    capacity_only: bool = False
    slo: str = search.DEFAULT_SLO
    ramp: search.RampSettings = field(default_factory=search.RampSettings)

    def scaled_quick(self) -> "Settings":
        """--quick: shorter runs, fewer requests, short ramp steps (the matrix is not changed here)."""
        return replace(self, quick=True, duration_s=min(self.duration_s, QUICK_DURATION_S),
                       requests=min(self.requests, QUICK_REQUESTS) if self.requests else None,
                       repeat=min(self.repeat, QUICK_REPEAT), ramp=search.QUICK_RAMP)


@dataclass(frozen=True)
class RunSpec:
    entry: Entry
    operation: str
    path: str
    tool: str
    connections: int
    threads: int | None
    rate: float | None
    keepalive: bool
    duration_s: float
    requests: int | None
    repeat: int
    repeats: int
    workers: int | None
    mode: str = ""  # "capacity": a ramp to the rate held within the SLO (bench/capacity/search.py)
    protocol: str = protocol_axis.DEFAULT  # what the server is started to serve and the tool speaks
    streams: int = 1  # HTTP/2 streams in flight per connection (h2load -m)
    interpreter: str = ""  # the interpreter it runs on (servers/core/interpreters.py); "": the entry's own
    cores: int | None = None  # the server's cores (the cores axis); None: the run's default pinning
    # options handed to the entry's server (servers/core/server_options.py), e.g. (("threads", 32),) for gunicorn
    # gthread at equal threads per core (threads_at_equal_cores)
    server_options: tuple[tuple[str, object], ...] = ()

    @property
    def loop(self) -> str:
        return "open" if self.rate or self.mode else "closed"

    @property
    def group(self) -> tuple:
        """Runs of one group differ only by repeat: they share one warm-up."""
        return (self.entry.name, self.protocol, self.interpreter, self.cores, self.operation, self.keepalive,
                self.connections, self.streams, self.rate, self.mode, self.server_options)

    @property
    def stack(self) -> str:
        """The entry, with its interpreter where not its own, protocol unless plaintext HTTP/1.1, and cores where
        the run has a cores axis."""
        return labels.stack(self.entry.name, self.protocol, self.interpreter, self.cores)

    def describe(self) -> str:
        if self.mode == "cost":
            conn = "" if self.keepalive else ", a connection per request"
            return f"{self.stack} {self.operation} cost at the common rate {self.rate:,.0f}/s{conn}"
        if self.mode:
            rep = f" #{self.repeat + 1}/{self.repeats}" if self.repeats > 1 else ""
            return f"{self.stack} {self.operation} {self.mode} ramp{rep}"
        load = f"rate={self.rate:g}/s" if self.rate else f"c={self.connections}"
        if self.streams > 1 and not self.rate:
            load += f" m={self.streams}"
        if self.threads and self.tool == "wrk":
            load += f" t={self.threads}"
        conn = "keep-alive" if self.keepalive else "close"
        rep = f" #{self.repeat + 1}/{self.repeats}" if self.repeats > 1 else ""
        return f"{self.stack} {self.operation} {self.tool} {load} {conn}{rep}"


@dataclass
class EntryPlan:
    entry: Entry
    workers: int | None  # the --workers flag to pass (None: the catalog default)
    runs: list[RunSpec]
    notes: list[str] = field(default_factory=list)
    protocol: str = protocol_axis.DEFAULT  # the protocol its server is started with
    interpreter: str = ""  # the interpreter it is started on ("": the entry's own)
    cores: int | None = None  # the server's cores (None: the run's default pinning)

    @property
    def stack(self) -> str:
        return self.runs[0].stack if self.runs else self.entry.name


@dataclass
class Plan:
    settings: Settings
    entries: list[EntryPlan]
    skipped: list[str] = field(default_factory=list)  # "entry op: why" for combinations not run
    unserved: list[str] = field(default_factory=list)  # "entry protocol: why" for a protocol its server cannot serve
    # a scaling or threads-against-processes comparison this machine's placement cannot isolate, and what would
    not_isolated: list[str] = field(default_factory=list)

    @property
    def runs(self) -> list[RunSpec]:
        return [run for group in self.entries for run in group.runs]

    def backends(self) -> list[str]:
        if self.settings.target:
            return []
        needed = {catalog.backend_of(run.operation) for run in self.runs}
        return [b for b in catalog.BACKENDS if b in needed]

    def estimate_s(self) -> float:
        """Expected wall time: each run's warm-up and load plus overheads (an upper bound for ab -n)."""
        s = self.settings
        # interleaved rounds start every server once per round, and warm it up again
        rounds = s.repeat if s.rounds_order == "interleaved" else 1
        probe = PROBE_OVERHEAD_S if s.noise_probe else 0.0
        slo = search.Slo.parse(s.slo)
        ramp_s = search.estimate_ramp_s(s.ramp, slo)
        load = sum((ramp_s if run.mode else run.duration_s)
                   + RUN_OVERHEAD_S + probe for run in self.runs)
        if any(run.mode for run in self.runs):
            # the tool's own limit, against a trivial server, on each protocol and number of server cores
            placements = len({(run.protocol, run.cores) for run in self.runs if run.mode})
            load += placements * (ramp_s * 1.5 + START_OVERHEAD_S)
            # the cost pass: each stack started again, one step per operation (and connection pass) at the
            # common rate
            costs = [run for run in self.runs if run.mode and run.repeat == 0]
            load += len(costs) * len(set(s.keepalive) | {True}) * (
                s.ramp.cost_max_s / 2 + s.ramp.warmup_s + search.STEP_OVERHEAD_S)
            load += len({(run.entry.name, run.protocol, run.interpreter, run.cores) for run in costs}) * START_OVERHEAD_S
        warmup = rounds * len({run.group for run in self.runs if not run.mode}) * (s.warmup_s + RUN_OVERHEAD_S)
        starts = 0.0 if s.target else rounds * len(self.entries) * START_OVERHEAD_S
        return load + warmup + starts + (BACKENDS_OVERHEAD_S if self.backends() else 0.0)


def format_duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 90:
        return f"{seconds} s"
    minutes, sec = divmod(seconds, 60)
    if minutes < 90:
        return f"{minutes} min {sec:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def workers_at_equal_cores(entry: Entry, cores: int) -> tuple[int, str]:
    """Workers of a stack given `cores` server cores, so that threads of one process meet processes at equal
    cores, and why: on the GIL, one worker process per core (each runs Python on one core at a time); on
    free-threaded 3.13t, one process whose threads run on every core, unless its server's workers are threads
    of one process there anyway (granian: ServerSpec.free_threaded_thread_workers), then one per core."""
    if entry.free_threaded and not entry.server_spec.free_threaded_thread_workers:
        return 1, f"one process on {cores} core{'s' if cores > 1 else ''}: its threads run Python on every core"
    if entry.free_threaded:
        return cores, (f"{cores} worker thread{'s' if cores > 1 else ''} of one process on {cores} "
                       f"core{'s' if cores > 1 else ''}")
    return cores, f"one worker process per core ({cores})"


def threads_at_equal_cores(entry: Entry, cores: int) -> int | None:
    """The pool threads of a free-threaded gunicorn gthread stack at equal cores, so that both builds have the same
    threads per core: its one process gets THREADS_PER_WORKER per core, as the GIL side gets THREADS_PER_WORKER in
    each of its one process per core (None: the entry's own sizing is already per core, or not a thread pool)."""
    if entry.free_threaded and entry.server == "gunicorn-gthread" and not entry.server_spec.free_threaded_thread_workers:
        return THREADS_PER_WORKER * cores
    return None


def _workers(entry: Entry, requested: int | None, notes: list[str], cores: int | None = None,
             equal_cores: bool = False) -> int | None:
    if requested is None and equal_cores and entry.language == "python":
        requested, why = workers_at_equal_cores(entry, cores or max(1, usable_cores() // 2))
        notes.append(f"--workers {requested}: {why}")
    if requested is None:
        return None
    if requested < entry.min_workers:
        notes.append(f"--workers {requested} raised to {entry.min_workers}: {entry.name} with fewer is another server")
        return entry.min_workers
    if entry.max_workers is not None and requested > entry.max_workers:
        notes.append(f"--workers {requested} clamped to {entry.max_workers}: {entry.name} runs "
                     f"{entry.max_workers} process only")
        return entry.max_workers
    return requested


def interpreters_of(entry: Entry, wanted: list[str]) -> list[str]:
    """The interpreters entry runs on in a plan: an _ft entry on its own; an entry with the GIL on each of
    `wanted` (the interpreter axis); a Go entry on none ("")."""
    if entry.language != "python":
        return [""]
    if entry.free_threaded:
        return [entry.interpreter]
    return list(dict.fromkeys(wanted)) or [entry.interpreter]


def isolation(settings: Settings, backends: bool, backend_ops: bool) -> list[str]:
    """What of a run's comparisons across server core counts (the cores axis: scaling) and of threads against
    processes (--equal-cores on 2+ cores) its placements cannot isolate on this machine, and the machine that
    would: each count whose server would share its cores with the load tool, or with the backends of its routes.
    The report voids those comparisons (bench/free_threading/comparison.py); the plan says so before anything runs."""
    counts = [c for c in dict.fromkeys(settings.server_cores) if c]
    compares = len(counts) > 1 or (settings.equal_cores and any(c > 1 for c in counts))
    if not compares or settings.target:
        return []
    out = []
    for cores in counts:
        pins = pinning.plan(settings.pin, cores, local_server=True, backends=backends).as_dict()
        where = pinning.placement(pins, ["backends"] if backends else [])
        shared = pinning.sharing(where, "backends" if backend_ops else None)
        if shared:
            out.append(f"{cores} server core{'s' if cores > 1 else ''}: the server would share its cores with the "
                       f"{' and the '.join(shared)} ({pins.get('reason', '')}): its cells are marked and no scaling "
                       f"nor threads-against-processes verdict is drawn from them; what would isolate them: "
                       f"{pinning.what_isolates(cores)}")
    return out


def build(settings: Settings, entries: list[Entry] | None = None) -> Plan:
    """Expand settings into runs; an entry runs only the operations its catalog entry lists.

    entries defaults to settings.servers looked up in the catalog (--target passes its own).
    """
    if entries is None:
        entries = [catalog.get(name) for name in settings.servers]
    plan = Plan(settings, [])
    loads: list[tuple[int, float | None]]
    if settings.rates:
        loads = [(0, rate) for rate in settings.rates]
    else:
        loads = [(c, None) for c in settings.connections]
    core_counts: list[int | None] = list(dict.fromkeys(settings.server_cores)) or [None]
    stacks = [(e, p, i, c) for c in core_counts for e in entries for i in interpreters_of(e, settings.interpreters)
              for p in settings.protocols]
    for entry, protocol, interpreter, cores in stacks:
        if why := protocol_axis.get(protocol).unsupported(entry):
            plan.unserved.append(f"{entry.name} {protocol}: {why}")
            continue
        notes: list[str] = []
        workers = _workers(entry, settings.workers, notes, cores, settings.equal_cores)
        # the interpreter a run records: the entry's own unless the axis moved it ("" for a --target's)
        interpreter = "" if settings.target else interpreter
        axis = dict(protocol=protocol, interpreter=interpreter, cores=cores)
        threads = threads_at_equal_cores(entry, cores or max(1, usable_cores() // 2)) \
            if settings.equal_cores and settings.workers is None and not settings.target else None
        if threads:
            axis["server_options"] = (("threads", threads),)
            notes.append(f"{threads} pool threads in its one process: {THREADS_PER_WORKER} per core, as each "
                         f"process of the GIL side has on its own core")
        runs, broadcast = [], []
        for op in settings.ops:
            if op not in entry.ops and op not in entry.ws_ops:
                why = entry.ws_cannot if op in catalog.WS_OPERATIONS else "not an operation of this entry"
                plan.skipped.append(f"{entry.name} {op}: {why}")
                continue
            websocket = op in catalog.WS_OPERATIONS
            if websocket and protocol != protocol_axis.DEFAULT:
                plan.skipped.append(f"{entry.name} {op}: its WebSockets are measured over {protocol_axis.DEFAULT} only")
                continue
            if settings.capacity_only:
                continue
            for keepalive in (True,) if websocket else settings.keepalive:  # a socket stays open: no --close
                for connections, rate in loads:
                    for repeat in range(settings.repeat):
                        (broadcast if op == "ws-broadcast" else runs).append(RunSpec(
                            entry=entry, operation=op, path=catalog.path_of(op),
                            tool=WS_TOOL if websocket else settings.tool,
                            connections=connections, threads=settings.threads, rate=rate,
                            keepalive=keepalive, duration_s=settings.duration_s, requests=settings.requests,
                            repeat=repeat, repeats=settings.repeat,
                            workers=1 if op == "ws-broadcast" else workers, streams=settings.streams,
                            **axis))
        for op in settings.capacity_ops:
            if op == "ws-broadcast" and op in entry.ws_ops and op in settings.ops:
                plan.skipped.append(f"{entry.name} {op}: no capacity ramp (wsload's broadcast is closed-loop: "
                                    "each client sends once its own message came back); closed-loop runs only")
            elif (op in entry.ops or op in entry.ws_ops) and op in settings.ops and \
                    (op not in catalog.WS_OPERATIONS or protocol == protocol_axis.DEFAULT):
                runs += [RunSpec(entry=entry, operation=op, path=catalog.path_of(op),
                                 tool=WS_TOOL if op in catalog.WS_OPERATIONS else "vegeta",
                                 connections=0, threads=None, rate=None, keepalive=True,
                                 duration_s=settings.ramp.step_s, requests=None, repeat=repeat,
                                 repeats=settings.repeat, workers=workers, mode="capacity", **axis)
                         for repeat in range(settings.repeat)]
        if runs:
            plan.entries.append(EntryPlan(entry, workers, runs, notes, protocol, interpreter, cores))
        if broadcast:  # every client must meet every other in one worker's set of sockets
            plan.entries.append(EntryPlan(entry, 1, broadcast, [*notes, "ws-broadcast on one worker: a broadcast "
                                          "reaches the clients of the worker that received it"],
                                          protocol, interpreter, cores))
    plan.not_isolated = isolation(settings, bool(plan.backends()),
                                  any(catalog.backend_of(run.operation) for run in plan.runs))
    return plan
