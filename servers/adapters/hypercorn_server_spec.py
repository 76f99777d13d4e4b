"""Hypercorn on uvloop, HTTP/1.1 and h2c (servers/adapters/hypercorn_server.py)."""
from servers.adapters.shutdown import GRACE_SECONDS
from servers.adapters.sizing import LISTEN_BACKLOG
from servers.core.specs import WebSocket, ASGI, ASYNCIO_PATHS, SSL_MODULE, SSL_NATIVE, SSL_PATHS, ALPN, PRIOR_KNOWLEDGE, PYTHON_H2, PYTHON_H2_PATHS, UPGRADE, Caveat, Http2, ServerSpec, Tls

# pyproject.toml's extras of this module's stacks (python -m servers.generate writes them there).
# Pinned: the supervisor's exit on a dead worker (hypercorn_server.py) is read off 0.18.0's run().
EXTRAS = {"hypercorn": ("hypercorn==0.18.0", "uvloop>=0.23.0")}
# Where the lessons' source links point: distribution -> (GitHub repository, tag of version v, package folder).
SOURCES = {"hypercorn": ("pgjones/hypercorn", "{v}", "src/"), "h11": ("python-hyper/h11", "v{v}", ""),
           "h2": ("python-hyper/h2", "v{v}", "src/")}

# HTTP/2 is on by default: hypercorn/protocol/__init__.py ProtocolWrapper picks H2Protocol on ALPN "h2", on the
# client preface (H11Protocol raises H2ProtocolAssumedError) and on `Upgrade: h2c` (H2CProtocolRequiredError).
_HTTP2 = Http2(PYTHON_H2, modes=(ALPN, PRIOR_KNOWLEDGE, UPGRADE), default=(ALPN, PRIOR_KNOWLEDGE, UPGRADE),
               setting="Config.alpn_protocols (h2, http/1.1: its default), h2c on every port",
               where="in each worker's event-loop thread: H2Protocol (hypercorn/protocol/h2.py) feeds each read to "
                     "h2's H2Connection and runs every stream as a task of the connection's task group, so the app "
                     "calls of one connection's streams run concurrently on that loop (100 at most: "
                     "h2_max_concurrent_streams)",
               code_paths=(*PYTHON_H2_PATHS, "hypercorn/protocol/h2.py"), packages=("h2", "hpack", "hyperframe"))

# WebSockets: wsproto under hypercorn/protocol/ws_stream.py, also over HTTP/2 (RFC 8441)
_WEBSOCKET = WebSocket("wsproto (hypercorn/protocol/ws_stream.py)",
                       setting="hypercorn's Config.websocket_max_message_size, 16 MiB by default (the contract's: the adapter leaves it)", deflate=True,
                       packages=("wsproto",), on_sigterm=1011,
                       where="in each worker's event-loop thread: WSStream hands the bytes to wsproto's connection, which "
                             "unmasks each frame; WebsocketBuffer reassembles the message up to the limit (1009 past it) "
                             "and the app's receive() gets it whole; over HTTP/2 the same stream runs on an h2 stream "
                             "(RFC 8441's extended CONNECT)")

