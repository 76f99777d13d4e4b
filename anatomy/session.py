"""One anatomy run: start the entry (and the local backends its operation needs), put a steady wrk
load on it (h2load over HTTP/2: its connections, each with `streams` requests in flight), and observe it from
outside while the load runs.

Timeline for --seconds S: wrk runs S seconds; after a warm-up second the observation window
(S - 2 s, at least 1 s) samples the process tree and the sockets every SAMPLE_S and, at the same
time, profiles every worker (py-spy, or pprof for Go). The project's own pieces do the starting,
the load and the backends: harness.entry.EntryProcess, loadtools.wrk, harness.backends.BackendSession.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

import psutil

from anatomy import driver_parts, layers, perfdso, pprof, pyspy, threadcpu
from backends import DEFAULT_USERS
from anatomy.census import SPAWNER, WORKER, Census
from anatomy.connections import Connections
from loadtools.base import LoadSpec
from loadtools.h2load import H2load
from loadtools.wrk import Wrk
from harness import machine, protocols, versions
from harness.backends import BackendSession
from harness.entry import EntryProcess
from processes.bounded import run_bounded
from processes.ports import free_port
from servers.core.catalog import backend_of
from servers.core import catalog

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_S = 0.25
WARMUP_S = 1.0


@dataclass
class Settings:
    name: str
    op: str = "hello"
    connections: int = 50
    seconds: float = 10.0
    workers: int | None = None
    profile: bool = True
    mongo_url: str = ""
    redis_url: str = ""
    users: int = DEFAULT_USERS  # what the local backends are seeded with, lookups drawn over them
    protocol: str = protocols.DEFAULT  # harness.protocols: h1, h1-tls (wrk speaks them), h2, h2c (h2load)
    streams: int = 1  # over HTTP/2: streams each connection keeps in flight (h2load -m)
    workdir: Path = field(default_factory=lambda: ROOT / "results" / "anatomy")


def _backend_port(url: str) -> int | None:
    return urlparse(url).port if url else None


def profiled_pids(census: Census, conns: Connections) -> list[int]:
    """The processes to profile: the workers seen so far."""
    return [p.pid for p in census.result(conns.serving_pids()) if p.role == WORKER]


class Profiler:
    """Profiles the workers over the window in a thread; .stacks per pid and .why when it could not."""

    def __init__(self, entry: catalog.Entry, workdir: Path, pprof_port: int | None, tls: bool = False):
        self.entry, self.workdir, self.pprof_port = entry, workdir, pprof_port
        # over TLS, perf's share of the TLS library's native code (what py-spy's GIL samples miss)
        self.native = entry.tls.native if tls else ()
        self.dsos: dict[str, float] = {}
        self.dso_why = ""
        self.stacks: dict[int, str] = {}
        self.threads: dict[int, threadcpu.Window] = {}  # each thread's CPU over the sampling window
        self.walls: dict[int, str] = {}  # wall samples (waiting threads included), for the off-CPU time
        self.why = ""
        self.thread: threading.Thread | None = None

    def start(self, pids: list[int], seconds: float) -> None:
        self.thread = threading.Thread(target=self._run, args=(pids, seconds), daemon=True)
        self.thread.start()

    def join(self, timeout: float) -> None:
        if self.thread:
            self.thread.join(timeout)

    def _run(self, pids: list[int], seconds: float) -> None:
        if self.entry.language == "go":
            self.why = pprof.unavailable()
            if not self.why:
                out = self.workdir / "cpu.pprof"
                self.why = pprof.fetch(self.pprof_port, seconds, out)
                if not self.why:
                    text, self.why = pprof.traces(out)
                    self.stacks[pids[0]] = text
            return
        self.why = pyspy.unavailable()
        if self.why:
            return
        before = {pid: threadcpu.snapshot(pid) for pid in pids}
        perf = None
        if self.native:
            self.dso_why = perfdso.unavailable()
            if not self.dso_why:
                perf = perfdso.start(pids, seconds, self.workdir / "perf.data")
        procs = {pid: pyspy.start(pid, seconds, self.workdir / f"pyspy-{pid}.txt") for pid in pids}
        walls = {pid: pyspy.start(pid, seconds, self.workdir / f"pyspy-wall-{pid}.txt", wall=True) for pid in pids}
        whys = []
        for pid, proc in procs.items():
            text, why = pyspy.finish(proc, self.workdir / f"pyspy-{pid}.txt", seconds + 30)
            self.threads[pid] = threadcpu.between(before[pid], threadcpu.snapshot(pid))
            wall, _ = pyspy.finish(walls[pid], self.workdir / f"pyspy-wall-{pid}.txt", seconds + 30)
            self.walls[pid] = wall  # without it only the off-CPU table is missing
            if why:
                whys.append(why)
            else:
                self.stacks[pid] = text
        if perf is not None:
            self.dsos, self.dso_why = perfdso.finish(perf, self.workdir / "perf.data", seconds + 60)
        if not self.stacks:
            self.why = whys[0] if whys else "no worker was sampled"


def cpu_section(entry: catalog.Entry, profiler: Profiler, processes: list) -> dict:
    """On-CPU time by layer (shares summing to 100), held time apart, top functions, the flame graph's stacks."""
    rules = layers.rules_for(entry.server, entry.app)
    if not profiler.stacks:
        return {"why": profiler.why or "no profile", "shares": {}, "top": [], "stacks": []}
    cpu_of = {p.pid: p.cpu_s for p in processes}
    parts, all_stacks = [], []
    for pid, text in profiler.stacks.items():
        stacks = layers.parse_collapsed(text)
        all_stacks += stacks
        if entry.language == "go":  # pprof's samples are on-CPU time already: milliseconds
            parts.append(layers.attribute(stacks, rules, scale=1e-3))
        else:  # each thread's samples weighted by its own CPU time over the window
            threads = profiler.threads.get(pid) or threadcpu.Window(cpu_of.get(pid, 0.0), {}, {})
            wall = layers.parse_collapsed(profiler.walls.get(pid, ""))
            parts.append(layers.attribute_threads(stacks, rules, threads.threads, threads.process, threads.names,
                                                  wall, pyspy.WALL_RATE, main_tid=pid))
    total = layers.merge(parts)
    if not total.active:  # samples, but none on CPU (a profiler that attached late on a busy machine)
        return {"why": "the profiler's samples hold no on-CPU time", "shares": {}, "top": [], "stacks": all_stacks}
    native_pct = None
    if profiler.dsos:  # the TLS library's native share (perf): the GIL samples spread it over the other layers
        native_pct = perfdso.share(profiler.dsos, profiler.native)
        total = layers.with_native_share(total, layers.TLS, native_pct / 100.0,
                                         f"{entry.tls.library}: native code ({', '.join(profiler.native)}; perf)")
    return {"why": "", "shares": {rules.label(k): round(v, 1) for k, v in total.shares().items()},
            "tls_native_pct": None if native_pct is None else round(native_pct, 1),
            "tls_native_why": profiler.dso_why,
            "layers": {k: round(v, 1) for k, v in total.shares().items()},
            "cpu_s": round(total.active, 3),
            "held_s": round(sum(total.held.values()), 3),
            "top": [{"function": f, "layer": l, "percent": round(p, 1)} for f, l, p in total.top_functions(12)],
            "driver_parts": driver_parts.split(all_stacks),
            "top_held": [{"function": f, "layer": l, "seconds": round(w, 2)} for f, l, w in total.top_held(6)],
            "threads": [{"pid": pid, "tid": tid, "name": window.names.get(tid, ""), "cpu_s": round(cpu, 3)}
                        for pid, window in profiler.threads.items() for tid, cpu in window.threads.items() if cpu],
            "profiled_pids": sorted(profiler.stacks), "stacks": all_stacks, "rules": rules}


