"""Cells that check themselves: was the stack the bound of this run, or the load tool, or the backend?

Watch measures, around any load tool's run: the tool's own CPU (the CPU time of the children this
process reaped meanwhile: the tool, nothing else runs as our child then), the busy share of the
tool's cores (/proc/stat: the tool and whatever else ran there) and the TCP connections actually
open to the server (sampled while the run lasts), and the foreign load: the machine's CPU used
meanwhile by processes that are neither this benchmark (the tool included), nor the server, nor
the local backends (known_pids). `void_reasons` turns those numbers into the
reasons a cell is void; a void cell is shown with its reasons and left out of rankings, ratios
and capacity.

The rules, and why:
- the tool's own CPU >= TOOL_SATURATED of its cores: the tool could not send faster, so the
  stack's number is the tool's.
- open loop: fewer hits sent than offered (SENT_SHORT) while the tool's cores were busy (CORES_BUSY,
  with the tool or anything else: a starved tool sends late just as a saturated one), or a rate
  above the tool's own measured limit (bench/run/ramper.py measures it against the fastest trivial
  server at the start of a capacity run). Sends that fell behind while the tool had CPU to spare
  mean every worker waited on the stack: the stack did not hold the rate (not void; the latency
  counts from the intended send, loadtools/openloop.py).
- closed loop, Little's law: N connections each waiting for its answer keep N requests in flight,
  so rate x mean latency ~ N (N x S with S HTTP/2 streams per connection: h2load -m). Below (1 - LITTLE_TOLERANCE) x N the tool, not the stack, spent
  the time between answers (or connections were not open: connections_open says which); not
  checked when more than ERRORS_EXEMPT of the attempts got no answer (a stack refusing
  connections is a finding about the stack), and void only when the tool used LITTLE_TOOL_BUSY of
  its cores (an idle tool did not set the pace: the shortfall is the stack's reconnects or a short
  run's edges; the report still shows rate x mean beside the connections). Above N
  is not voided: wrk adds estimated samples for coordinated omission after the run, which lifts
  its mean (bench/capacity/tally.py's note says how far that estimate is trusted).
- the backend at >= BACKEND_BOUND of its own ceiling (bench/run/ceiling.py, closed and open loop alike:
  a step's requests/s over what the backend alone served): the backend is the bound.
- a cell, not a step (backend_bound): where the local backends share the server's cores (harness/pinning.py
  on fewer than OWN_BACKEND_CORES cores, or no pinning), the cores serve the server and the backends
  together; when the backends took BACKEND_CPU_BOUND or more of the CPU the requests cost there (their CPU
  per request over theirs and the server's), the cell's rate measures the backend as much as the stack: it
  is shown with its server CPU per request (the stack's own cost) and never ranked nor used as a ratio's
  denominator. Its steps still count for the ramp (the rates held are real, for this placement).
"""
from __future__ import annotations

import resource
import statistics
import threading
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

import psutil

from servers.core import catalog, gil_guard

TOOL_SATURATED = 0.90  # the tool's CPU over the wall time of its cores
CORES_BUSY = 0.95  # the tool's cores busy (the tool and anything else): the tool could get no more CPU
SENT_SHORT = 0.98  # open loop: sent below this share of offered = the pacer fell behind
LITTLE_TOLERANCE = 0.25  # closed loop: rate x mean latency within 25 % of the connections
BACKEND_BOUND = 0.85  # share of the backend's ceiling
BACKEND_CPU_BOUND = 0.5  # the backends' share of the CPU a request cost on cores they share with the server
SAMPLE_EVERY_S = 0.5
ERRORS_EXEMPT = 0.01
LITTLE_TOOL_BUSY = 0.5  # Little's law voids a cell only when the tool used at least this share of its cores  # Little's law is not checked past this share of requests without an answer


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _cpu_times(cpus: list[int]) -> tuple[float, float]:
    """(busy, total) seconds of the given cpus since boot (all cpus when the list is empty)."""
    per = psutil.cpu_times(percpu=True)
    chosen = [per[c] for c in cpus if c < len(per)] or per
    busy = total = 0.0
    for t in chosen:
        idle = t.idle + getattr(t, "iowait", 0.0)
        whole = sum(t)
        # guest time is already counted in user on Linux
        whole -= getattr(t, "guest", 0.0) + getattr(t, "guest_nice", 0.0)
        busy += whole - idle
        total += whole
    return busy, total


def _process_cpu() -> float:
    """CPU seconds the machine spent in processes since boot (user, nice, system: not interrupts,
    whose loopback share is the load's own, nor steal, the noise probe's)."""
    t = psutil.cpu_times()
    return t.user + t.nice + t.system


