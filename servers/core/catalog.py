"""The catalog: the registry of the specs, and every entrypoint of the suite derived from them.

Each server adapter and each framework app declares its facts once, in a spec module beside it
(servers/core/specs.py); SERVERS and APPS register them by name, and ENTRIES composes every app with
every server of its interface. Modules on disk (their docstrings too: servers/core/entry_modules.py),
`python -m servers`, docs/catalog.md's table, compose, the benchmark matrix, the lesson links, the
anatomy's layers and the test parametrization are all derived from these. Specs name import paths
only, so nothing imports a framework it does not serve (`pip install '.[flask]'` alone runs the
Flask stacks).
"""
from __future__ import annotations

import importlib
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from backends import drivers, redis_clients
from servers.core import interpreters, records, specs
from servers.core.cores import usable_cores
from servers.core.specs import FrameworkSpec, Http2, ServerSpec, Tls, WebSocket

# Operations of the route contract: name -> path template ({id} is a user id).
OPERATIONS: dict[str, str] = {
    "hello": "/",
    "json": "/json",
    "mongo-pooled": "/mongo/pooled/{id}",
    "mongo-per-request": "/mongo/per-request/{id}",
    "redis-pooled": "/redis/pooled",
    "redis-per-request": "/redis/per-request",
    "fortunes": "/fortunes",  # TechEmpower's fortunes test: one query, a row added, sorted, a template
}
HELLO_OPS = ("hello", "json")
# Every operation that needs Mongo: a stack that serves the Mongo routes serves them all (and a Redis
# client variant, whose routes leave Mongo out, none of them).
MONGO_OPS = ("mongo-pooled", "mongo-per-request", "fortunes")
REDIS_OPS = ("redis-pooled", "redis-per-request")
ALL_OPS = HELLO_OPS + MONGO_OPS + REDIS_OPS

# Operation families (compose services are per family: `<entry>-mongo` answers /fortunes too, as it
# runs the same command with the same backend) and the backend service each needs. BACKENDS: in the
# order they are started.
FAMILIES: dict[str, tuple[str, ...]] = {"hello": HELLO_OPS, "mongo": MONGO_OPS, "redis": REDIS_OPS}
FAMILY_BACKENDS: dict[str, str | None] = {"hello": None, "mongo": "mongo", "redis": "redis"}
BACKENDS: tuple[str, ...] = ("mongo", "redis")
# Each backend's (pooled, per-request) pair of one lookup: what the report compares route for route.
POOLED_PAIRS: dict[str, tuple[str, str]] = {"mongo": ("mongo-pooled", "mongo-per-request"),
                                            "redis": ("redis-pooled", "redis-per-request")}


# The WebSocket routes (docs/websockets.md): served where both the app and what frames its WebSockets can
# (Entry.ws_ops); loaded by loadtools/wsload, not by the HTTP load tools, so they are not of OPERATIONS.
WS_OPERATIONS: dict[str, str] = specs.WS_OPERATIONS
WS_OPS = tuple(WS_OPERATIONS)


def path_of(operation: str) -> str:
    """The path template of an operation of the contract, HTTP or WebSocket."""
    try:
        return OPERATIONS.get(operation) or WS_OPERATIONS[operation]
    except KeyError:
        raise KeyError(f"no operation {operation!r}; one of {', '.join((*OPERATIONS, *WS_OPERATIONS))}") from None


def family_of(operation: str) -> str | None:
    """The family of an operation of the contract, None for an unknown one."""
    return next((family for family, ops in FAMILIES.items() if operation in ops), None)


def backend_of(operation: str) -> str | None:
    """'mongo', 'redis' or None: the backend service an operation needs."""
    family = family_of(operation)
    return FAMILY_BACKENDS[family] if family else None


