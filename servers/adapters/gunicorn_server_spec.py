"""gunicorn's sync, gthread and gevent workers, and its native ASGI worker (servers/adapters/gunicorn_server.py)."""
from servers.adapters.shutdown import GRACE_SECONDS
from servers.adapters.sizing import LISTEN_BACKLOG, THREADS_PER_WORKER
from servers.core.specs import (WebSocket, ALPN, ASGI, ASYNCIO_PATHS, PRIOR_KNOWLEDGE, PYTHON_H2, PYTHON_H2_PATHS, SSL_MODULE,
                                SSL_NATIVE, SSL_PATHS, UPGRADE, WSGI, Caveat, Http2, ServerSpec, Setting, Tls)

_COMMON = dict(interface=WSGI, replaces_dead_workers=True)
# TLS: gunicorn's certfile and keyfile settings. The sync and gthread workers wrap each connection through
# gunicorn/sock.py ssl_wrap_socket, which builds a new SSLContext (create_default_context, then the
# certificate files loaded again) for every connection; the gevent worker builds one at its start.
_TLS_SETTING = "gunicorn's certfile and keyfile settings (--certfile, --keyfile)"
_PER_CONNECTION_CONTEXT = ("a new SSLContext for every connection (gunicorn/sock.py ssl_wrap_socket: "
                           "create_default_context and the certificate files loaded again)")
# The safety settings its users turn on (grid columns: tests/conformance/settings.py). The adapter pins the
# pure-Python parser; gunicorn's default "auto" would take the C one whenever gunicorn[fast] is installed.
_C_PARSER = Setting("c-parser", "gunicorn's C parser (http_parser=fast, gunicorn[fast]'s gunicorn_h1c)",
                    options=(("http_parser", "fast"),), needs="gunicorn_h1c")
_KEEPALIVE_OFF = Setting("keep-alive-off", "keep-alive off (--keep-alive 0): the connection closes after each response",
                         options=(("keepalive", 0),))
_PARSER = Caveat("gunicorn-parser", "HTTP/1.1: gunicorn hands the app a Content-Length body cut short by the client's "
                                     "EOF as if complete (wsgi.input ends without an error), checks no Host, echoes "
                                     "HTTP/1.2 in its status line (an answer no client reads), refuses Transfer-Encoding "
                                     "lists with an empty element (501) and trailer fields named Content-Length, "
                                     "Transfer-Encoding or Host (400); the sync worker closes after each answer, so a "
                                     "body a framework leaves unread is never read",
                 effects=("accepts-invalid", "over-strict", "not-observed"))

# HTTP/2 (gunicorn's http2 package, on h2): off by default (http_protocols "h1"); --http2 sets http_protocols "h2,h1"
# (ALPN offers h2 then http/1.1 when there is TLS) and, without TLS, http2_cleartext "both": the client preface (prior
# knowledge) and `Upgrade: h2c`, from the peers of forwarded_allow_ips only (its default, 127.0.0.1 and ::1: h2c is
# meant from a proxy on the same host; others get HTTP/1.1 as if it were off, gunicorn/http2/negotiation.py).
_H2_SETTING = ("gunicorn's http_protocols \"h2,h1\" and, in cleartext, http2_cleartext \"both\" (--http-protocols, "
               "--http2-cleartext)")
_H2_CLEARTEXT_PEERS = ("h2c only from the peers of forwarded_allow_ips (127.0.0.1 and ::1 by default: meant from a proxy on "
                       "the same host), anyone else served HTTP/1.1")
_H2_PACKAGES = ("h2", "hpack", "hyperframe")
_H2_PATHS = (*PYTHON_H2_PATHS, "gunicorn/http2/")


# What docs/http2-grid.md's h2spec runs found of gunicorn's HTTP/2 (--http2), per worker.
_H2_RACES = Caveat("gunicorn-h2-races",
                   "HTTP/2 (--http2): the gthread and gevent workers serve the requests a read completes before they "
                   "read on, so an invalid frame that follows a request (a second HEADERS, a pseudo-header in trailers, "
                   "DATA that does not add up to its content-length, a window past 2^31-1) meets an answer already "
                   "sent, and a malformed request is at times left unanswered past h2spec's 2 s: h2spec races them "
                   "(docs/http2-grid.md)",
                   h2spec=tuple(f"~http2/{case}" for case in ("6.9.1/3", "8.1/1", "8.1.2/1", "8.1.2.1/1", "8.1.2.1/2",
                                                              "8.1.2.1/3", "8.1.2.6/1", "8.1.2.6/2", "8.2/1")))