def _own_cpu() -> float:
    """CPU seconds of this process and the children it reaped (the load tools)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime + _children_cpu()


def trees_cpu(pids: list[int]) -> dict[int, float]:
    """pid -> CPU seconds of its process tree (the server's workers, a backend's children)."""
    out = {}
    for pid in pids:
        try:
            root = psutil.Process(pid)
            procs = [root, *root.children(recursive=True)]
        except psutil.Error:
            continue
        cpu = 0.0
        for proc in procs:
            try:
                t = proc.cpu_times()
                cpu += t.user + t.system + t.children_user + t.children_system
            except psutil.Error:
                continue
        out[pid] = cpu
    return out


def open_connections(host: str, port: int) -> int:
    """Client-side TCP connections established to host:port (each connection counted once)."""
    try:
        conns = psutil.net_connections(kind="tcp")
    except (psutil.AccessDenied, OSError):
        return -1
    return sum(1 for c in conns if c.raddr and c.raddr.port == port and c.status == psutil.CONN_ESTABLISHED
               and (c.raddr.ip == host or host in ("localhost", "")))


@dataclass
class Watched:
    tool_cpu_s: float
    tool_cpu_pct: float  # the tool's CPU over the wall time of its cores, %
    tool_cores_busy_pct: float  # everything that ran on those cores, %
    connections_open: int | None  # median of the samples taken while the run lasted (None: not sampled)
    wall_s: float
    foreign_cpu_pct: float | None = None  # the machine's CPU used by others meanwhile, % of all its cores


class Watch:
    """with Watch(url, tool_cpus) as w: run the tool (and reap it) ... then w.result."""

    def __init__(self, url: str, tool_cpus: list[int], sample_connections: bool = True, known_pids=lambda: []):
        parts = urlsplit(url)
        self.known_pids = known_pids  # () -> the server's and the backends' pids: their CPU is not foreign
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.cpus = list(tool_cpus)
        self.sample_connections = sample_connections
        self.samples: list[int] = []
        self.result: Watched | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self._stop.wait(SAMPLE_EVERY_S):
            count = open_connections(self.host, self.port)
            if count >= 0:
                self.samples.append(count)

    def __enter__(self) -> "Watch":
        self._wall = time.monotonic()
        self._cpu = _children_cpu()
        self._busy, self._total = _cpu_times(self.cpus)
        self._machine = _process_cpu()
        self._own = _own_cpu()
        self._known = trees_cpu(list(self.known_pids()))
        if self.sample_connections:
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(5)
        wall = time.monotonic() - self._wall
        cpu = _children_cpu() - self._cpu
        busy, total = _cpu_times(self.cpus)
        machine = _process_cpu()
        known = trees_cpu(list(self.known_pids()))
        ours = _own_cpu() - self._own + sum(cpu - self._known.get(pid, 0.0) for pid, cpu in known.items())
        cores = len(psutil.cpu_times(percpu=True)) or 1
        foreign = max(0.0, (machine - self._machine) - ours)
        ncores = max(1, len(self.cpus) or psutil.cpu_count() or 1)
        # the first and last samples catch the tool starting and draining: the middle ones count
        middle = self.samples[1:-1] or self.samples
        self.result = Watched(
            tool_cpu_s=round(cpu, 3), tool_cpu_pct=round(100 * cpu / (wall * ncores), 1) if wall else 0.0,
            tool_cores_busy_pct=round(100 * (busy - self._busy) / (total - self._total), 1)
            if total > self._total else 0.0,
            connections_open=int(statistics.median(middle)) if middle else None, wall_s=round(wall, 3),
            foreign_cpu_pct=round(min(100.0, 100 * foreign / (wall * cores)), 1) if wall else None)


@dataclass
class Check:
    """The facts a cell's verdict rests on (None: not known for this run)."""

    loop: str  # "closed" or "open"
    tool_cpu_pct: float | None = None
    tool_cores_busy_pct: float | None = None
    connections: int | None = None  # asked (closed loop)
    streams: int = 1  # HTTP/2 streams in flight per connection: Little's law counts connections x streams
    connections_open: int | None = None
    requests_per_s: float | None = None
    mean_latency_ms: float | None = None
    offered_rate: float | None = None  # open loop
    sent_rate: float | None = None
    tool_limit_rate: float | None = None  # the tool's own limit measured in this run
    backend_share: float | None = None
    error_share: float = 0.0  # requests without an answer, of all attempted
    gil_reenabled: str | None = None  # a free-threaded server said the GIL came back (servers/core/gil_guard.py)


def backend_share(result) -> float | None:
    """A run's requests/s over what its backend alone served (bench/run/ceiling.py); None without a ceiling."""
    ceiling = (result.backend_ceiling or {}).get("requests_per_s")
    return result.requests_per_s / ceiling if ceiling and result.ok else None


def in_flight(connections: int | None, streams: int | None = 1) -> int | None:
    """Requests a closed loop keeps in flight: one per connection, or one per HTTP/2 stream (h2load -m)."""
    return connections * max(1, streams or 1) if connections else connections


def littles_ratio(connections: int | None, rps: float | None, mean_ms: float | None) -> float | None:
    """rate x mean latency over the requests kept in flight (the connections, x streams over HTTP/2): ~1 when
    every one of them kept a request in flight."""
    if not connections or not rps or mean_ms is None:
        return None
    return rps * mean_ms / 1000.0 / connections