# The spec modules, found by their name: servers/<package>/<name>_spec.py (or _specs.py), each
# holding SPECS, the ServerSpecs of one adapter or the FrameworkSpecs of one app (servers/core/specs.py
# says why they sit beside the adapter rather than in it). A new one is registered by being there;
# the catalog's order (docs/catalog.md's table's, the tests') is theirs by path. Importing them imports no
# server or framework.
SERVERS_DIR = Path(__file__).resolve().parents[1]
SPEC_MODULES: tuple[str, ...] = tuple(
    ".".join(path.relative_to(SERVERS_DIR.parent).with_suffix("").parts)
    for path in sorted((*SERVERS_DIR.glob("*/*_spec.py"), *SERVERS_DIR.glob("*/*_specs.py")))
    if path.name != "specs.py")


def _registered() -> tuple[list[ServerSpec], list[FrameworkSpec]]:
    specs = [spec for module in SPEC_MODULES for spec in importlib.import_module(module).SPECS]
    return ([s for s in specs if isinstance(s, ServerSpec)], [s for s in specs if isinstance(s, FrameworkSpec)])


def _merged(attribute: str) -> dict:
    """A spec module's optional facts about its packages (EXTRAS, SOURCES), merged over every module;
    two modules naming the same key must agree."""
    merged: dict = {}
    for module in SPEC_MODULES:
        for key, value in getattr(importlib.import_module(module), attribute, {}).items():
            if merged.setdefault(key, value) != value:
                raise ValueError(f"{module}.{attribute}[{key!r}] differs from another spec module's")
    return merged


_SERVER_SPECS, _APP_SPECS = _registered()
# The registry: a server's name -> its spec, an app's name -> its spec.
SERVERS: dict[str, ServerSpec] = {spec.name: spec for spec in _SERVER_SPECS}
APPS: dict[str, FrameworkSpec] = {spec.name: spec for spec in _APP_SPECS}

# The frame path prefixes of every driver (Mongo, Redis, Go) and of the suite's backend access: the
# anatomy's driver layer (backends/drivers.py declares them).
DRIVER_CODE_PATHS: tuple[str, ...] = drivers.code_paths()
# The frame path prefixes of the JSON code the apps run (their specs' json_paths): the anatomy's json layer.
JSON_CODE_PATHS: tuple[str, ...] = tuple(dict.fromkeys(p for app in APPS.values() for p in app.json_paths))

PRODUCTION = "production"
DEV_ONLY = "dev-only"
# A stack whose record (records/<entry>.json: its conformance and reliability runs) is missing or
# incomplete: tagged so in `python -m servers`, docs/catalog.md and each benchmark result.
UNVERIFIED = "unverified"

# Known limitations of production stacks, found by the reliability suite (tests/reliability, which
# expects each to show): key -> text, from the servers' specs and the apps' combination caveats. Such a
# stack keeps its production tag, it is what people deploy and is measured as that, but docs/catalog.md
# (its text on docs/caveats.md) and the bench report name the caveat.
_CAVEATS = {caveat.key: caveat for caveat in (*(c for s in _SERVER_SPECS for c in s.caveats),
                                              *(c for a in _APP_SPECS for c in a.all_caveats()))}
CAVEATS: dict[str, str] = {
    key: caveat.text + (f" [{', '.join(caveat.effects)}]" if caveat.effects else "") for key, caveat in _CAVEATS.items()}
# An HTTP/1.1 caveat's effects (tests/conformance/verdict.py EFFECTS), as its spec declares them
CAVEAT_EFFECTS: dict[str, tuple[str, ...]] = {key: caveat.effects for key, caveat in _CAVEATS.items()}
# key -> the reliability tests that show it (Caveat.evidence), for the caveats a reliability test shows.
CAVEAT_EVIDENCE: dict[str, tuple[tuple[str, bool], ...]] = {
    key: caveat.evidence for key, caveat in _CAVEATS.items() if caveat.evidence}
# key -> the h2spec cases an HTTP/2 caveat stands for (Caveat.h2spec), which the HTTP/2 grid's records show.
CAVEAT_H2SPEC: dict[str, tuple[str, ...]] = {key: caveat.h2spec for key, caveat in _CAVEATS.items() if caveat.h2spec}