def per_request(cpu: dict, processes: list, requests_per_s: float | None) -> None:
    """Adds the workers' CPU per request, and each layer's share of it, in microseconds."""
    if cpu.get("why") or not requests_per_s:
        return
    busy = sum(p.cpu_percent for p in processes if p.role == WORKER) / 100.0  # CPU seconds per second
    cpu["worker_us_per_request"] = round(1e6 * busy / requests_per_s, 1)
    cpu["layer_us_per_request"] = {k: round(v / 100.0 * cpu["worker_us_per_request"], 1) for k, v in cpu["layers"].items()}


def run(settings: Settings) -> dict:
    entry = catalog.get(settings.name)
    if settings.op not in entry.ops:
        raise ValueError(f"{entry.name} does not serve {settings.op} (it serves {', '.join(entry.ops)})")
    protocol = protocols.get(settings.protocol)
    if why := protocol.unsupported(entry):
        raise ValueError(f"{entry.name} cannot serve {protocol.name}: {why}")
    suffix = "" if protocol.name == protocols.DEFAULT else f"-{protocol.name}"
    workdir = Path(settings.workdir) / f"{entry.name}-{settings.op}{suffix}"
    workdir.mkdir(parents=True, exist_ok=True)
    backend = backend_of(settings.op)
    with BackendSession([backend] if backend else [], workdir / "backends", settings.users,
                        settings.mongo_url, settings.redis_url) as backends:
        backend_ports = {p for p in (_backend_port(backends.mongo_url if backend == "mongo" else ""),
                                     _backend_port(backends.redis_url if backend == "redis" else "")) if p}
        port = free_port()
        pprof_port = free_port() if entry.language == "go" else None
        tls_flags = protocol.server_flags()
        args = ["--port", str(port), *backends.server_flags(), *tls_flags]
        if settings.workers:
            args += ["--workers", str(settings.workers)]
        env = {pprof.ENV: str(pprof_port)} if pprof_port else {}
        server = EntryProcess(entry.name, args, workdir / "server.log", env=env).start()
        try:
            result = _observe(entry, settings, server, port, backend_ports, workdir, pprof_port, protocol)
        finally:
            server.stop()
    result.update(entry=entry.name, op=settings.op, path=catalog.OPERATIONS[settings.op],
                  clients=settings.connections, seconds=settings.seconds, server=entry.server, protocol=protocol.name,
                  **({"streams": settings.streams} if protocol.http2 else {}),
                  framework=entry.framework, model=entry.model, workers=server.workers,
                  machine=machine.summary(machine.describe()), versions=versions.for_entry(entry.name, http2=protocol.http2),
                  workdir=str(workdir))
    return result