def void_reasons(c: Check) -> list[str]:
    """Why the stack was not the bound of this cell ([] when it was)."""
    why = []
    saturated = c.tool_cpu_pct is not None and c.tool_cpu_pct >= 100 * TOOL_SATURATED
    if saturated:
        why.append(f"load tool saturated: its CPU {c.tool_cpu_pct:.0f}% of its cores")
    if c.loop == "open":
        if c.tool_limit_rate and c.offered_rate and c.offered_rate > c.tool_limit_rate:
            why.append(f"offered {c.offered_rate:,.0f}/s is above the load tool's own limit "
                       f"({c.tool_limit_rate:,.0f}/s against a trivial server)")
        behind = c.offered_rate and c.sent_rate is not None and c.sent_rate < SENT_SHORT * c.offered_rate
        starved = c.tool_cores_busy_pct is not None and c.tool_cores_busy_pct >= 100 * CORES_BUSY
        if behind and (saturated or starved):
            why.append(f"the tool sent {c.sent_rate:,.0f}/s of {c.offered_rate:,.0f}/s offered with its cores "
                       f"{c.tool_cores_busy_pct or 0:.0f}% busy (its own CPU {c.tool_cpu_pct or 0:.0f}%)")
    else:
        flight = in_flight(c.connections, c.streams)
        ratio = littles_ratio(flight, c.requests_per_s, c.mean_latency_ms)
        # with socket errors the attempts that got no answer hold connections too: not the tool's doing;
        # and a tool with CPU to spare did not set the pace (a stack that closes every connection, or
        # answers slower than a short run's edges allow, falls short of the law on its own account)
        busy = c.tool_cpu_pct is not None and c.tool_cpu_pct >= 100 * LITTLE_TOOL_BUSY
        if ratio is not None and ratio < 1 - LITTLE_TOLERANCE and c.error_share <= ERRORS_EXEMPT and busy:
            opened = f", {c.connections_open} open" if c.connections_open is not None else ""
            streams = f" x {c.streams} streams" if c.streams > 1 else ""
            why.append(f"Little's law broken: rate x mean latency = {ratio * flight:,.1f} in flight "
                       f"for {c.connections} connections{streams}{opened} (tolerance ±{LITTLE_TOLERANCE:.0%}), the tool "
                       f"at {c.tool_cpu_pct:.0f}% CPU: the tool set the pace")
    if c.backend_share is not None and c.backend_share >= BACKEND_BOUND:
        why.append(f"backend bound: {c.backend_share:.0%} of what the backend alone serves")
    if c.gil_reenabled:
        why.append(f"the GIL came back on the free-threaded build: {c.gil_reenabled}")
    return why


def gil_reenabled(server) -> str | None:
    """What a free-threaded entry said on stderr when the GIL came back (None: it did not; not free-threaded)."""
    if server is None or not catalog.get(server.name).free_threaded:
        return None
    return gil_guard.reenabled(server.stderr_text(1 << 20))


def backends_share_server_cores(pinning: dict) -> bool:
    """Whether a run's local backends ran on the server's cores (harness/pinning.py's record): pinned with the
    server, or nothing pinned (every process on every core). False where no local backend ran."""
    if not pinning or pinning.get("backends") == "none":
        return False
    if not pinning.get("enabled"):
        return True
    server, backends = set(pinning.get("server_cpus") or ()), set(pinning.get("backend_cpus") or ())
    return pinning.get("backends") == "unpinned" or bool(server & backends)


def backend_cpu_share(server_ms: float | None, backend_ms: float | None) -> float | None:
    """The backends' share of the CPU a request cost (theirs and the server's); None where either is unknown."""
    if server_ms is None or backend_ms is None or server_ms + backend_ms <= 0:
        return None
    return backend_ms / (server_ms + backend_ms)


def backend_bound(results: list) -> list[str]:
    """Why a cell (a closed-loop configuration's runs, a capacity's steps) measures its backend as much as its
    stack ([] when it does not): the local backends shared the server's cores and took BACKEND_CPU_BOUND or more
    of the CPU its requests cost (medians over the runs)."""
    measured = [r for r in results if r.cpu_per_request_ms is not None and r.backend_cpu_per_request_ms is not None]
    if not measured or not backends_share_server_cores(measured[0].pinning):
        return []
    server = statistics.median(r.cpu_per_request_ms for r in measured)
    backend = statistics.median(r.backend_cpu_per_request_ms for r in measured)
    share = backend_cpu_share(server, backend)
    if share is None or share < BACKEND_CPU_BOUND:
        return []
    return [f"backend-bound: the local backends took {share:.0%} of the CPU a request cost on the cores they share "
            f"with the server ({1000 * backend:,.0f} µs per request against the server's {1000 * server:,.0f} µs): "
            f"the rate measures the backend as much as the stack (its server CPU per request still holds)"]