@dataclass(frozen=True)
class Entry:
    """One runnable stack: an app served by a server, with its defaults (from their specs)."""

    name: str
    language: str
    framework: str
    server: str  # a key of SERVERS
    model: str
    workers: int | None  # None: one per usable core, decided at start
    description: str
    app: str  # a key of APPS (falcon_asgi's framework is falcon)
    ops: tuple[str, ...] = ALL_OPS
    max_workers: int | None = None  # 1 for stacks that run one process only
    min_workers: int = 1  # the fewest it runs as itself (its server's spec says why where more)
    keepalive: bool = True
    mongo_driver: str = "pymongo"
    redis_client: str = redis_clients.DEFAULT  # Python stacks: a key of backends.redis_clients.CLIENTS
    tags: tuple[str, ...] = (PRODUCTION,)
    dev_only_reason: str = ""
    caveats: tuple[str, ...] = ()  # keys of CAVEATS
    verified: bool = False  # its record holds a complete conformance and reliability run (servers/core/records.py)
    interpreter: str = interpreters.GIL  # or interpreters.FREE_THREADED: the <entry>_ft variant

    @property
    def free_threaded(self) -> bool:
        return self.interpreter == interpreters.FREE_THREADED

    @property
    def module(self) -> str:
        return f"servers.{self.name}"

    @property
    def server_spec(self) -> ServerSpec:
        return SERVERS[self.server]

    @property
    def app_spec(self) -> FrameworkSpec:
        return APPS[self.app]

    @property
    def tls(self) -> Tls:
        """How its server terminates TLS (--certfile/--keyfile), or why it cannot."""
        return self.server_spec.tls

    @property
    def http2(self) -> Http2:
        """How its server speaks HTTP/2 (--http2) and in which modes, or why it cannot."""
        return self.server_spec.http2

    @property
    def websocket(self) -> WebSocket:
        """What frames its WebSockets (the library its app picks, on Go; else its server), or why it cannot."""
        return self.app_spec.ws_framing or self.server_spec.ws

    @property
    def ws_ops(self) -> tuple[str, ...]:
        """The WebSocket operations it serves: both, where its app writes the routes and its framing speaks them."""
        return WS_OPS if self.websocket.speaks and self.app_spec.websocket else ()

    @property
    def ws_cannot(self) -> str:
        """Why it serves no WebSocket route ("" when it does): its framing's reason first, then its app's."""
        return "" if self.ws_ops else (self.websocket.cannot or self.app_spec.ws_cannot)

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
            names = (*self.app_spec.pip_packages, *self.server_spec.pip_packages, *drivers.GO_MODULES)
        else:
            mongo = drivers.MONGO[self.mongo_driver].packages if self.serves(MONGO_OPS) else ()
            redis = redis_clients.get(self.redis_client).packages if self.serves(REDIS_OPS) else ()
            names = (*self.app_spec.pip_packages, *self.server_spec.pip_packages, *mongo, *redis)
        if self.free_threaded:  # what does not install there is not run there (uvloop: granian runs asyncio's loop)
            names = tuple(n for n in names if interpreters.packages().get(n, {"installs": True})["installs"])
        return tuple(dict.fromkeys(names))

    def serves(self, ops: tuple[str, ...]) -> bool:
        """Whether it serves any of these operations (the bare app's stacks serve no backend route)."""
        return bool(set(ops) & set(self.ops))

    def default_workers(self) -> int:
        return self.workers if self.workers is not None else max(self.min_workers, usable_cores())

    def as_dict(self) -> dict:
        return {**asdict(self), "module": self.module, "families": list(self.families),
                "tls": {k: v for k, v in asdict(self.tls).items() if k != "code_paths"},
                "http2": {k: v for k, v in asdict(self.http2).items() if k != "code_paths"},
                "websocket": asdict(self.websocket), "ws_ops": list(self.ws_ops), "ws_cannot": self.ws_cannot}


def entry_name(app: FrameworkSpec, server: ServerSpec) -> str:
    return f"{app.entry_prefix}_{server.entry_suffix}" if server.entry_suffix else app.entry_prefix


