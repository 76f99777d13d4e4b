"""The catalog: the one declarative list of every entrypoint of the suite.

Modules on disk, `python -m servers`, the README table, compose, the benchmark matrix and the test
parametrization are all derived from ENTRIES. A Python entry names a framework app and a server
adapter; APPS and SERVERS map those names to import paths, so nothing imports a framework it does
not serve (`pip install '.[flask]'` alone runs the Flask stacks).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

from servers.core.cores import usable_cores

# Operations of the route contract: name -> path template ({id} is a user id).
OPERATIONS: dict[str, str] = {
    "hello": "/",
    "json": "/json",
    "mongo-pooled": "/mongo/pooled/{id}",
    "mongo-per-request": "/mongo/per-request/{id}",
    "redis-pooled": "/redis/pooled",
    "redis-per-request": "/redis/per-request",
}
HELLO_OPS = ("hello", "json")
MONGO_OPS = ("mongo-pooled", "mongo-per-request")
REDIS_OPS = ("redis-pooled", "redis-per-request")
ALL_OPS = HELLO_OPS + MONGO_OPS + REDIS_OPS

# Operation families (compose services are per family) and the backend service each needs; a
# backend family's operations are (pooled, per-request). BACKENDS: in the order they are started.
FAMILIES: dict[str, tuple[str, ...]] = {"hello": HELLO_OPS, "mongo": MONGO_OPS, "redis": REDIS_OPS}
FAMILY_BACKENDS: dict[str, str | None] = {"hello": None, "mongo": "mongo", "redis": "redis"}
BACKENDS: tuple[str, ...] = ("mongo", "redis")


def family_of(operation: str) -> str | None:
    """The family of an operation of the contract, None for an unknown one."""
    return next((family for family, ops in FAMILIES.items() if operation in ops), None)


def backend_of(operation: str) -> str | None:
    """'mongo', 'redis' or None: the backend service an operation needs."""
    family = family_of(operation)
    return FAMILY_BACKENDS[family] if family else None

# Framework apps: name -> (import path of the factory, interface it speaks).
APPS: dict[str, tuple[str, str]] = {
    "flask": ("servers.apps.flask_app:create_app", "wsgi"),
    "falcon": ("servers.apps.falcon_app:create_app", "wsgi"),
    "sanic": ("servers.apps.sanic_app:create_app", "sanic"),
    "tornado": ("servers.apps.tornado_app:create_app", "tornado"),
    "twisted": ("servers.apps.twisted_app:create_resource", "twisted"),
    "stdlib": ("servers.apps.stdlib_app:create_handler", "stdlib"),
    "bare": ("servers.apps.bare_app:create_app", "wsgi"),
    "falcon_asgi": ("servers.apps.falcon_asgi_app:create_app", "asgi"),
    "starlette": ("servers.apps.starlette_app:create_app", "asgi"),
    "fastapi": ("servers.apps.fastapi_app:create_app", "asgi"),
    "sanic_asgi": ("servers.apps.sanic_app:create_asgi_app", "asgi"),
}

# Server adapters: name -> (import path of serve(), interface it serves).
SERVERS: dict[str, tuple[str, str]] = {
    "werkzeug": ("servers.adapters.werkzeug_dev:serve_single", "wsgi"),
    "werkzeug-threaded": ("servers.adapters.werkzeug_dev:serve_threaded", "wsgi"),
    "werkzeug-processes": ("servers.adapters.werkzeug_dev:serve_processes", "wsgi"),
    "gunicorn-sync": ("servers.adapters.gunicorn_server:serve_sync", "wsgi"),
    "gunicorn-gthread": ("servers.adapters.gunicorn_server:serve_gthread", "wsgi"),
    "gunicorn-gevent": ("servers.adapters.gunicorn_server:serve_gevent", "wsgi"),
    "gevent": ("servers.adapters.gevent_prefork:serve", "wsgi"),
    "tornado-wsgi": ("servers.adapters.tornado_server:serve_wsgi", "wsgi"),
    "twisted-wsgi": ("servers.adapters.twisted_server:serve_wsgi", "wsgi"),
    "wsgiref": ("servers.adapters.wsgiref_server:serve", "wsgi"),
    "waitress": ("servers.adapters.waitress_server:serve", "wsgi"),
    "uwsgi": ("servers.adapters.uwsgi_server:serve", "wsgi"),
    "granian-wsgi": ("servers.adapters.granian_server:serve_wsgi", "wsgi"),
    "sanic": ("servers.adapters.sanic_server:serve", "sanic"),
    "tornado": ("servers.adapters.tornado_server:serve_native", "tornado"),
    "twisted": ("servers.adapters.twisted_server:serve_native", "twisted"),
    "http.server": ("servers.adapters.stdlib_server:serve_single", "stdlib"),
    "http.server-threaded": ("servers.adapters.stdlib_server:serve_threaded", "stdlib"),
    "uvicorn": ("servers.adapters.uvicorn_server:serve", "asgi"),
    "granian-asgi": ("servers.adapters.granian_server:serve_asgi", "asgi"),
}

# Go frameworks are commands of the Go module in servers/go (cmd/<name>).
GO_COMMANDS = ("echo", "gin", "nethttp")

# What a stack runs, whose versions a benchmark result records (bench/versions.py): the Python
# packages of each framework, server and Mongo driver (every Python stack has redis-py too), and the
# Go modules of each Go framework (every Go stack has both Go drivers).
FRAMEWORK_PACKAGES: dict[str, tuple[str, ...]] = {
    "flask": ("flask", "werkzeug"), "falcon": ("falcon",), "sanic": ("sanic",), "tornado": ("tornado",),
    "twisted": ("twisted",), "stdlib": (), "bare": (), "starlette": ("starlette",),
    "fastapi": ("fastapi", "starlette"),
    "echo": ("github.com/labstack/echo/v4",), "gin": ("github.com/gin-gonic/gin",), "nethttp": (),
}
SERVER_PACKAGES: dict[str, tuple[str, ...]] = {
    "werkzeug": ("werkzeug",), "werkzeug-threaded": ("werkzeug",), "werkzeug-processes": ("werkzeug",),
    "gunicorn-sync": ("gunicorn",), "gunicorn-gthread": ("gunicorn",), "gunicorn-gevent": ("gunicorn", "gevent"),
    "gevent": ("gevent",), "tornado-wsgi": ("tornado",), "twisted-wsgi": ("twisted",), "wsgiref": (),
    "waitress": ("waitress",), "uwsgi": ("uwsgi",), "granian-wsgi": ("granian",),
    "sanic": ("sanic", "uvloop"), "tornado": ("tornado",), "twisted": ("twisted",),
    "http.server": (), "http.server-threaded": (),
    "uvicorn": ("uvicorn", "uvloop", "httptools"), "granian-asgi": ("granian", "uvloop"),
}
DRIVER_PACKAGES: dict[str, tuple[str, ...]] = {
    "pymongo": ("pymongo",), "flask-pymongo": ("flask-pymongo", "pymongo"), "motor": ("motor", "pymongo"),
}
PYTHON_REDIS_PACKAGES = ("redis",)
GO_DRIVER_MODULES = ("github.com/redis/go-redis/v9", "go.mongodb.org/mongo-driver/v2")

PRODUCTION = "production"
DEV_ONLY = "dev-only"

# Known limitations of production stacks, found by the reliability suite (tests/reliability, which
# expects each to show). Such a stack keeps its production tag, it is what people deploy and is
# measured as that, but the README table and the bench report name the caveat.
CAVEATS: dict[str, str] = {
    "slow-clients": "a slow client holds a whole sync worker: deploy behind a buffering proxy, as gunicorn's docs say",
    "connection-bursts": "with more than one worker each accepts one connection per loop turn (gunicorn #2266): "
                         "a burst of new connections waits in the accept queue, some past 2 s at 256 at once",
    "pipelined-garbage": "uvicorn's httptools protocol answers a valid request followed in the same read by "
                         "invalid bytes with a 400 alone: the valid request is dropped unanswered",
    "http-version-500": "uvicorn (httptools) hands HTTP/0.9 and HTTP/2.0 request lines to the app, and Falcon's "
                        "ASGI app refuses such a scope by raising: uvicorn answers them 500, not 400",
    "slow-clients-uwsgi": "a slow client holds a whole worker (--http-socket reads the request in the worker): "
                          "deploy behind nginx with the uwsgi protocol, as uWSGI's docs say",
    "silent-connections": "gunicorn 27's gthread worker hands each new connection to a pool thread that waits up "
                          "to 5 s for its first bytes: more silent connections (browser pre-connects, a load "
                          "tool's spare dials) than threads stall every other client meanwhile",
    "reuseport-kill-resets": "each worker listens on its own SO_REUSEPORT socket: when one dies, the connections "
                             "queued on its socket are reset (Linux moves them only with net.ipv4.tcp_migrate_req=1)",
}


@dataclass(frozen=True)
class Entry:
    """One runnable stack: a framework served by a server, with its defaults."""

    name: str
    language: str
    framework: str
    server: str
    model: str
    workers: int | None  # None: one per usable core, decided at start
    description: str
    ops: tuple[str, ...] = ALL_OPS
    max_workers: int | None = None  # 1 for stacks that run one process only
    keepalive: bool = True
    mongo_driver: str = "pymongo"
    tags: tuple[str, ...] = (PRODUCTION,)
    dev_only_reason: str = ""
    caveats: tuple[str, ...] = ()  # keys of CAVEATS
    app: str = ""  # key of APPS when it is not the framework's name (falcon's ASGI app, say)

    @property
    def module(self) -> str:
        return f"servers.{self.name}"

    @property
    def app_key(self) -> str:
        return self.app or self.framework

    @property
    def dev_only(self) -> bool:
        return DEV_ONLY in self.tags

    @property
    def caveat_texts(self) -> tuple[str, ...]:
        return tuple(CAVEATS[key] for key in self.caveats)

    @property
    def families(self) -> tuple[str, ...]:
        return tuple(f for f, ops in FAMILIES.items() if set(ops) <= set(self.ops))

    @property
    def packages(self) -> tuple[str, ...]:
        """Python packages, or Go modules for a Go entry, whose versions describe this stack."""
        if self.language == "go":
            return (*FRAMEWORK_PACKAGES[self.framework], *GO_DRIVER_MODULES)
        names = (*FRAMEWORK_PACKAGES[self.framework], *SERVER_PACKAGES[self.server],
                 *DRIVER_PACKAGES[self.mongo_driver], *PYTHON_REDIS_PACKAGES)
        return tuple(dict.fromkeys(names))

    def default_workers(self) -> int:
        return self.workers if self.workers is not None else usable_cores()

    def as_dict(self) -> dict:
        return {**asdict(self), "module": self.module, "families": list(self.families)}


def _dev_only(reason: str) -> dict:
    return {"tags": (DEV_ONLY,), "dev_only_reason": reason}


# The WSGI factor matrix: {flask, falcon, bare} x these servers (bare: see _BARE_SERVERS).
_WSGI_SERVERS: dict[str, dict] = {
    "dev": dict(server="werkzeug", model="sync", workers=1, max_workers=1, keepalive=False,
                description="werkzeug dev server, one thread: one request at a time",
                **_dev_only("werkzeug dev server, single-threaded, HTTP/1.0: one request at a time")),
    "threaded": dict(server="werkzeug-threaded", model="threads", workers=1, max_workers=1, keepalive=False,
                     description="werkzeug dev server, a new thread per connection",
                     **_dev_only("werkzeug dev server: not hardened, unbounded threads")),
    "processes": dict(server="werkzeug-processes", model="processes", workers=None, keepalive=False,
                      description="werkzeug dev server, a forked process per connection (at most N)",
                      **_dev_only("werkzeug dev server: forks per connection, refuses past N")),
    "gunicorn": dict(server="gunicorn-sync", model="processes", workers=None, keepalive=False,
                     description="gunicorn sync workers, one request per worker process at a time",
                     caveats=("slow-clients",)),
    "gunicorn_gthread": dict(server="gunicorn-gthread", model="threads", workers=None,
                             caveats=("silent-connections",),
                             description="gunicorn gthread workers, a thread pool per process"),
    "gunicorn_gevent": dict(server="gunicorn-gevent", model="greenlets", workers=None,
                            description="gunicorn gevent workers, a greenlet per connection",
                            caveats=("connection-bursts",)),
    "gevent": dict(server="gevent", model="greenlets", workers=None,
                   description="gevent WSGIServer pre-forked one process per core on one socket"),
    "tornado": dict(server="tornado-wsgi", model="threads", workers=1,
                    description="tornado WSGIContainer, the app on a thread pool off the event loop"),
    "twisted": dict(server="twisted-wsgi", model="threads", workers=1, max_workers=1,
                    description="twisted WSGIResource, the app on the reactor's thread pool"),
    "wsgiref": dict(server="wsgiref", model="sync", workers=1, max_workers=1, keepalive=False,
                    description="stdlib wsgiref, single-threaded, one request per connection",
                    **_dev_only("wsgiref: single-threaded, HTTP/1.0, listen backlog of 5")),
    "waitress": dict(server="waitress", model="threads", workers=1,
                     description="waitress, an event loop that buffers requests for a thread pool"),
    "uwsgi": dict(server="uwsgi", model="processes", workers=None, keepalive=False,
                  description="uWSGI master and worker processes, each worker speaking HTTP (--http-socket), "
                              "one request at a time",
                  caveats=("slow-clients-uwsgi",)),
    "granian": dict(server="granian-wsgi", model="threads", workers=None,
                    description="granian (Rust, tokio) in WSGI mode, the app on a blocking thread pool per worker",
                    caveats=("reuseport-kill-resets",)),
}


# The bare WSGI callable (servers/apps/bare_app.py) is the server alone: the framework's share of
# a request is flask_X or falcon_X minus bare_X. It answers hello and json only (ops=HELLO_OPS),
# which keeps the test suite's time bounded (no backend routes to test on eight more stacks), and
# runs on the servers people deploy or compare (the werkzeug threaded/processes variants add
# nothing a server-alone row needs).
_BARE_SERVERS = ("dev", "gunicorn", "gunicorn_gthread", "gunicorn_gevent", "gevent", "tornado", "twisted",
                 "wsgiref")
_WSGI_FRAMEWORKS = {"flask": "Flask", "falcon": "Falcon", "bare": "Bare WSGI callable"}


def _wsgi_entries() -> list[Entry]:
    entries = []
    for framework, title in _WSGI_FRAMEWORKS.items():
        for suffix, spec in _WSGI_SERVERS.items():
            if framework == "bare" and suffix not in _BARE_SERVERS:
                continue
            extra = {"ops": HELLO_OPS} if framework == "bare" else {}
            driver = "flask-pymongo" if framework == "flask" else "pymongo"
            entries.append(Entry(name=f"{framework}_{suffix}", language="python",
                                 framework=framework, mongo_driver=driver,
                                 **{**spec, **extra, "description": f"{title} on {spec['description']}"}))
    return entries


# The ASGI factor matrix: these apps (framework, APPS key, how it is written) x these servers.
_ASGI_APPS: dict[str, tuple[str, str]] = {
    "falcon_asgi": ("falcon", "Falcon's ASGI app (falcon.asgi)"),
    "starlette": ("starlette", "Starlette"),
    "fastapi": ("fastapi", "FastAPI"),
}
_ASGI_SERVERS: dict[str, dict] = {
    "uvicorn": dict(server="uvicorn", model="asyncio", workers=None, caveats=("pipelined-garbage",),
                    description="uvicorn (uvloop, httptools), its supervisor spawning one worker per core"),
    "granian": dict(server="granian-asgi", model="asyncio", workers=None, caveats=("reuseport-kill-resets",),
                    description="granian's Rust HTTP server in ASGI mode, one worker process per core"),
}
# Combinations that break the contract, left out (the reliability suite's hostile barrage found them).
# hypercorn 0.18 (uvloop workers) was left out as a server: a truncated request followed by the
# client's EOF is neither answered nor closed (held past 2.5 s), 256 keep-alive connections on `/`
# saw 2 s timeouts, and a worker that dies is not replaced: it stops the whole server.
_ASGI_LEFT_OUT = {
    # granian 2.8 gives an HTTP/1.0 request http_version "1" (ASGI says "1.0"); Falcon answers 500.
    "falcon_asgi_granian",
}
# Known limitations of one combination, on top of its server's.
_ASGI_CAVEATS = {"falcon_asgi_uvicorn": ("http-version-500",)}


def _asgi_entries() -> list[Entry]:
    entries = []
    for app, (framework, title) in _ASGI_APPS.items():
        for suffix, spec in _ASGI_SERVERS.items():
            name = f"{app}_{suffix}"
            if name in _ASGI_LEFT_OUT:
                continue
            entries.append(Entry(name=name, language="python", framework=framework, app=app,
                                 **{**spec, "description": f"{title} on {spec['description']}",
                                    "caveats": spec["caveats"] + _ASGI_CAVEATS.get(name, ())}))
    return entries


ENTRIES: tuple[Entry, ...] = (
    *_wsgi_entries(),
    *_asgi_entries(),
    Entry("sanic", "python", "sanic", "sanic", "asyncio", None,
          "Sanic's own multi-worker server, asyncio (uvloop) per worker, AsyncMongoClient"),
    Entry("sanic_motor", "python", "sanic", "sanic", "asyncio", None,
          "Sanic's own multi-worker server, the Mongo routes on motor instead of AsyncMongoClient",
          mongo_driver="motor"),
    Entry("sanic_uvicorn", "python", "sanic", "uvicorn", "asyncio", None,
          "Sanic's app as an ASGI app on uvicorn (uvloop, httptools), one spawned worker per core",
          app="sanic_asgi", caveats=("pipelined-garbage",)),
    Entry("tornado", "python", "tornado", "tornado", "asyncio", 1,
          "tornado HTTPServer and RequestHandlers on the asyncio event loop, AsyncMongoClient"),
    Entry("twisted", "python", "twisted", "twisted", "reactor", 1,
          "twisted.web Site and Resources on the asyncio reactor, AsyncMongoClient",
          max_workers=1),
    Entry("stdlib", "python", "stdlib", "http.server", "sync", 1,
          "stdlib http.server: BaseHTTPRequestHandler on the single-threaded HTTPServer",
          max_workers=1, keepalive=False,
          **_dev_only("http.server: single-threaded, HTTP/1.0, listen backlog of 5")),
    Entry("stdlib_threaded", "python", "stdlib", "http.server-threaded", "threads", 1,
          "stdlib http.server: BaseHTTPRequestHandler on ThreadingHTTPServer, a thread per connection",
          max_workers=1,
          **_dev_only("http.server: unbounded threads, listen backlog of 5, not hardened")),
    Entry("echo", "go", "echo", "echo", "goroutines", None,
          "Go Echo v4 on net/http, a goroutine per connection"),
    Entry("gin", "go", "gin", "gin", "goroutines", None,
          "Go Gin on net/http, a goroutine per connection"),
    Entry("nethttp", "go", "nethttp", "net/http", "goroutines", None,
          "Go net/http ServeMux, a goroutine per connection"),
)

BY_NAME: dict[str, Entry] = {e.name: e for e in ENTRIES}


def get(name: str) -> Entry:
    try:
        return BY_NAME[name]
    except KeyError:
        raise KeyError(f"no catalog entry {name!r}; `python -m servers` lists them") from None


def python_entries() -> list[Entry]:
    return [e for e in ENTRIES if e.language == "python"]
