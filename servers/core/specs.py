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

# What a server hands its app that a server could instead answer or refuse itself: an app's own caveat about such
# input (FrameworkSpec.caveats) shows on the stacks of the servers that pass it on (ServerSpec.passes). Every server
# here passes HEAD and any Host, so those are the default; one that answers HEAD itself, or refuses an empty or odd
# Host, leaves the key out of its `passes` and the apps' caveats about it leave its stacks. A lower-case method is
# refused by some (gunicorn, uvicorn, waitress, cheroot: 400) and passed on as sent by others (their parser owner
# reflects `get`): those add its key.
PASSES_HEAD = "head"  # a HEAD request reaches the app as HEAD (the app's router decides whether it is served)
PASSES_ANY_HOST = "any-host"  # any Host value reaches the app, an empty one and a valid `a=b` reg-name included
PASSES_LOWER_CASE_METHOD = "lower-case-method"  # `get / HTTP/1.1` reaches the app with the method `get`
PASSES = (PASSES_HEAD, PASSES_ANY_HOST, PASSES_LOWER_CASE_METHOD)
PASSES_DEFAULT = (PASSES_HEAD, PASSES_ANY_HOST)
PASSES_METHOD_AS_SENT = (*PASSES_DEFAULT, PASSES_LOWER_CASE_METHOD)  # the default, and a lower-case method too


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
    # An HTTP/1.1 conformance caveat: the effects of the cells it stands for (desync, misread, accepts-invalid,
    # stall, crash, no-close, over-strict, not-observed: tests/conformance/verdict.py), checked against the records.
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


# WebSockets (RFC 6455, docs/websockets.md): the contract's routes, and its largest message, set wherever the server
# lets the adapter
WS_OPERATIONS = {"ws-echo": "/ws/echo", "ws-broadcast": "/ws/broadcast"}
WS_MAX_MESSAGE = 16 << 20


@dataclass(frozen=True)
class WebSocket:
    """How a server frames WebSockets for its apps (or, on Go, the library an app picks), read off its installed
    source, or why it cannot (`cannot`). `max_message` is the largest message the suite's stacks take: the contract's
    16 MiB where `setting` lets the adapter set it, the server's own where it fixes one; `default_max_message` is what
    the server takes when nobody sets it (users run defaults), None for no limit at all."""

    library: str = ""  # what reads the frames, unmasks and reassembles them: the catalog's "ws" column
    max_message: int | None = WS_MAX_MESSAGE
    default_max_message: int | None = WS_MAX_MESSAGE
    max_frame: int | None = None  # the largest frame, where it is smaller than the largest message (None : no other)
    setting: str = ""  # the server's own API the adapter sets the limit with ("" : it cannot be set)
    pings: str = ""  # the pings it sends by default ("" : none)
    deflate: bool = False  # it accepts permessage-deflate by default when a client offers it
    # what it answers a Sec-WebSocket-Version it does not speak: the status and the Sec-WebSocket-Version it names
    # (RFC 6455 section 4.4 asks for 426 naming 13)
    bad_version: tuple[int, str | None] = (400, None)
    checks_origin: bool = False  # it refuses a cross-site Origin by default (403)
    # how each open socket ends when the server gets SIGTERM: the close code it sends, or 1006 where it ends the TCP
    # connection without a close frame (tests/reliability/test_reliability_websocket.py)
    on_sigterm: int = 1001
    where: str = ""  # which process and thread frame a message, and how the app is handed it
    cannot: str = ""  # why it serves no WebSockets ("" when it does)
    packages: tuple[str, ...] = ()  # distributions that do the framing (their versions describe a WebSocket result)

    def __post_init__(self) -> None:
        if bool(self.cannot) == bool(self.library):
            raise ValueError(f"WebSocket({self.library or self.cannot!r}): a library or a reason it cannot, not both")

    @property
    def speaks(self) -> bool:
        return not self.cannot