def _caveats(app: FrameworkSpec, server: ServerSpec, free_threaded: bool = False) -> tuple[str, ...]:
    """The keys of the caveats of an app on a server, on the GIL build or on free-threaded 3.13t."""
    caveats = (*server.caveats, *app.caveats_on(server))
    return tuple(c.key for c in caveats if (c.free_threaded if free_threaded else c.gil))


def _entry(app: FrameworkSpec, server: ServerSpec, driver: str = "", redis_client: str = "") -> Entry:
    """The stack of one app on one server; with a driver (a Redis client), its variant on that Mongo
    driver (Redis client)."""
    name = entry_name(app, server)
    description = f"{app.title} on {server.description}"
    if driver:
        name, description = f"{name}_{driver}", f"{description}; the Mongo routes on {driver}"
    ops = app.ops or ALL_OPS
    if redis_client:  # what differs is the Redis routes: the variant serves those (and hello, json)
        name = f"{name}_{redis_client}"
        description = f"{description}; the Redis routes on {redis_clients.get(redis_client).title}"
        ops = tuple(op for op in ops if op not in MONGO_OPS)
    verified = records.verified(name)
    return Entry(name=name, language=app.language, framework=app.framework, server=server.name,
                 model=server.model, workers=server.workers, description=description, app=app.name,
                 ops=ops, max_workers=server.max_workers, min_workers=server.min_workers, keepalive=server.keepalive,
                 mongo_driver=driver or app.mongo_driver,
                 redis_client=redis_client or redis_clients.DEFAULT,
                 tags=((DEV_ONLY,) if server.dev_only else (PRODUCTION,)) + (() if verified else (UNVERIFIED,)),
                 dev_only_reason=server.dev_only, caveats=_caveats(app, server), verified=verified)


def _entries() -> tuple[Entry, ...]:
    """Every app on every server of its interface (or the servers it names), but those it leaves out."""
    entries = []
    for app in _APP_SPECS:
        left_out = {server for server, _ in app.left_out}
        for server in _SERVER_SPECS:
            if (server.interface != app.interface or server.name in left_out
                    or (app.servers and server.name not in app.servers)):
                continue
            entries.append(_entry(app, server))
            if app.variants_on and server.name not in app.variants_on:
                continue
            entries += [_entry(app, server, driver) for driver in app.driver_variants]
            entries += [_entry(app, server, redis_client=client) for client in app.redis_variants]
    return tuple(entries)


def _free_threaded_redis_client(entry: Entry) -> str:
    """The Redis client an entry's free-threaded variant runs: redis-py's pure-Python parser where hiredis does not
    keep the GIL off on 3.13t (the set-up's record), else the default."""
    client = redis_clients.DEFAULT
    if entry.serves(REDIS_OPS) and not all(interpreters.kept_off(p) for p in redis_clients.get(client).packages):
        client = redis_clients.PURE_PYTHON
    return client


def _free_threaded(entry: Entry) -> Entry:
    """The entry on free-threaded CPython 3.13t: same app and server, run by .venv-ft's Python; its Redis
    routes on redis-py's pure-Python parser where hiredis does not keep the GIL off there (the set-up's record)."""
    client = _free_threaded_redis_client(entry)
    description = f"{entry.description}, on free-threaded CPython 3.13t (no GIL)"
    if client != entry.redis_client:
        description += f"; the Redis routes on {redis_clients.get(client).title}"
    name = entry.name + interpreters.ENTRY_SUFFIX
    verified = records.verified(name)  # its own record: conformance and reliability runs of the variant
    tags = tuple(t for t in entry.tags if t != UNVERIFIED) + (() if verified else (UNVERIFIED,))
    caveats = _caveats(entry.app_spec, entry.server_spec, free_threaded=True)
    return replace(entry, name=name, interpreter=interpreters.FREE_THREADED, redis_client=client,
                   description=description, verified=verified, tags=tags, caveats=caveats)


