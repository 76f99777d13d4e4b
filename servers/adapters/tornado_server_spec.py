"""tornado's HTTPServer: a WSGIContainer for WSGI apps, and tornado's own RequestHandlers
(servers/adapters/tornado_server.py)."""
from servers.adapters.sizing import THREADS_PER_WORKER
from servers.core.specs import WebSocket, PASSES_METHOD_AS_SENT, ASYNCIO_PATHS, SSL_MODULE, SSL_NATIVE, SSL_PATHS, WSGI, Caveat, Http2, ServerSpec, Tls

_PARSER = Caveat("tornado-parser", "HTTP/1.1: tornado refuses valid chunk extensions, trailer fields and Transfer-Encoding "
                                   "lists with an empty element (400), routes an absolute-form target as a path (404), "
                                   "hands `GET *` and the authority-form to the app, keeps an HTTP/1.0 keep-alive "
                                   "connection after a chunked body"
                                   "; it sends 100 Continue to an HTTP/1.0 request (RFC 9110 15.2 forbids it)",
                          effects=("desync", "accepts-invalid", "no-close", "over-strict"))

_TLS = Tls(SSL_MODULE, setting="HTTPServer's ssl_options (an SSLContext)", native=SSL_NATIVE, code_paths=SSL_PATHS,
           where="on each process's event-loop thread: tornado's SSLIOStream drives a non-blocking ssl.SSLSocket, "
                 "the handshake included, before HTTP1Connection reads the request (tornado/iostream.py)")

_HTTP2 = Http2(cannot="tornado's HTTPServer speaks HTTP/1.x only (tornado/http1connection.py); HTTP/2 for "
                     "tornado is a third-party package (tornado_http2), not tornado's")

# pyproject.toml's extras of this module's stacks (python -m servers.generate writes them there).
EXTRAS = {"tornado": ("tornado>=6.6.1",)}
# Where the lessons' source links point: distribution -> (GitHub repository, tag of version v, package folder).
SOURCES = {"tornado": ("tornadoweb/tornado", "v{v}", "")}

# WebSockets: tornado's own framing (tornado/websocket.py), configured by the Application's settings
_WEBSOCKET = WebSocket("tornado's own (tornado/websocket.py)", default_max_message=10 << 20,
                       setting="the Application setting websocket_max_message_size, 10 MiB by default",
                       packages=("tornado",), bad_version=(426, "13"), checks_origin=True, on_sigterm=1006,
                       where="on the event-loop thread: WebSocketProtocol13 reads each frame header and payload from "
                             "the IOStream, unmasks it (tornado's C speedup), reassembles fragments up to the limit "
                             "(1009 past it) and calls the handler's on_message with the whole message")

SPECS = (
    ServerSpec(name="tornado-wsgi", passes=PASSES_METHOD_AS_SENT, interface=WSGI, serve="servers.adapters.tornado_server:serve_wsgi",
               model="threads", entry_suffix="tornado", workers=1, tls=_TLS, http2=_HTTP2,
               description="tornado WSGIContainer, the app on a thread pool off the event loop",
               details="tornado's HTTPServer parses HTTP on the asyncio event loop; the app runs on a "
                       f"ThreadPoolExecutor of {THREADS_PER_WORKER} threads, not on the loop thread, so blocking driver calls do "
                       "not stall the loop. --workers N pre-forks N such processes.",
               caveats=(_PARSER,), pip_packages=("tornado",), lesson="tornado",
               code_paths=("tornado/", "concurrent/futures/", *ASYNCIO_PATHS)),
    ServerSpec(name="tornado", websocket=_WEBSOCKET, passes=PASSES_METHOD_AS_SENT, interface="tornado", serve="servers.adapters.tornado_server:serve_native",
               model="asyncio", entry_suffix="", workers=1, tls=_TLS, http2=_HTTP2,
               description="its HTTPServer, RequestHandlers on the asyncio event loop",
               details="Handlers are coroutines: AsyncMongoClient and redis.asyncio calls yield to the loop. "
                       "One process by default; --workers N pre-forks N processes on one socket, each with "
                       "its own loop and clients.",
               caveats=(_PARSER,), pip_packages=("tornado",), lesson="tornado", code_paths=("tornado/", *ASYNCIO_PATHS)),
)