_GEVENT_H2_RESET = Caveat("gunicorn-gevent-h2-reset",
                          "HTTP/2 over TLS (--http2): gunicorn's gevent worker ends a connection after the peer's "
                          "GOAWAY or a connection error (a PING of the wrong length or on a stream) with a TCP reset, "
                          "so the peer reads a reset instead of the GOAWAY and close h2spec expects; its h2c does so in "
                          "some runs (1 of 3 recorded), the gthread worker's TLS ends them cleanly (docs/http2-grid.md)",
                          h2spec=("h2:generic/3.8/1", "h2:http2/5.4.1/1", "h2:http2/6.7/4", "h2:http2/7/1",
                                  "h2c:~generic/3.8/1", "h2c:~http2/6.7/4"))


def _http2(where: str) -> Http2:
    return Http2(PYTHON_H2, modes=(ALPN, PRIOR_KNOWLEDGE, UPGRADE), setting=_H2_SETTING,
                 where=f"{where}; {_H2_CLEARTEXT_PEERS}", code_paths=_H2_PATHS, packages=_H2_PACKAGES)


# pyproject.toml's extras of this module's stacks (python -m servers.generate writes them there).
# gunicorn_h1c: the C parser of the c-parser setting (the adapter pins the Python one by default). Named
# itself, not as gunicorn[fast]: 27.0.1's [fast] asks for gunicorn_h1c>=0.6.14, which PyPI does not serve
# (0.6.10 is its newest), so the extra made the whole install fail.
# uvloop: the ASGI worker's loop (asgi_loop), pinned by the adapter rather than found by chance.
# [http2]: h2, which --http2 (http_protocols "h2,h1") needs; gunicorn's own extra for it.
EXTRAS = {"gunicorn": ("gunicorn[http2]>=27.0.1", "gunicorn_h1c>=0.6.10", "uvloop>=0.23.0")}
# Where the lessons' source links point: distribution -> (GitHub repository, tag of version v, package folder).
SOURCES = {"gunicorn": ("benoitc/gunicorn", "{v}", "")}

# WebSockets: the asgi worker's own pure-Python framing (gunicorn/asgi/websocket.py), no extensions
_WEBSOCKET = WebSocket("gunicorn's own (gunicorn/asgi/websocket.py, pure Python)",
                       setting="gunicorn's websocket_max_message_size (--websocket-max-message-size), 16 MiB by default (the contract's: the adapter leaves it)",
                       packages=("gunicorn",), bad_version=(426, "13"), on_sigterm=1006,
                       where="in each worker's event-loop thread: gunicorn's WebSocketProtocol parses and unmasks each "
                             "frame in Python, refuses any RSV bit (no extensions), reassembles up to the limit (1009 "
                             "past it) and hands the app each whole message")