def _interpreter_variants(entries: tuple[Entry, ...]) -> tuple[Entry, ...]:
    """Each entry whose server and app both run on 3.13t, followed by its free-threaded variant (the driver
    and Redis client variants are not repeated there)."""
    out = []
    for entry in entries:
        out.append(entry)
        if (entry.language == "python" and entry.server_spec.free_threaded and entry.app_spec.free_threaded
                and entry.mongo_driver == entry.app_spec.mongo_driver and entry.redis_client == redis_clients.DEFAULT):
            out.append(_free_threaded(entry))
    return tuple(out)


ENTRIES: tuple[Entry, ...] = _interpreter_variants(_entries())
# Go entries are commands of the Go module in servers/go (cmd/<name>), built on first use.
GO_COMMANDS = tuple(e.name for e in ENTRIES if e.language == "go")

BY_NAME: dict[str, Entry] = {e.name: e for e in ENTRIES}

# pyproject.toml's extras (name -> requirements) and the lessons' source repositories (distribution ->
# (GitHub repository, tag of version v, package folder)), as the spec modules declare them.
EXTRAS: dict[str, tuple[str, ...]] = _merged("EXTRAS")
SOURCES: dict[str, tuple[str, str, str]] = _merged("SOURCES")


def on_interpreter(entry: Entry, interpreter: str) -> Entry:
    """The entry as it runs on an interpreter with the GIL other than its own (the benchmark's interpreter axis):
    on the GIL twin, whose virtualenv holds .venv-ft's distributions and nothing else, its Redis routes run the
    client its free-threaded variant runs (no hiredis there), so that the two stacks differ by the GIL alone."""
    if (interpreter != interpreters.GIL_TWIN or entry.language != "python" or entry.free_threaded
            or entry.redis_client != redis_clients.DEFAULT):
        return entry
    return replace(entry, redis_client=_free_threaded_redis_client(entry))


def get(name: str) -> Entry:
    try:
        return BY_NAME[name]
    except KeyError:
        raise KeyError(f"no catalog entry {name!r}; `python -m servers` lists them") from None


def python_entries() -> list[Entry]:
    return [e for e in ENTRIES if e.language == "python"]


def parser_owner_server(server: str) -> str:
    """The server whose parser owner stands for this one: itself, or the one its spec says it shares
    its parser and connection loop with (ServerSpec.shares_parser)."""
    spec = SERVERS[server]
    return spec.shares_parser[0] if spec.shares_parser else server


def parser_owner(entry: Entry) -> Entry:
    """The entry where the HTTP/1.1 parsing of `entry`'s server is observed: on the same interpreter, the
    app that answers the reflection route (FrameworkSpec.parser_owner) alone on that server (or on the
    server it shares its parser with). An owner is its own; a Mongo driver or Redis client variant has
    its base entry's; Echo and Gin have nethttp's."""
    server = SERVERS[parser_owner_server(entry.server)]
    owners = [app for app in _APP_SPECS if app.parser_owner and app.interface == server.interface
              and (not app.servers or server.name in app.servers)]
    if len(owners) != 1:
        raise KeyError(f"{entry.name}: {len(owners)} parser-owner apps for server {server.name!r}; "
                       "one FrameworkSpec with parser_owner=True must run on it")
    name = entry_name(owners[0], server) + (interpreters.ENTRY_SUFFIX if entry.free_threaded else "")
    try:
        return BY_NAME[name]
    except KeyError:
        raise KeyError(f"{entry.name}: its parser owner {name} is not in the catalog") from None


def ws_owner(entry: Entry) -> Entry:
    """The entry whose WebSocket framing stands for `entry`'s: itself (its base entry, for a variant) where its app
    picks the library (Go) or its framework is its server (Sanic, tornado); else the server alone, its parser owner
    (bare_asgi_<server>), since an ASGI or RSGI server frames, reassembles and limits every message before the app
    sees it."""
    if entry.app_spec.ws_framing or entry.app_spec.interface == entry.server_spec.name:
        # a Mongo-driver or Redis-client variant frames as its base entry does
        suffix = interpreters.ENTRY_SUFFIX if entry.free_threaded else ""
        return BY_NAME[entry_name(entry.app_spec, entry.server_spec) + suffix]
    return parser_owner(entry)
