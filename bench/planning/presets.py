"""Named benchmarks (`--preset NAME`, listed by `bench presets`), each a Settings built from the catalog.

They reproduce well-known comparisons on this suite's stacks. The expected run time printed by
`bench presets` is computed from the plan (loads, warm-ups, server and backend starts) for this
machine's catalog; `--quick` scales durations and request counts down.

Each preset also says how many repeats its claims need (run as interleaved rounds, see
bench/planning/rounds.py): 3 where the stacks differ several-fold (a few repeats that do not overlap already
give an interval that excludes 1.0), 5 where the stacks are close and the machine's noise is of
the size of the differences. `--quick` keeps at most 2; an explicit `--repeat` wins.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from bench import defaults
from bench.capacity import search
from bench.planning import selection
from bench.planning.plan import Settings, build, format_duration
from harness import pinning
from servers.core import interpreters
from servers.core.cores import usable_cores


@dataclass(frozen=True)
class Preset:
    name: str
    summary: str
    servers: str
    ops: str
    tool: str
    connections: tuple[int, ...] = (defaults.CONNECTIONS,)
    threads: int | None = None
    duration_s: float = defaults.DURATION_S
    requests: int | None = None
    rates: tuple[float, ...] = ()
    keepalive: tuple[bool, ...] = (True,)
    workers: int | None = None
    server_cores: tuple[int, ...] = ()  # the cores axis (a count per stack); (): the default pinning
    pin: bool = True  # False: server and load tool share every core (the server on more than all but one)
    notes: tuple[str, ...] = field(default_factory=tuple)
    repeats: int = 3  # the repeats its comparison needs to be read with an interval (see the docstring)
    capacity: bool = False  # capacity ramps of every operation instead of fixed loads (bench/capacity/)
    protocols: tuple[str, ...] = ("h1",)  # harness.protocols: each stack on each, side by side
    interpreters: tuple[str, ...] = (interpreters.GIL,)  # the interpreter axis: what entries with the GIL run on
    equal_cores: bool = False  # workers at equal cores (bench/planning/plan.py workers_at_equal_cores)
    ramp: search.RampSettings | None = None  # its ramps' settings (None: the default; --quick: the quick ones)
    streams: int = 1  # HTTP/2 streams each connection keeps in flight (h2load -m)

    def settings(self, quick: bool = False, **overrides) -> Settings:
        s = Settings(
            servers=[e.name for e in selection.select_entries(self.servers)],
            ops=selection.select_ops(self.ops), tool=self.tool, connections=list(self.connections),
            threads=self.threads, duration_s=self.duration_s, requests=self.requests, rates=list(self.rates),
            keepalive=list(self.keepalive), workers=self.workers, server_cores=list(self.server_cores),
            pin=self.pin, preset=self.name, repeat=self.repeats, protocols=list(self.protocols),
            interpreters=list(self.interpreters), equal_cores=self.equal_cores, streams=self.streams)
        if self.ramp is not None:
            s.ramp = self.ramp
        if self.capacity:
            s.capacity_only, s.capacity_ops = True, list(s.ops)
        s = replace(s, **overrides)
        return s.scaled_quick() if quick else s

    def expected(self, quick: bool = False) -> str:
        plan = build(self.settings(quick))
        return f"{len(plan.runs)} runs, about {format_duration(plan.estimate_s())}"

    def command_line(self) -> str:
        protocols = "" if self.protocols == ("h1",) else f" --protocol {','.join(self.protocols)}"
        protocols += "" if self.interpreters == (interpreters.GIL,) else f" --interpreter {','.join(self.interpreters)}"
        protocols += " --equal-cores" if self.equal_cores else ""
        if self.capacity:
            placed = f" --server-cores {','.join(map(str, self.server_cores))}" if self.server_cores else ""
            placed += "" if self.pin else " --no-pin"
            placed += " --close" if self.keepalive == (True, False) else ""
            ramp = " (and the preset's ramp: see its notes)" if self.ramp is not None else ""
            return (f"--capacity --servers {self.servers} --ops {self.ops}{protocols}{placed} --repeat "
                    f"{self.repeats}{ramp}")
        parts = [f"--servers {self.servers}", f"--ops {self.ops}", f"--tool {self.tool}"]
        if self.rates:
            parts.append("--rate " + ",".join(f"{r:g}" for r in self.rates))
        else:
            parts.append("--connections " + ",".join(map(str, self.connections)))
        if self.streams > 1:
            parts.append(f"--streams {self.streams}")
        if self.threads:
            parts.append(f"--threads {self.threads}")
        if self.requests:
            parts.append(f"--requests {self.requests} (at most {self.duration_s:g} s)")
        else:
            parts.append(f"--duration {self.duration_s:g}")
        if self.keepalive == (False,):
            parts.append("--close-only")
        if self.workers:
            parts.append(f"--workers {self.workers}")
        if self.server_cores:
            parts.append(f"--server-cores {','.join(map(str, self.server_cores))}")
        if self.repeats > 1:
            parts.append(f"--repeat {self.repeats}")
        return " ".join(parts) + protocols


# One stack per server that terminates TLS (the waitress and wsgiref entries cannot), Go beside: the
# TLS comparison's stacks (docs/servers/*.md, "TLS").
TLS_STACKS = ("flask_gevent,flask_gunicorn,flask_gunicorn_gthread,flask_gunicorn_gevent,tornado,twisted,flask_threaded,"
              "starlette_granian,starlette_hypercorn,starlette_uvicorn,flask_uwsgi,sanic,stdlib_threaded,nethttp,fasthttp")

# The HTTP/2 comparison's stacks: one per server that speaks HTTP/2 (its spec's Http2), Go beside (docs/http2.md).
HTTP2_STACKS = ("starlette_hypercorn,starlette_granian,falcon_gunicorn_gthread,falcon_gunicorn_gevent,"
                "starlette_gunicorn_asgi,starlette_uvicorn,twisted,nethttp")

# The free-threading comparison (docs/free-threading.md, bench/free_threading/comparison.py renders it): each thread server
# that runs Flask on 3.13t, as its _ft entry and as its base entry on the GIL twin and on the default interpreter.
# waitress_ft is left out of the preset (`--servers` adds it back, about 19 minutes more): its one event-loop
# thread reads and writes every connection on every build, so the GIL is not what bounds it.
FREE_THREADING_STACKS = "flask_gunicorn_gthread,flask_gunicorn_gthread_ft,flask_granian,flask_granian_ft"
FREE_THREADING_OPS = "fortunes,json,hello"
# Its ramps: 3 s steps after a 0.5 s warm-up (at least 10 requests beyond the p99: 1,000 requests, so longer below
# 333/s, at most 6 s), a ladder x2 from 250/s, a failing rung measured again before the ladder stops on it, then
# bisection to 10 %. Every repeat climbs the same ladder from its foot, so the three repeats are independent and
# their min-max is an interval (a void step, or a miss while others took 30 % of the machine, is measured again
# too). The cost step at the common rate lasts until 2,000 requests (at most 8 s): 10 ms CPU ticks read to about 1 %.
FREE_THREADING_RAMP = search.RampSettings(step_s=3.0, warmup_s=0.5, search_factor=2.0, factor=2.0, max_step_s=6.0,
                                            confirm=True, cost_requests=2000, cost_max_s=8.0)


def free_threading_cores(usable: int | None = None) -> tuple[int, ...]:
    """The server core counts of the free-threading preset on this machine: 1 and 2, and half the machine where
    that is more (a count equal to every usable core runs unpinned, the load tool sharing the cores)."""
    n = usable or usable_cores()
    counts = [c for c in (1, 2) if c <= n] + ([n // 2] if n // 2 > 2 else [])
    return tuple(counts)


PRESETS: dict[str, Preset] = {p.name: p for p in (
    Preset("hello-ladder", "the hello route up the ladder: stdlib, stdlib threaded, tornado, sanic, Go net/http",
           servers="stdlib,stdlib_threaded,tornado,sanic,nethttp", ops="hello", tool="wrk",
           connections=(200,), threads=10, duration_s=10.0, repeats=5,
           notes=("stdlib's http.server listens with a backlog of 5: at c=200 expect dropped SYNs "
                  "(latencies near 1 s, the client's retransmit) or socket errors",)),
    Preset("echo-vs-flask", "Go Echo against the Flask dev server: hello, then Mongo per-request vs pooled",
           servers="echo,flask_dev", ops="hello,mongo-per-request,mongo-pooled", tool="ab",
           connections=(100,), requests=100_000, duration_s=30.0, keepalive=(False,),
           notes=("ab -n 100000 -c 100 without -k, as the original comparison; each run stops "
                  "at 100000 requests or 30 s, whichever comes first",)),
    Preset("redis-get", "GET of a Redis key through a pooled client: Go, Sanic and Flask on five servers",
           servers="gin,sanic,flask_dev,flask_threaded,flask_processes,flask_gevent", ops="redis-pooled",
           tool="wrk", connections=(100,), threads=8, duration_s=10.0, repeats=5,
           notes=("flask_processes refuses connections past its worker count: its errors are the finding",)),
    Preset("redis-clients", "the Python Redis clients side by side on Sanic and Flask on gevent: redis-py with "
                            "hiredis (the default), without it, valkey-glide, coredis; hello for the Redis path's "
                            "own cost, Go net/http for the ceiling",
           servers="sanic,sanic_redispy,sanic_glide,sanic_coredis,flask_gevent,flask_gevent_redispy,nethttp",
           ops="hello,redis-pooled", tool="wrk", connections=(50,), duration_s=8.0, repeats=3,
           notes=("the Redis path's CPU per request is cpu ms/req of redis-pooled minus that of hello, rows of "
                  "one stack; docs/backends/redis.md reads a run of it",)),
    Preset("constant-rate-wsgi", "Flask and Falcon on gunicorn, tornado, twisted and wsgiref at a constant 550 req/s",
           servers="flask_gunicorn,flask_tornado,flask_twisted,flask_wsgiref,"
                   "falcon_gunicorn,falcon_tornado,falcon_twisted,falcon_wsgiref",
           ops="hello", tool="vegeta", rates=(550.0,), duration_s=20.0,
           notes=("open loop: success rate and mean/p50/p95/p99/max latency are the result, "
                  "not requests/s",)),
    Preset("one-core", "Gin against Flask on gevent with one worker, the server pinned to one core",
           servers="gin,flask_gevent", ops="hello", tool="wrk", connections=(50, 100, 200),
           duration_s=10.0, workers=1, server_cores=(1,), repeats=3,
           notes=("taskset puts the server on one core and the load tool on the others",)),
    Preset("framework-share", "server alone vs server + Flask vs server + Falcon: hello and json on "
                              "gunicorn sync, gunicorn gevent and gevent",
           servers="bare_gunicorn,flask_gunicorn,falcon_gunicorn,"
                   "bare_gunicorn_gevent,flask_gunicorn_gevent,falcon_gunicorn_gevent,"
                   "bare_gevent,flask_gevent,falcon_gevent",
           ops="hello,json", tool="wrk", connections=(50,), duration_s=10.0,
           notes=("bare_* is a plain PEP 3333 callable (servers/apps/bare_app.py) on the same server: "
                  "what a request costs the framework is 1/rps(framework) - 1/rps(bare), rows of one run",
                  "gunicorn sync workers close every connection (no keep-alive): its rows include a "
                  "TCP connect per request")),
    Preset("what-users-pick", "what people deploy in 2026 against the classics: Flask on gunicorn and on granian, "
                              "Falcon on granian, Django on gunicorn, FastAPI, Starlette and Litestar on uvicorn, "
                              "Sanic, Gin",
           servers="flask_gunicorn,flask_granian,falcon_granian,django_gunicorn,fastapi_uvicorn,starlette_uvicorn,"
                   "litestar_uvicorn,sanic,gin",
           ops="hello,json,redis-pooled", tool="wrk", connections=(50,), duration_s=10.0, repeats=3,
           notes=("every stack with its catalog default of workers (one per core); read req/s beside "
                  "cpu ms/req: on 2 shared cores the load tool takes its share too",)),
    Preset("capacity-curves", "each stack's capacity within p99 <= 25 ms and its whole latency/throughput "
                              "curve: hello, json and redis-pooled, Flask to Go",
           servers="flask_gunicorn,flask_gevent,falcon_gunicorn_gthread,sanic,fastapi_uvicorn,starlette_granian,"
                   "tornado,nethttp", ops="hello,json,redis-pooled", tool="vegeta", capacity=True, repeats=3,
           notes=("open-loop ramps: 5 s steps after a 1 s warm-up, a ladder x2 from 250/s, a failing step "
                  "measured twice, bisection to 10 %; the load tool's own limit is measured first",)),
    Preset("tls-cost", "what TLS costs each server: one stack per server in plaintext HTTP/1.1 and over TLS "
                       "terminated by the server itself, capacity and CPU per request on kept connections and "
                       "with a connection (a handshake) per request",
           servers=TLS_STACKS, ops="hello", tool="vegeta", capacity=True, keepalive=(True, False),
           protocols=("h1", "h1-tls"), repeats=3,
           notes=("the report's side-by-side table gives, per stack, +TLS µs per request on a kept connection "
                  "and per new connection beyond it (the handshake), at one common rate for both protocols",
                  "the load tool's own limit is measured on each protocol (TLS costs vegeta too)")),
    Preset("http2-cost", "what HTTP/2 costs each server that speaks it: one stack per server on h1, h1 over TLS, h2 "
                         "(ALPN) and h2c (prior knowledge), capacity and CPU per request, Go beside",
           servers=HTTP2_STACKS, ops="hello", tool="vegeta", capacity=True, protocols=("h1", "h1-tls", "h2", "h2c"),
           repeats=3,
           notes=("the report's protocol-axis table gives each stack's capacity and CPU per request on the four "
                  "protocols; a server without one (twisted: no h2c) is left out of it, with the reason",
                  "over HTTP/2 vegeta's requests are streams of one connection (Go's transport); the closed loop "
                  "with streams per connection is --tool h2load --streams N (docs/benchmarks.md)")),
    Preset("baseline-h2", "HTTP/2 as HttpArena's baseline-h2 serves it: each server that speaks h2 over TLS (ALPN), "
                          "256 and 1,024 connections of 100 streams each (h2load -m 100), Go beside",
           servers=HTTP2_STACKS, ops="hello", tool="h2load", connections=(256, 1024), streams=100, protocols=("h2",),
           repeats=3,
           notes=("25,600 and 102,400 requests in flight: past every server's MAX_CONCURRENT_STREAMS a stream is "
                  "refused, and the connection limits end runs (Hypercorn's 1,000 requests, zttp's 4,096 streams: "
                  "h2load does not reconnect, so such a run fails and says what ended it)",
                  "h2load speaks no HTTP/1.1 with streams: HTTP/1.1 over TLS beside it is the http2-cost preset's")),
    Preset("free-threading", "the free-threading answer, controlled: each free-threaded stack (3.13t) against its "
                             "base entry on the GIL twin (CPython 3.13 with the GIL, the same source, flags and "
                             "package versions) and on the default interpreter, threads of one process against "
                             "processes at equal cores, on 1 and 2 server cores: capacity, CPU per request, memory",
           servers=FREE_THREADING_STACKS, ops=FREE_THREADING_OPS, tool="vegeta", capacity=True, repeats=3,
           server_cores=free_threading_cores(), interpreters=(interpreters.GIL_TWIN, interpreters.GIL),
           equal_cores=True, ramp=FREE_THREADING_RAMP,
           notes=("needs ./setup.sh --gil-twin (3.13t, its GIL twin and their venvs); run it on a quiet machine: "
                  "docs/free-threading.md is written from it by `./bench.sh free-threading RESULTS` and refuses "
                  "to draw a conclusion from a run that shared the machine",
                  "workers at equal cores: gunicorn gthread on 3.13t one process (16 threads), on the GIL one "
                  "process per core (16 threads each); granian one worker per core on both (threads of one "
                  "process on 3.13t, processes on the GIL)",
                  "the ramps: 3 s steps after a 0.5 s warm-up (longer below 333/s: 1,000 requests for the "
                  "p99), a ladder x2 from 250/s, a failing rung measured again, bisection to 10 %; every repeat "
                  "from the same ladder (independent: the interval is the min-max of the 3 repeats)",
                  "memory: each stack's PSS (shared pages split among its processes) at the common rate",
                  *(("the count equal to every usable core runs unpinned: the load tool and the backends share "
                     "those cores, so its cells are marked and no threads-against-processes or scaling verdict is "
                     f"drawn from them; what would isolate 2 server cores: {pinning.what_isolates(2)}; there the same "
                     "command, ./bench.sh --preset free-threading, pins them apart",)
                    if usable_cores() in free_threading_cores() else ()))),
)}


def get(name: str) -> Preset:
    try:
        return PRESETS[name]
    except KeyError:
        raise KeyError(f"no preset {name!r}; `bench presets` lists {', '.join(PRESETS)}") from None
