"""What a server and a framework are, each declared once: ServerSpec, FrameworkSpec, Caveat.

Every server adapter declares its ServerSpec(s) in servers/adapters/<adapter>_spec.py, beside the
adapter module; every framework app its FrameworkSpec(s) in servers/apps/<app>_spec.py; the Go
server and frameworks theirs in servers/core/go_specs.py. The catalog (servers/core/catalog.py)
registers those modules and derives the rest from them: entries, package lists, caveats, lesson
links, the anatomy's layer rules, the entry modules' docstrings.

Why a sibling module and not the adapter itself: every entry reads the catalog before its adapter
runs, and gevent's adapter must monkey-patch before asyncio (which imports ssl), threads or a
framework are imported; several adapters import their server at module level (gunicorn subclasses
its BaseApplication) and uwsgi's imports the launcher. A spec module imports this module only
(tests/test_specs.py checks it in a fresh interpreter).
"""
from __future__ import annotations

from dataclasses import dataclass

from servers.core import server_options

# Interfaces an app speaks and a server serves (RSGI is granian's own, the interface Emmett is written to);
# any other value is a framework's own API (sanic, tornado, twisted, stdlib), served only by
# that framework's server, or "go" (servers/go commands).
WSGI, ASGI, RSGI, GO = "wsgi", "asgi", "rsgi", "go"


@dataclass(frozen=True)
class Caveat:
    """A known limitation of a production stack, with its evidence: the reliability tests that show it
    (`evidence`, expected to fail on the stacks it qualifies), or the HTTP/1.1 conformance cases it
    stands for (tests/conformance/known.py)."""

    key: str
    text: str
    # (test name pattern, strict): a reliability test id, {name} the stack, * a wildcard (fnmatch);
    # strict: it must keep failing (if the stack starts to cope, the caveat has to go).
    evidence: tuple[tuple[str, bool], ...] = ()
    # An HTTP/1.1 conformance caveat: the effects of the cells it stands for (desync, accepts-invalid, stall,
    # crash, no-close, over-strict, not-observed: tests/conformance/verdict.py), checked against the records.
    effects: tuple[str, ...] = ()
    # An HTTP/2 caveat: the h2spec case ids it stands for ("http2/5.1/8"; "h2c:http2/3.5/2" for one mode only; "~" before
    # the id for a case that races and may pass), checked against the records' http2 sections (h2grid): every failing
    # case is a caveat's, and every caveat's case without "~" fails
    h2spec: tuple[str, ...] = ()
    # False: it comes from worker processes, which a free-threaded variant (<entry>_ft) runs as threads
    free_threaded: bool = True
    # False: it shows on the free-threaded variants only (3.13t, or the release that installs there)
    gil: bool = True