def settle(root: int, quiet_cpu_s: float = 0.05, step: float = 0.5, timeout: float = 30.0) -> None:
    """Wait until the entry's processes are booted: no new process and under quiet_cpu_s of CPU per
    step. Some supervisors say ready before their workers have imported the app (gunicorn's
    when_ready comes before it forks them): a window that starts then measures the imports."""
    def tree() -> tuple[int, float]:
        try:
            procs = [psutil.Process(root), *psutil.Process(root).children(recursive=True)]
        except psutil.NoSuchProcess:
            return 0, 0.0
        cpu = 0.0
        for proc in procs:
            try:
                times = proc.cpu_times()
                cpu += times.user + times.system
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                pass
        return len(procs), cpu

    deadline = time.monotonic() + timeout
    before = tree()
    while time.monotonic() < deadline:
        time.sleep(step)
        after = tree()
        if after[0] == before[0] and after[1] - before[1] < quiet_cpu_s:
            return
        before = after


def _observe(entry, settings: Settings, server: EntryProcess, port: int, backend_ports: set[int], workdir: Path,
             pprof_port: int | None, protocol: protocols.Protocol = protocols.H1) -> dict:
    tool = H2load() if protocol.http2 else Wrk()
    tls = protocol.tls
    spec = LoadSpec(base_url=server.url, path=catalog.OPERATIONS[settings.op], connections=settings.connections,
                    streams=settings.streams if protocol.http2 else 1, protocol=protocol.name,
                    duration_s=settings.seconds, users=settings.users, workdir=workdir, stem=tool.name)
    load: dict = {}
    settle(server.pid)
    conns = Connections(port, backend_ports)
    conns.mark_start()
    loader = threading.Thread(target=lambda: load.update(done=run_bounded(tool.command(spec), tool.time_limit(spec))),
                              daemon=True)
    loader.start()
    time.sleep(WARMUP_S)
    window = max(1.0, settings.seconds - WARMUP_S - 1.0)
    census = Census(server.pid)
    census.sample()
    conns.sample(census.pids())
    profiler = Profiler(entry, workdir, pprof_port, tls)
    if settings.profile:
        profiler.start(profiled_pids(census, conns), window)
    else:
        profiler.why = "profiling off (--no-profile)"
    end = time.monotonic() + window
    while time.monotonic() < end:
        time.sleep(SAMPLE_S)
        census.sample()
        conns.sample(census.pids())
    profiler.join(window + 60)
    loader.join(settings.seconds + 60)
    measured = tool.parse(tool.collect(spec, load["done"].stdout, load["done"].stderr)) if "done" in load else None
    conns.mark_end()
    connections = conns.result()
    whole = connections["backend_new_whole_load"]
    connections["backend_new_per_request"] = (round(whole / measured.requests, 3)
                                              if whole is not None and measured and measured.requests else None)
    processes = census.result(conns.serving_pids())
    cpu = cpu_section(entry, profiler, processes)
    per_request(cpu, processes, measured.requests_per_s if measured else None)
    return {
        "load": {"requests_per_s": measured.requests_per_s if measured else None,
                 "requests": measured.requests if measured else None,
                 "latency_ms": measured.latency_ms if measured else {},
                 "errors": sum(measured.errors.values()) if measured else None,
                 "non_2xx": measured.non_2xx if measured else None},
        "processes": [p.as_dict() for p in processes],
        "connections": connections,
        "cpu": cpu,
        "spawners": sum(p.role == SPAWNER for p in processes),
    }