SPECS = (
    ServerSpec(name="gunicorn-sync", serve="servers.adapters.gunicorn_server:serve_sync", model="processes",
               entry_suffix="gunicorn", keepalive=False,
               tls=Tls(SSL_MODULE, setting=_TLS_SETTING, native=SSL_NATIVE, code_paths=SSL_PATHS,
                       where=f"in each worker process, on its one thread: each accepted connection is wrapped in an "
                             f"ssl.SSLSocket made from {_PER_CONNECTION_CONTEXT}, and handshakes on the first "
                             f"read of the request (gunicorn/workers/sync.py)"),
               http2=Http2(cannot="gunicorn's sync worker has no HTTP/2: with h2 in http_protocols it logs a warning "
                                  "and serves HTTP/1.1 (gunicorn/workers/sync.py run); gthread, gevent and asgi have it"),
               description="gunicorn sync workers, one request per worker process at a time",
               details="gunicorn's arbiter forks --workers processes, each serving one request at a time and "
                       "closing the connection after every response (no keep-alive); each worker builds the "
                       "app after the fork, so its pooled clients are its own. The arbiter replaces a worker "
                       "that dies.",
               caveats=(Caveat("slow-clients", "a slow client holds a whole sync worker: deploy behind a "
                                               "buffering proxy, as gunicorn's docs say",
                               # a silent connection is the slowest client of all: it holds a sync worker the same way
                               evidence=(("test_slow_headers_do_not_stall_other_clients[{name}]", True),
                                         ("test_silent_connections_do_not_stall_other_clients[{name}]", True))), _PARSER),
               settings=(_C_PARSER,),
               pip_packages=("gunicorn",), lesson="gunicorn-sync", code_paths=("gunicorn/",), **_COMMON),
    ServerSpec(name="gunicorn-gthread", serve="servers.adapters.gunicorn_server:serve_gthread", model="threads",
               entry_suffix="gunicorn_gthread",
               tls=Tls(SSL_MODULE, setting=_TLS_SETTING, native=SSL_NATIVE, code_paths=SSL_PATHS,
                       where=f"in the pool thread that takes a new connection: it wraps it in an ssl.SSLSocket made "
                             f"from {_PER_CONNECTION_CONTEXT} and handshakes there before the first request "
                             f"(gunicorn/workers/gthread.py TConn.init); the pool threads read and write the kept "
                             f"connections, the main thread only polls them"),
               http2=_http2(f"in the pool thread that takes the connection, for the connection's whole life: "
                            f"gunicorn/http2/connection.py drives h2's H2Connection over the blocking socket and the "
                            f"thread serves the requests of each read one after another (workers/gthread.py "
                            f"handle_http2), so one connection's streams are answered one at a time and each open "
                            f"HTTP/2 connection holds one of the worker's {THREADS_PER_WORKER} threads"),
               description="gunicorn gthread workers, a thread pool per process",
               details=f"Each of --workers processes runs a pool of {THREADS_PER_WORKER} threads; the main thread of each worker "
                       "polls the kept-alive connections, and a blocking driver call holds one thread of its "
                       "worker's pool.",
               caveats=(Caveat("silent-connections",
                               "gunicorn 27's gthread worker hands each new connection to a pool thread that "
                               "waits up to 5 s for its first bytes: more silent connections (browser "
                               "pre-connects, a load tool's spare dials) than threads stall every other client "
                               "meanwhile",
                               evidence=(("test_silent_connections_do_not_stall_other_clients[{name}]", True),)), _PARSER,
                        _H2_RACES),
               settings=(_KEEPALIVE_OFF, _C_PARSER),
               pip_packages=("gunicorn",), lesson="gunicorn-gthread",
               code_paths=("gunicorn/", "concurrent/futures/"),
               free_threaded="the pool threads of a worker run Python at the same time, so one worker can keep "
                             "every core busy; what stays one at a time is its main thread's selector, which "
                             "accepts and polls the kept-alive connections.", **_COMMON),
    ServerSpec(name="gunicorn-gevent", serve="servers.adapters.gunicorn_server:serve_gevent", model="greenlets",
               entry_suffix="gunicorn_gevent",
               tls=Tls(SSL_MODULE, setting=_TLS_SETTING, native=SSL_NATIVE, code_paths=(*SSL_PATHS, "gevent/ssl.py"),
                       where="in each worker, in the connection's greenlet: gevent's StreamServer wraps each "
                             "accepted socket in gevent's cooperative SSLSocket (gevent/ssl.py, over the ssl "
                             "module's _ssl) with one SSLContext made at the worker's start "
                             "(gunicorn/workers/ggevent.py), and handshakes before the request is read"),
               http2=_http2("in the connection's greenlet: gunicorn/http2/connection.py drives h2's H2Connection over "
                            "gevent's cooperative socket and the greenlet serves the requests of each read one after "
                            "another (workers/base_async.py handle_http2), so one connection's streams are answered one "
                            "at a time (a backend call yields to other connections, not to the same connection's streams)"),
               description="gunicorn gevent workers, a greenlet per connection",
               details="Each worker monkey-patches, then accepts on the shared socket and runs a greenlet per "
                       "connection (kept alive); blocking pymongo and redis-py calls yield to gevent's hub, so "
                       "one worker serves many requests at once.",
               caveats=(Caveat("connection-bursts",
                               "with more than one worker each accepts one connection per loop turn (gunicorn "
                               "#2266): a burst of new connections waits in the accept queue, some past 2 s at "
                               "256 at once",
                               # timing-dependent: a burst is not always slow enough to reach the 2 s bound
                               evidence=(("test_holds_256_connections[{name}-*]", False),)), _PARSER,
                        _H2_RACES, _GEVENT_H2_RESET),
               settings=(_KEEPALIVE_OFF, _C_PARSER),
               pip_packages=("gunicorn", "gevent"), lesson="gunicorn-gevent",
               code_paths=("gunicorn/", "gevent/", "greenlet/"), **_COMMON),
    ServerSpec(name="gunicorn-asgi", websocket=_WEBSOCKET, serve="servers.adapters.gunicorn_server:serve_asgi",
               model="asyncio", entry_suffix="gunicorn_asgi",
               tls=Tls(SSL_MODULE, setting=_TLS_SETTING, native=SSL_NATIVE, code_paths=SSL_PATHS,
                       where="in each worker's event-loop thread: the worker builds one SSLContext at its start "
                             "(gunicorn/workers/gasgi.py _get_ssl_context) and hands it to loop.create_server, so "
                             "uvloop's TLS protocol (uvloop/sslproto.pyx, Cython) drives an ssl.SSLObject over memory "
                             "buffers, the handshake included, before gunicorn's parser sees a byte"),
               http2=_http2("in each worker's event-loop thread: ASGIProtocol (gunicorn/asgi/protocol.py) hands an h2 "
                            "connection to gunicorn/http2/async_connection.py, which drives h2's H2Connection, and "
                            "starts a task per stream as soon as its headers are in, so one connection's streams run "
                            "concurrently on the loop (100 at most: http2_max_concurrent_streams)"),
               description="gunicorn's native ASGI worker (-k asgi): its own HTTP parser on a uvloop event loop per "
                           "worker process",
               details="gunicorn's arbiter forks --workers processes (`gunicorn -k asgi`, gunicorn/workers/gasgi.py); "
                       "each runs a uvloop event loop (asgi_loop) with an asyncio Protocol per connection "
                       "(gunicorn/asgi/protocol.py) that parses HTTP/1.1 with gunicorn's own callback parser (the "
                       "pure-Python one, pinned: the C parser gunicorn_h1c is a setting) and runs the app's "
                       "coroutines as tasks, so a worker blocks only where a handler computes. Lifespan auto; "
                       f"keep-alive 2 s (gunicorn's default); backlog {LISTEN_BACKLOG}; no access log. The arbiter "
                       f"replaces a worker that dies; SIGTERM: each worker stops accepting and waits up to "
                       f"{GRACE_SECONDS:g} s (graceful_timeout) for its connections.",
               caveats=(Caveat("gunicorn-asgi-parser",
                               "HTTP/1.1: gunicorn's ASGI worker (its own parser, gunicorn/asgi/parser.py) checks no "
                               "Host and no trailer field name, hands an absolute-form target to the app as the path "
                               "(404), refuses HTTP/1.2 (400), Transfer-Encoding lists with an empty element (501) "
                               "and trailers carrying Content-Length, Transfer-Encoding or Host (400), and closes "
                               "instead of reading a body a framework leaves unread when it is large or comes after "
                               "the answer", effects=("accepts-invalid", "over-strict", "not-observed")),
                        Caveat("gunicorn-asgi-256-connections",
                               "at 256 keep-alive connections on a busy 2-core machine a request or two wait past 2 s "
                               "(5 of its 8 stacks in the recorded run, other work taking most of the machine)",
                               # timing-dependent: a run on a quieter machine keeps every request under 2 s
                               evidence=(("test_holds_256_connections[{name}-*]", False),)),
                        Caveat("gunicorn-asgi-h2-headers",
                               "over HTTP/2 gunicorn 27's ASGI worker sends neither Date nor Server: its HTTP/1.1 path "
                               "adds both (gunicorn/asgi/protocol.py _send_response_start), its HTTP/2 path sends the "
                               "app's headers as they are (RFC 9110 6.6.1 asks an origin server with a clock for Date)",
                               evidence=(("test_h2_answers_carry_date_and_server[{name}-*]", True),)),),
               settings=(_KEEPALIVE_OFF, _C_PARSER),
               pip_packages=("gunicorn", "uvloop"), lesson="gunicorn-asgi",
               code_paths=("gunicorn/", *ASYNCIO_PATHS), **{**_COMMON, "interface": ASGI}),
)