SPECS = (
    ServerSpec(name="hypercorn", websocket=_WEBSOCKET, interface=ASGI, serve="servers.adapters.hypercorn_server:serve", model="asyncio",
               entry_suffix="hypercorn",
               tls=Tls(SSL_MODULE, setting="Hypercorn's certfile and keyfile (--certfile, --keyfile)",
                       native=SSL_NATIVE, code_paths=SSL_PATHS,
                       where="in each worker's event-loop thread: uvloop's TLS protocol (uvloop/sslproto.pyx, "
                             "Cython) drives an ssl.SSLObject over memory buffers, the handshake included, before "
                             "h11 sees a byte; Hypercorn offers h2 and http/1.1 by ALPN (Config.alpn_protocols)"),
               http2=_HTTP2,
               description="Hypercorn (h11 and h2, uvloop), its supervisor spawning one worker per core",
               details="As `hypercorn --workers N --worker-class uvloop` runs it: the supervisor binds and spawns "
                       "--workers processes on the shared socket; each runs a uvloop event loop and parses "
                       "HTTP/1.1 with h11, or HTTP/2 with h2 when the connection opens with its preface or asks "
                       f"to upgrade (h2c, on the same port). Keep-alive 5 s (Hypercorn's default), backlog "
                       f"{LISTEN_BACKLOG}, no access log. A worker that dies is not replaced: the supervisor stops "
                       f"the others and the server exits 1. SIGTERM: each worker stops accepting and drains for up to "
                       f"{GRACE_SECONDS:g} s, but the supervisor waits only for the first to exit and terminates the "
                       f"others, dropping their requests in flight.",
               caveats=(Caveat("hypercorn-ws-sigterm",
                               "WebSockets: on SIGTERM Hypercorn cancels each open socket's app and sends close 1011 "
                               "(Internal Error) where RFC 6455 section 7.4.1 has 1001 (Going Away) for a server going "
                               "down; on a busy machine some sockets end without a close frame (1006) instead (56 of "
                               "100 in one run of 4 beside the default suite): timing-dependent",
                               evidence=(("test_sigterm_with_100_sockets_open_ends_each_as_the_spec_says_and_exits_"
                                          "within_5s[{name}]", False),)),
                        Caveat("hypercorn-h11",
                               "HTTP/1.1: Hypercorn (h11) keeps the connection after Content-Length with "
                               "Transfer-Encoding, serves a bare CR and NUL in a chunk extension, HTTP/2.0 request "
                               "lines and lower-case methods, `GET *` and the authority-form, switches to HTTP/2 on "
                               "an h2c upgrade and on the HTTP/2 preface (a front that forwards Upgrade lets clients "
                               "past it), checks no Host value, routes an absolute-form target as a path (404), and "
                               "refuses BWS in a chunk extension, 20-digit sizes, Transfer-Encoding lists with an "
                               "empty element and the request before bytes that follow `Connection: close` or an "
                               "HTTP/1.0 request; it closes instead of reading a body a framework leaves unread when it is large "
                               "or comes after the answer"
                               "; it refuses an HTTP/1.0 request with `Expect: 100-continue` (400) and takes a bare "
                               "LF ending the chunked body",
                               effects=("accepts-invalid", "no-close", "over-strict", "not-observed")),
                        Caveat("hypercorn-h2-goaway",
                               "over HTTP/2 Hypercorn ends a connection after 1,000 requests (keep_alive_max_requests) "
                               "with a graceful GOAWAY, then answers the streams the client had sent before it saw "
                               "that with a second GOAWAY, PROTOCOL_ERROR (h2 refuses frames once the connection is "
                               "closed): clients (Go's) fail the requests in flight instead of retrying them",
                               # a race: whether the client has streams in flight when the GOAWAY comes (seen
                               # passing once, blacksheep_hypercorn-h2c in a reliability run of 2026-12-07)
                               evidence=(("test_a_long_lived_connection_is_closed_without_an_error[{name}-*]", False),)),
                        Caveat("hypercorn-eof-idle",
                               "a connection its client closes (FIN) before sending anything is held until the 5 s "
                               "keep-alive timeout, not closed at once",
                               # the barrage is random: a run may cut no request down to nothing
                               evidence=(("test_hostile_requests_are_refused_not_crashing[{name}]", False),)),
                        Caveat("hypercorn-256-connections",
                               "at 256 keep-alive connections on a busy 2-core machine some requests wait past 2 s: "
                               "a worker spends about 5 times uvicorn's CPU per request (docs/servers/hypercorn.md)",
                               # timing-dependent: a run on a quiet machine keeps every request under 2 s
                               evidence=(("test_holds_256_connections[{name}-*]", False),)),
                        Caveat("hypercorn-worker-death",
                               "a worker that dies is not replaced: Hypercorn's supervisor stops every worker and "
                               "the server exits (1 here; `hypercorn` itself exits 0, so a restart-on-failure "
                               "process manager leaves it down)",
                               evidence=(("test_killed_worker_is_replaced[{name}]", True),)),),
               pip_packages=("hypercorn", "h11", "h2", "uvloop"), lesson="hypercorn",
               code_paths=("hypercorn/", "h11/", *ASYNCIO_PATHS)),
)
