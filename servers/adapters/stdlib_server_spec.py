"""The stdlib's http.server, single-threaded and threaded (servers/adapters/stdlib_server.py)."""
from servers.core.specs import WebSocket, HTTP_SERVER_PARSER, SOCKETSERVER_PATHS, SSL_MODULE, SSL_NATIVE, SSL_PATHS, Http2, ServerSpec, Tls

# TLS as Python 3.14's http.server.HTTPSServer does it (server_activate wraps the listening socket), written
# out for 3.11 and 3.13: ssl.SSLSocket.accept handshakes each new connection in the accepting thread.
_TLS = Tls(SSL_MODULE, setting="the listening socket wrapped by an SSLContext (Python 3.14's HTTPSServer)",
           native=SSL_NATIVE, code_paths=SSL_PATHS,
           where="in the one thread that accepts: ssl.SSLSocket.accept handshakes each new connection before it is "
                 "served (or its thread started), one at a time and with no timeout (a client that connects and "
                 "stays silent holds every other one)")
# Both: no chunked request bodies. http.server leaves the body to the handler, and the stdlib has no
# reader of a chunked one (tests/test_reflection.py: the handler reads none and closes the connection).
_HTTP2 = Http2(cannot="http.server speaks HTTP/1.x only (BaseHTTPRequestHandler.parse_request refuses any version "
                     "above 1.x with 505)")
_COMMON = dict(interface="stdlib", workers=1, max_workers=1, lesson="http-server", code_paths=SOCKETSERVER_PATHS, tls=_TLS,
               http2=_HTTP2,
               caveats=(HTTP_SERVER_PARSER,))

# http.server has no upgrade: a handler that wants WebSockets frames them by hand on self.connection
_WEBSOCKET = WebSocket(cannot="http.server has no WebSocket support: a handler would frame them by hand on its socket")

SPECS = (
    ServerSpec(name="http.server", websocket=_WEBSOCKET, serve="servers.adapters.stdlib_server:serve_single", model="sync",
               entry_suffix="", keepalive=False,
               description="the single-threaded http.server.HTTPServer",
               details="The stdlib baseline: one request at a time, HTTP/1.0, a listen backlog of 5; blocking "
                       "driver calls stall every client.",
               dev_only="http.server: single-threaded, HTTP/1.0, listen backlog of 5, no chunked request bodies", **_COMMON),
    ServerSpec(name="http.server-threaded", websocket=_WEBSOCKET, serve="servers.adapters.stdlib_server:serve_threaded",
               model="threads", entry_suffix="threaded",
               description="http.server.ThreadingHTTPServer, a thread per connection",
               details="The stdlib baseline: a new thread per connection, HTTP/1.1 keep-alive, a listen "
                       "backlog of 5.",
               dev_only="http.server: unbounded threads, listen backlog of 5, not hardened, no chunked request bodies",
               free_threaded="each connection's thread parses and answers at the same time as the others; the "
                             "accepting thread stays one at a time.", **_COMMON),
)
