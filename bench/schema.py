"""The one result schema: a Measurement parsed from a load tool, a Result per run, JSON Lines I/O.

A Result is written for every planned run, also for the ones that failed (status "failed" with
the reason), so that a stack that breaks under load shows up with its errors instead of vanishing.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Iterator

from loadtools.measurement import (ERROR_KINDS, LATENCY_KEYS, PERCENTILES, Measurement, empty_errors,
                                  empty_latency)

SCHEMA_VERSION = 1

__all__ = ["ERROR_KINDS", "LATENCY_KEYS", "PERCENTILES", "SCHEMA_VERSION", "Measurement", "Result", "empty_errors",
           "empty_latency"]


@dataclass
class Result:
    """One run: which stack and route, which tool and load, what it measured, on what machine."""

    # the stack
    entrypoint: str
    language: str = ""
    framework: str = ""
    server: str = ""
    model: str = ""
    tags: list[str] = field(default_factory=list)
    dev_only: bool = False
    dev_only_reason: str = ""
    caveats: list[str] = field(default_factory=list)  # the catalog's known limitations of the stack
    workers: int | None = None
    # the interpreter axis (servers/core/interpreters.py): the key of what the server ran on ("" for Go, a
    # --target, files written before the axis), and what the server's own process said it runs on (its launcher
    # checks the key: version, build "gil" or "free-threaded", GIL "on" or "off" at start, executable)
    interpreter: str = ""
    interpreter_facts: dict = field(default_factory=dict)
    # the cores the server ran on: the cores axis's count, else its pinned cores (all usable ones unpinned)
    server_cores: int | None = None
    # the server's proportional set size (shared pages split among the processes that map them), summed over
    # its process tree, at its peak: the memory the stack takes, where RSS counts a forked worker's shared
    # pages once per worker (bench/run/sampler.py)
    server_peak_pss_mb: float | None = None
    # the route
    operation: str = ""
    path: str = ""
    url: str = ""
    ids: str = ""  # "random 1..N" (wrk, vegeta), "fixed K" (ab, hey) or "" for routes without id
    # the load
    tool: str = ""
    tool_version: str = ""
    connections: int | None = None
    streams: int | None = None  # HTTP/2 streams each connection kept in flight (h2load -m); None: one (HTTP/1.1)
    threads: int | None = None
    rate: float | None = None  # offered requests/s of an open-loop run
    loop: str = "closed"  # "closed" (N connections, each waits for its answer) or "open" (constant rate)
    keepalive: bool = True
    # the protocol (harness.protocols): "h1" HTTP/1.1 in plaintext (every file written before the axis), "h1-tls"
    # HTTP/1.1 over TLS terminated by the stack's server, "h2" HTTP/2 over that TLS by ALPN, "h2c" HTTP/2 in
    # cleartext by prior knowledge; over TLS, whether the load tool verified the
    # server's certificate against the suite's CA (loadtools: Tool.certificate says why not), else None
    protocol: str = "h1"
    tls_verified: bool | None = None
    duration_s: float = 0.0
    requests_target: int | None = None
    # what was measured
    requests: int = 0
    requests_per_s: float = 0.0
    latency_ms: dict[str, float | None] = field(default_factory=empty_latency)
    errors: dict[str, int] = field(default_factory=empty_errors)
    errors_total: int = 0
    non_2xx: int = 0
    status_codes: dict[str, int] = field(default_factory=dict)
    success_ratio: float | None = None
    error_samples: list[str] = field(default_factory=list)
    server_cpu_s: float | None = None
    cpu_per_request_ms: float | None = None
    server_peak_rss_mb: float | None = None
    # what the backend alone served at this concurrency (backends.ceiling), for backend routes
    backend_ceiling: dict = field(default_factory=dict)
    # the local backends' own CPU meanwhile (their process trees: redis-server, FerretDB, PostgreSQL), and per
    # request: beside the server's, what a backend route's request cost the machine (None: no local backends)
    backend_cpu_s: float | None = None
    backend_cpu_per_request_ms: float | None = None
    # the cell's self-check (bench/selfcheck.py): the load tool's own CPU, its cores' busy share, the
    # connections actually open, rate x mean latency / connections; void_reasons non-empty: the stack
    # was not the bound (shown, never ranked)
    tool_cpu_s: float | None = None
    tool_cpu_pct: float | None = None
    tool_cores_busy_pct: float | None = None
    connections_open: int | None = None
    littles_ratio: float | None = None
    void_reasons: list[str] = field(default_factory=list)
    # CPU the machine spent meanwhile on processes that are not the server, the tool, the backends or
    # the benchmark itself, % of all its cores (bench/selfcheck.py): what a shared machine cost the cell
    foreign_cpu_pct: float | None = None
    # a step of a capacity ramp (bench/capacity/): mode "capacity" (or "calibration", the tool's own
    # limit against a trivial server), the ramp's phase, what was sent of the offered `rate`, how late,
    # vegeta's latency from the actual send (latency_ms counts from the intended send), the SLO
    mode: str = ""
    phase: str = ""
    sent_rate: float | None = None
    send_lag_p99_ms: float | None = None
    service_latency_ms: dict = field(default_factory=dict)
    slo: dict = field(default_factory=dict)
    slo_held: bool | None = None
    slo_misses: list[str] = field(default_factory=list)
    # the context
    status: str = "ok"  # "ok" or "failed" (then failure says why)
    failure: str = ""
    notes: list[str] = field(default_factory=list)
    target: str = ""  # the --target URL when the server was started elsewhere
    # where the pieces ran (bench/run/hosts.py): the backend this route used, its URL without credentials
    # ({} for routes without one; with --target, the URLs given by --mongo-url/--redis-url), and the
    # load: host names of the processes that sent it, how many load processes (locust's workers)
    # and the locust master's address ("" for a single load process)
    backends: dict[str, str] = field(default_factory=dict)
    load_hosts: list[str] = field(default_factory=list)
    load_workers: int | None = None
    load_master: str = ""
    pinning: dict = field(default_factory=dict)
    # which cores each piece had (harness/pinning.placement: "server", "load tool", each local backend; every
    # usable core where unpinned), and what shared the server's cores in this run: the load tool, the route's
    # backend (harness/pinning.sharing). A cell with either is never compared on scaling (bench/free_threading/comparison.py)
    placement: dict[str, list[int]] = field(default_factory=dict)
    server_options: dict = field(default_factory=dict)  # options handed to the server (bench/planning/plan.py RunSpec's)
    shared_cores: list[str] = field(default_factory=list)
    machine: dict = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)
    preset: str = ""
    repeat: int = 0
    repeats: int = 1
    # how the repeats ran and what the noise probe saw around this run (bench/planning/rounds.py, bench/noise.py)
    rounds_order: str = ""  # "interleaved" or "sequential" ("" in files written before it existed)
    sequence: int = 0  # the run's place in the session: 1, 2, ... (reruns included)
    probe_before: dict = field(default_factory=dict)  # {"cpu_ms": .., "loopback_ms": ..}; {} without probe
    probe_after: dict = field(default_factory=dict)
    probe_moved_pct: float | None = None
    noise_threshold_pct: float | None = None
    noisy: bool = False  # the probe moved more than the threshold during this run
    steal_pct: float | None = None  # CPU steal time over the run, % of all CPU time
    rerun: int = 0  # 0 the first measurement, 1.. a --rerun-noisy repeat of it
    superseded: bool = False  # a noisy run measured again: kept in the file, left out of the tables
    raw_output: str = ""  # file name of the tool's raw output, relative to the results file
    timestamp: str = ""
    schema_version: int = SCHEMA_VERSION

    def apply(self, m: Measurement) -> "Result":
        m.finish()
        self.requests, self.duration_s, self.requests_per_s = m.requests, m.duration_s, m.requests_per_s
        self.latency_ms = dict(m.latency_ms)
        self.errors = dict(m.errors)
        self.errors_total = m.errors_total
        self.non_2xx, self.status_codes = m.non_2xx, dict(m.status_codes)
        self.success_ratio = m.success_ratio
        self.error_samples = list(m.error_samples)[:5]
        return self

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def void(self) -> bool:
        return bool(self.void_reasons)

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=False)

    @classmethod
    def from_dict(cls, data: dict) -> "Result":
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in _before_the_placement(_before_the_axes(data)).items() if k in known})


def _before_the_axes(data: dict) -> dict:
    """A line written before the interpreter and cores axes, given what it meant, so that it compares with a
    newer one (bench compare): a Python entry started here ran on its own interpreter, on the cores its pinning
    gave the server (all of the machine's usable ones unpinned)."""
    if "server_cores" in data or not data.get("machine"):
        return data
    data = dict(data)
    pins = data.get("pinning") or {}
    data["server_cores"] = (len(pins["server_cpus"]) if pins.get("enabled") and pins.get("server_cpus")
                            else data["machine"].get("usable_cores"))
    if data.get("language") == "python" and not data.get("target") and not data.get("interpreter"):
        from servers.core import catalog  # the catalog reads the specs: only for old lines

        entry = catalog.BY_NAME.get(data.get("entrypoint", ""))
        data["interpreter"] = entry.interpreter if entry is not None else ""
    return data


def _before_the_placement(data: dict) -> dict:
    """A line written before runs recorded what shared the server's cores, given what its pinning record says: with
    nothing pinned every piece ran on every core (the load tool, and the route's local backend, on the server's);
    pinned, the backends "with the server" on its cores. So an old run's 2-core cells are marked as they were run."""
    if "shared_cores" in data or not data.get("pinning") or data.get("target"):
        return data
    from harness import pinning
    from servers.core import catalog

    pins = data["pinning"]
    local = [b for b in (data.get("backends") or {}) if pins.get("backends") != "none"]
    server = set(pins.get("server_cpus") or ()) if pins.get("enabled") else {"all"}
    tool = set(pins.get("tool_cpus") or ()) if pins.get("enabled") else {"all"}
    backends = set(pins.get("backend_cpus") or ()) if pins.get("enabled") and pins.get("backends") != "unpinned" \
        else {"all"}
    route_backend = catalog.backend_of(data.get("operation", ""))
    shared = [pinning.TOOL] if server & tool else []
    if route_backend in local and server & backends:
        shared.append(route_backend)
    return {**data, "shared_cores": shared}


def append(path: Path, result: Result) -> None:
    """Append one result and flush, so an interrupted benchmark keeps what it measured."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as fh:
        fh.write(result.to_json() + "\n")
        fh.flush()


def read(path: Path) -> list[Result]:
    return list(iter_results(path))


def iter_results(path: Path) -> Iterator[Result]:
    with Path(path).open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            line = line.strip()
            if not line:
                continue
            try:
                yield Result.from_dict(json.loads(line))
            except (json.JSONDecodeError, TypeError) as exc:
                raise ValueError(f"{path}:{number}: not a bench result line ({exc})") from None
