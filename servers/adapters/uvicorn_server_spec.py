"""uvicorn with uvloop and httptools (servers/adapters/uvicorn_server.py)."""
from servers.adapters.shutdown import GRACE_SECONDS
from servers.adapters.sizing import LISTEN_BACKLOG
from servers.core.specs import WebSocket, ASGI, ASYNCIO_PATHS, SSL_MODULE, SSL_NATIVE, SSL_PATHS, ALPN, PRIOR_KNOWLEDGE, Caveat, Http2, ServerSpec, Setting, Tls

# HTTP/2 (uvicorn 0.55: http2=True, which needs http="zttp"): AutoZttpProtocol (uvicorn/protocols/http/auto_zttp_impl.py)
# takes ALPN's choice over TLS and sniffs the preface in cleartext; HTTP/1.1 is then zttp's too, not httptools'.
_HTTP2 = Http2("zttp (a Zig core; uvicorn's release notes call it experimental, not for production traffic yet)",
               modes=(ALPN, PRIOR_KNOWLEDGE), setting="uvicorn's http2=True with http=\"zttp\" (--http zttp --http2)",
               where="in each worker's event-loop thread: ZttpH2Protocol (uvicorn/protocols/http/zttp_h2_impl.py) feeds "
                     "each read to zttp's H2Connection and runs every stream's RequestResponseCycle as a task on that "
                     "loop; with --http2 the connection's first bytes choose, and HTTP/1.1 connections are parsed by "
                     "zttp as well (ZttpProtocol), not httptools",
               missing="no `Upgrade: h2c`: AutoZttpProtocol switches on the ALPN result or the preface only",
               code_paths=("uvicorn/protocols/http/zttp_h2_impl.py", "uvicorn/protocols/http/auto_zttp_impl.py", "zttp/"),
               packages=("zttp",))

# pyproject.toml's extras of this module's stacks (python -m servers.generate writes them there).
# zttp: the HTTP/2 of --http2 (the HTTP/1.1 of h1 stays httptools')
# websockets: its WebSockets (ws="auto" picks websockets' sans-I/O protocol; uvicorn[standard] installs it)
EXTRAS = {"uvicorn": ("uvicorn>=0.55.0", "uvloop>=0.23.0", "httptools>=0.9.0", "zttp>=0.0.35", "websockets>=17.4")}
# Where the lessons' source links point: distribution -> (GitHub repository, tag of version v, package folder).
SOURCES = {"uvicorn": ("Kludex/uvicorn", "{v}", "")}

# WebSockets (uvicorn 0.55): ws="auto" (its default, which the adapter keeps) picks the websockets library's sans-I/O
# protocol when websockets is installed (uvicorn/protocols/websockets/auto.py), wsproto's otherwise
_WEBSOCKET = WebSocket("websockets' sans-I/O ServerProtocol (uvicorn's ws=\"auto\" picks websockets-sansio)",
                       setting="uvicorn's ws_max_size (--ws-max-size), 16 MiB by default",
                       pings="every 20 s, the socket closed after 20 s without a pong (ws_ping_interval, ws_ping_timeout)",
                       deflate=True, packages=("websockets",), on_sigterm=1012,
                       where="in each worker's event-loop thread: WebSocketsSansIOProtocol "
                             "(uvicorn/protocols/websockets/websockets_sansio_impl.py) feeds each read to the websockets "
                             "library's ServerProtocol, which unmasks and reassembles; each whole message goes to the "
                             "app's receive() as one websocket.receive event")

SPECS = (
    ServerSpec(name="uvicorn", websocket=_WEBSOCKET, interface=ASGI, serve="servers.adapters.uvicorn_server:serve", model="asyncio",
               entry_suffix="uvicorn",
               tls=Tls(SSL_MODULE, setting="uvicorn's ssl_certfile and ssl_keyfile (--ssl-certfile, --ssl-keyfile)",
                       native=SSL_NATIVE, code_paths=SSL_PATHS,
                       where="in each worker's event-loop thread: uvloop's TLS protocol (uvloop/sslproto.pyx, "
                             "Cython) drives an ssl.SSLObject over memory buffers, the handshake included, before "
                             "httptools sees a byte"),
               http2=_HTTP2,
               description="uvicorn (uvloop, httptools), its supervisor spawning one worker per core",
               details="As the frameworks' docs deploy it (`uvicorn --workers N --loop uvloop --http "
                       "httptools`): the supervisor spawns --workers processes on one shared socket and "
                       "replaces one that dies; each runs a uvloop event loop, parses HTTP with httptools and "
                       "awaits the app, so a worker blocks only where a handler computes. Keep-alive 5 s "
                       f"(uvicorn's default), backlog {LISTEN_BACKLOG}, no access log; SIGTERM: the supervisor stops the "
                       f"workers, each drains for up to {GRACE_SECONDS:g} s.",
               caveats=(Caveat("pipelined-garbage",
                               "uvicorn's httptools protocol answers a valid request followed in the same read "
                               "by invalid bytes with a 400 alone: the valid request is dropped unanswered",
                               # the barrage is random: a run may send no pipelined garbage
                               evidence=(("test_hostile_requests_are_refused_not_crashing[{name}]", False),)),
                        Caveat("uvicorn-zttp-stream-limit",
                               "with --http2, zttp ends an HTTP/2 connection after 4,096 streams with GOAWAY "
                               "ENHANCE_YOUR_CALM, not NO_ERROR, and the requests in flight go unanswered: clients "
                               "(Go's) fail them instead of retrying on a new connection",
                               evidence=(("test_a_long_lived_connection_is_closed_without_an_error[{name}-*]", True),)),
                        Caveat("uvicorn-zttp-h2spec",
                               "with --http2, zttp takes a stream made to depend on itself (by HEADERS or PRIORITY) and a "
                               "PRIORITY frame on stream 0 without the PROTOCOL_ERROR RFC 7540 section 5.3.1 and RFC 9113 "
                               "section 6.3 require, and in cleartext answers a GOAWAY with a TCP reset in some runs (1 of 3 recorded) "
                               "where h2spec expects the connection closed (docs/http2-grid.md)",
                               h2spec=("http2/5.3.1/1", "http2/5.3.1/2", "http2/6.3/1", "h2c:~generic/3.8/1")),
                        Caveat("uvicorn-httptools",
                               "HTTP/1.1 (smuggling-relevant): uvicorn (httptools) answers a request that asks for an"
                               " h2c upgrade and drops the request after it on that connection, serves HTTP/2.0 and "
                               "HTTP/0.9 request lines and `GET *`, checks no Host, and refuses HTTP/1.2, BWS in a "
                               "chunk extension, `Transfer-Encoding: chunked,` and trailer fields named "
                               "Content-Length or Transfer-Encoding"
                               "; it sends 100 Continue to an HTTP/1.0 request (RFC 9110 15.2 forbids it: an "
                               "HTTP/1.0 client reads it as the answer)",
                               effects=('desync', 'accepts-invalid', 'over-strict'))),
               # the safety settings its users turn on (grid columns: tests/conformance/settings.py)
               settings=(Setting("h11", "uvicorn's pure-Python h11 protocol (--http h11) instead of httptools",
                                 options=(("http", "h11"),)),),
               pip_packages=("uvicorn", "uvloop", "httptools"), lesson="uvicorn",
               code_paths=("uvicorn/", "httptools/", *ASYNCIO_PATHS), replaces_dead_workers=True),
)