# WSGI has no upgrade path: the app answers a request and returns, and the server owns the socket (flask-sock and
# gevent-websocket take the raw socket out of a server's environ, outside WSGI)
WSGI_WEBSOCKET = WebSocket(cannot="WSGI has no upgrade path: the app answers a request and returns, the server keeps "
                                  "the socket (flask-sock and gevent-websocket reach past WSGI for the raw socket)")


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
    # how it frames WebSockets, or why it cannot (every server but a WSGI one says: WSGI_WEBSOCKET is theirs)
    websocket: WebSocket | None = None
    workers: int | None = None  # default workers; None: one per usable core
    max_workers: int | None = None  # 1 for a server that runs one process only
    # the fewest it runs as itself: 2 for werkzeug's processes mode (make_server forks only for processes > 1; with
    # 1 it is the single-threaded HTTP/1.0 server), so one per usable core is raised to it on a one-core machine
    min_workers: int = 1
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
    # What it hands the app unanswered, of PASSES: decides which of an app's own caveats show on its stacks
    passes: tuple[str, ...] = PASSES_DEFAULT

    def __post_init__(self) -> None:
        unknown = set(self.passes) - set(PASSES)
        if unknown:
            raise ValueError(f"ServerSpec({self.name!r}).passes: {sorted(unknown)} are not of {PASSES}")
        if self.websocket is None and self.interface != WSGI:
            raise ValueError(f"ServerSpec({self.name!r}): say how it frames WebSockets, or why it cannot (websocket=)")

    @property
    def ws(self) -> WebSocket:
        """How it frames WebSockets, or why it cannot."""
        return self.websocket or WSGI_WEBSOCKET

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
    combination_caveats: tuple[tuple[str, Caveat], ...] = ()  # (server, caveat): one server's input the app mishandles
    # (what the server passes, caveat): the app's own behaviour, on every server it runs on that passes that input
    # on (a key of PASSES, in ServerSpec.passes), or on every server it runs on ("" : nothing a server could stop)
    caveats: tuple[tuple[str, Caveat], ...] = ()
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
    # How it serves /ws/echo and /ws/broadcast (docs/websockets.md), as its docs write a WebSocket route, or why it
    # does not (ws_cannot); a WSGI app needs neither: its servers say why (WSGI_WEBSOCKET)
    websocket: str = ""
    ws_cannot: str = ""
    # The library that frames its WebSockets where the app picks it, not its server (Go: net/http hands the hijacked
    # connection to the app's library); None: its server's (ServerSpec.websocket)
    ws_framing: WebSocket | None = None

    def __post_init__(self) -> None:
        unknown = {needs for needs, _ in self.caveats} - {"", *PASSES}
        if unknown:
            raise ValueError(f"FrameworkSpec({self.name!r}).caveats: {sorted(unknown)} are not of {PASSES} (or \"\")")
        if self.websocket and self.ws_cannot or not (self.websocket or self.ws_cannot or self.interface == WSGI):
            raise ValueError(f"FrameworkSpec({self.name!r}): say how it serves the WebSocket routes (websocket=) "
                             "or why it does not (ws_cannot=), not both")

    @property
    def entry_prefix(self) -> str:
        return self.prefix or self.name

    def caveats_on(self, server: ServerSpec) -> tuple[Caveat, ...]:
        """Its caveats on that server: its own about what that server passes on, then those it declares for that
        server by name (a case stands for the last caveat that lists it: the server-specific one)."""
        return (*(caveat for needs, caveat in self.caveats if not needs or needs in server.passes),
                *(caveat for on, caveat in self.combination_caveats if on == server.name))

    def all_caveats(self) -> tuple[Caveat, ...]:
        return (*(caveat for _, caveat in self.combination_caveats), *(caveat for _, caveat in self.caveats))


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

# The HTTP/1.1 conformance caveat of the servers built on twisted.web's HTTPChannel (twisted's own Site and WSGIResource,
# daphne): tests/conformance/known.py (twisted-web) says which cases it stands for.
TWISTED_WEB_PARSER = Caveat(
    "twisted-web",
    "HTTP/1.1 (smuggling-relevant): twisted.web reads the body of `Transfer-Encoding: identity` as the next"
    " request (or not: a race), frames `chunked` then `identity` on two lines as chunked, checks no Host, "
    "hands `GET *` and the authority-form to the app, routes an absolute-form target as a path (404), "
    "refuses BWS in a chunk extension, HTTP/1.2 and a Transfer-Encoding list with an empty element, and "
    "waits for a CRLF after a head ended by bare LFs"
    "; a trailer line ended by a bare LF hides the next request in the trailer section (desync), and a "
    "bare LF ending the chunked body is taken",
    effects=('desync', 'accepts-invalid', 'stall', 'over-strict'))

# twisted.web's HTTP/2 (twisted.web._http2 on python-hyper's h2), served by twisted's specs and daphne's:
# docs/http2-grid.md has the reproductions
TWISTED_H2_OPEN_AFTER_GOAWAY = Caveat(
    "twisted-h2-open-after-goaway",
    "HTTP/2: after the GOAWAY of a connection error the TLS connection stays open until its timers end it (75 s), where "
    "RFC 9113 section 5.4.1 says close, and reads on: h2 buffers every byte read after its error, so a CONTINUATION "
    "flood grows the worker's memory without bound; HPACK decoding errors carry PROTOCOL_ERROR, not COMPRESSION_ERROR "
    "(h2). h2spec waits out 15 cases for it",
    h2spec=("generic/3.8/1", "hpack/2.3.3/1", "hpack/4.2/1", "hpack/5.2/1", "hpack/5.2/2", "hpack/5.2/3", "hpack/6.1/1",
            "hpack/6.3/1", "http2/3.5/2", "http2/4.3/1", "http2/5.4.1/1", "http2/6.5/1", "http2/6.7/4", "http2/6.9.2/2",
            "http2/7/1"))

# How the servers on twisted.web terminate TLS: twisted's own SSL endpoint, on pyOpenSSL (twisted[tls]), not the ssl module.
TWISTED_TLS = Tls("pyOpenSSL (OpenSSL through cffi)", setting="its SSL server endpoint (ssl:PORT:privateKey=KEY:certKey=CERT)",
    code_paths=("twisted/protocols/tls.py", "twisted/internet/_sslverify.py", "OpenSSL/"),
    # cryptography's _rust module carries the OpenSSL that pyOpenSSL calls through cffi
    native=("_rust.abi3.so", "_cffi_backend."),
    where="on the reactor thread: the endpoint wraps the site's HTTP protocol in a TLSMemoryBIOProtocol "
          "(twisted/protocols/tls.py) that feeds pyOpenSSL's memory BIOs, the handshake included")

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