@dataclass(frozen=True)
class Setting:
    """A setting users turn on for safety (keep-alive off, another parser), run as a column of the
    conformance grid with its cost in capacity (tests/conformance/settings.py): the entry's extra
    environment, a server's own variables (`env`) and options for the server's API (`options`,
    servers/core/server_options.py), with the package it needs (`needs`, importable module) if any."""

    key: str
    text: str
    options: tuple[tuple[str, object], ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    needs: str = ""

    def environment(self) -> dict[str, str]:
        return {**server_options.environment(dict(self.options)), **dict(self.env)}


@dataclass(frozen=True)
class Tls:
    """How a server terminates TLS (HTTPS on the entries' --certfile and --keyfile), read off its
    installed source, or why it cannot (`cannot`: its entries refuse the flags)."""

    library: str = ""  # what does the handshake and the record crypto: the catalog's "tls" column
    where: str = ""  # which process and thread run it, and when the handshake happens
    setting: str = ""  # the server's own API the adapter uses, as its docs name it
    cannot: str = ""  # why it has no TLS of its own ("" when it has)
    # frame path prefixes of the TLS code the anatomy can see in a profile (its "tls" layer); () when
    # the crypto runs where the profiler cannot look (native threads, C code)
    code_paths: tuple[str, ...] = ()
    # the shared objects (perf's dso names, prefixes) the TLS library's native code runs in: the anatomy's
    # perf reads their share of the workers' CPU, which a Python profile misses (the GIL is released there)
    native: tuple[str, ...] = ()

    @property
    def terminates(self) -> bool:
        return not self.cannot


# How a server speaks HTTP/2 (RFC 9113): over TLS, chosen by ALPN ("h2", section 3.2); in cleartext ("h2c") by
# prior knowledge, the connection opening with the client preface (section 3.3); or in cleartext by an
# HTTP/1.1 `Upgrade: h2c` request (RFC 7540 section 3.2, which RFC 9113 deprecates).
ALPN, PRIOR_KNOWLEDGE, UPGRADE = "alpn", "prior-knowledge", "upgrade"
HTTP2_MODES = (ALPN, PRIOR_KNOWLEDGE, UPGRADE)
# The framing libraries, as the catalog names them
PYTHON_H2 = "python-hyper's h2 (hpack, hyperframe)"
PYTHON_H2_PATHS = ("h2/", "hpack/", "hyperframe/")


@dataclass(frozen=True)
class Http2:
    """How a server speaks HTTP/2 (the entries' --http2), read off its installed source, or why it cannot
    (`cannot`: its entries refuse --http2). `modes` is what it serves with --http2 (ALPN needs --certfile and
    --keyfile too), `default` what it serves without it, as its docs configure it; the flag changes the rest."""

    library: str = ""  # what parses the frames and HPACK: the catalog's "h2" column
    modes: tuple[str, ...] = ()  # of HTTP2_MODES, served with --http2
    default: tuple[str, ...] = ()  # of modes, served without --http2 (its own default)
    setting: str = ""  # the server's own API the adapter turns it on with ("" : nothing to turn on)
    where: str = ""  # which process and thread frame it, and how a connection's streams are run
    missing: str = ""  # why a mode of HTTP2_MODES is not served ("" when every one is)
    cannot: str = ""  # why it has no HTTP/2 of its own ("" when it has)
    # frame path prefixes of the HTTP/2 framing the anatomy can see in a profile (its "h2" layer); () when it
    # runs where the profiler cannot look (Rust, Zig, C)
    code_paths: tuple[str, ...] = ()
    packages: tuple[str, ...] = ()  # distributions that do the framing (their versions describe an h2 result)

    def __post_init__(self) -> None:
        unknown = set(self.modes) - set(HTTP2_MODES)
        if unknown or not set(self.default) <= set(self.modes) or bool(self.cannot) == bool(self.modes):
            raise ValueError(f"Http2({self.library or self.cannot!r}): modes {self.modes} must be of {HTTP2_MODES}, "
                             f"default {self.default} among them, and either modes or cannot, not both")

    @property
    def speaks(self) -> bool:
        return not self.cannot

    @property
    def cleartext(self) -> bool:
        """It serves h2c (by prior knowledge; an upgrade-only server would need an HTTP/1.1 first request)."""
        return PRIOR_KNOWLEDGE in self.modes

    @property
    def over_tls(self) -> bool:
        return ALPN in self.modes

    @property
    def flag_adds(self) -> tuple[str, ...]:
        """The modes --http2 turns on (() : it serves them all by default, and the flag changes nothing)."""
        return tuple(m for m in self.modes if m not in self.default)


@dataclass(frozen=True)
class ServerSpec:
    """One server variant of the catalog (gunicorn's sync, gthread and gevent workers are three)."""

    name: str  # its one name: Entry.server, a result's `server`, the anatomy's label
    interface: str  # WSGI, ASGI, GO, or the framework whose own API it serves
    serve: str  # "module:function" called as serve(app_path, options, ready); "" for Go
    model: str  # concurrency: sync, threads, processes, greenlets, asyncio, reactor, goroutines
    description: str  # completes "<framework> on ...": the catalog's words (docs/catalog.md, --help)
    details: str  # how it serves a request (workers, sockets, keep-alive, stop): the entries' --help
    entry_suffix: str  # entries are <app>_<suffix>, or <app> alone when "" (a framework's own server)
    tls: Tls  # how it terminates TLS, or why it cannot (every server says)
    http2: Http2  # how it speaks HTTP/2 and in which modes, or why it cannot (every server says)
    workers: int | None = None  # default workers; None: one per usable core
    max_workers: int | None = None  # 1 for a server that runs one process only
    keepalive: bool = True
    dev_only: str = ""  # why it is not for production ("" for a production server)
    caveats: tuple[Caveat, ...] = ()
    pip_packages: tuple[str, ...] = ()  # distributions (or Go modules) whose versions a result records
    lesson: str = ""  # its page under docs/servers/ (without .md)
    code_paths: tuple[str, ...] = ()  # frame path prefixes the anatomy attributes to the server
    replaces_dead_workers: bool = False  # the reliability suite kills a worker and expects a new one
    process_per_connection: bool = False  # forks a short-lived child per connection
    settings: tuple[Setting, ...] = ()  # the safety settings its users turn on, as grid columns
    # What changes when it serves on free-threaded CPython 3.13t ("" : it has no variant there): the
    # catalog derives <entry>_ft for each app that installs there too (servers/core/interpreters.py)
    free_threaded: str = ""
    free_threaded_thread_workers: bool = False  # there its workers are threads of one process, not processes
    # (server, why): it runs that server's request parser and connection loop, so that server's parser
    # owner (an entry of a FrameworkSpec.parser_owner app) stands for it and it has none of its own
    # (catalog.parser_owner)
    shares_parser: tuple[str, str] = ()

    @property
    def serve_module(self) -> str:
        return self.serve.partition(":")[0]


@dataclass(frozen=True)
class FrameworkSpec:
    """One app of the catalog: a framework's app written to the route contract, in one interface."""

    name: str  # the app's key (falcon_asgi); the entries' prefix unless `prefix` says otherwise
    framework: str  # the framework it is written in (falcon_asgi's is falcon): Entry.framework
    title: str  # how the entries' description names it ("Falcon's ASGI app (falcon.asgi)")
    interface: str  # WSGI, ASGI, GO, or its own API's name (served by the server of that interface)
    factory: str  # "module:function" building the app from Options; "" for Go (a command of servers/go)
    language: str = "python"
    prefix: str = ""  # entries' name prefix when not `name` (sanic's ASGI app makes sanic_uvicorn)
    details: str = ""  # what the app does per request, for the entries' --help
    pip_packages: tuple[str, ...] = ()  # distributions (or Go modules) whose versions a result records
    mongo_driver: str = "pymongo"  # a key of backends.drivers.MONGO
    driver_variants: tuple[str, ...] = ()  # one more entry <prefix>_<driver> per driver named here
    # one more entry <name>_<client> per Redis client named here (backends.redis_clients; the
    # others run its DEFAULT), on the servers of `variants_on` only (() : every server of the app)
    redis_variants: tuple[str, ...] = ()
    variants_on: tuple[str, ...] = ()
    lesson: str = ""  # its page under docs/frameworks/ ("" : the server's page tells it all)
    code_paths: tuple[str, ...] = ()  # frame path prefixes the anatomy attributes to the framework
    ops: tuple[str, ...] = ()  # operations it answers; () : the whole contract
    servers: tuple[str, ...] = ()  # the only servers it runs on; () : every server of its interface
    left_out: tuple[tuple[str, str], ...] = ()  # (server, why): combinations that break the contract
    combination_caveats: tuple[tuple[str, Caveat], ...] = ()  # (server, caveat) on top of the server's
    # The Host rules it enforces itself, a 400 whatever the server passes on ("missing", "twice",
    # "invalid"): a server's "checks no Host" caveat does not show for those on its stacks.
    host_checks: tuple[str, ...] = ()
    default_server: str = ""  # its default server: compose names that entry <framework>-<family> too
    json_paths: tuple[str, ...] = ("json/",)  # frame path prefixes of the JSON code it runs (the anatomy's json layer)
    # Frame path prefixes of the template engine /fortunes renders with (the anatomy's template layer);
    # "path#function" names one function of a file whose other functions belong to another layer.
    template_paths: tuple[str, ...] = ()
    # It installs on free-threaded CPython 3.13t with the GIL kept off (the set-up's record says so,
    # records/interpreters/python3.13t.json): its entries on servers with a free_threaded text get a variant
    free_threaded: bool = False
    # It answers the reflection route (servers/apps/reflection.py) and its entries are the parser owners
    # of the servers it runs on: the server alone, where its HTTP/1.1 parsing is observed once for every
    # stack on that server (catalog.parser_owner)
    parser_owner: bool = False

    @property
    def entry_prefix(self) -> str:
        return self.prefix or self.name


# The HTTP/1.1 conformance caveat of the servers built on CPython's http.server request parser
# (werkzeug's dev server, wsgiref, http.server): tests/conformance/known.py says which cases it stands for.
HTTP_SERVER_PARSER = Caveat(
    "http-server-parser", "HTTP/1.1: CPython's http.server parser takes a bare CR for a line end (a hidden "
                          "Content-Length honoured), serves invalid field names, versions and request lines (HTTP/0.9 "
                          "answered without a status line), checks no Host, hands `GET *`, the authority-form and a "
                          "NUL target to the app and leaves Content-Length and Transfer-Encoding to the app's body "
                          "reader, which takes invalid values and unknown codings (wsgiref and http.server read no "
                          "chunked body: a valid one is read as requests; werkzeug's answers 500 to invalid chunk "
                          "syntax, and loops allocating memory at EOF inside a chunk larger than what came); each "
                          "closes after its answers (a body a framework leaves unread is never read)",
    effects=("desync", "accepts-invalid", "crash", "stall", "over-strict", "not-observed"))

# Python's ssl module as the anatomy sees it: the stdlib's ssl.py (SSLSocket, SSLObject over OpenSSL in
# _ssl) and asyncio's own TLS protocol (uvloop's is Cython: its calls into ssl.py are what a profile shows).
SSL_MODULE = "Python's ssl module (OpenSSL)"
SSL_PATHS = ("ssl.py", "asyncio/sslproto.py")
SSL_NATIVE = ("libssl.so", "libcrypto.so", "_ssl.")  # OpenSSL and the ssl module's C part, where the crypto runs
# The template layer of the apps that render with Jinja2: the engine, MarkupSafe's escape (its C speedups
# show under the Python function that calls them) and the compiled templates, whose frames carry the
# template file's own path (servers/apps/templates/...).
JINJA2_PATHS = ("jinja2/", "markupsafe/", "servers/apps/templates/")

# Code paths several servers run on (the anatomy's server layer): an event loop, the stdlib's
# socketserver-based servers.
ASYNCIO_PATHS = ("asyncio/", "uvloop/")
SOCKETSERVER_PATHS = ("socketserver.py", "http/server.py")
