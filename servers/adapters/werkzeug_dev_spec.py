"""The werkzeug development server's three variants (servers/adapters/werkzeug_dev.py)."""
from servers.core.specs import PASSES_METHOD_AS_SENT, HTTP_SERVER_PARSER, SOCKETSERVER_PATHS, SSL_MODULE, SSL_NATIVE, SSL_PATHS, WSGI, Http2, ServerSpec, Tls

# TLS: make_server's ssl_context wraps the listening socket (werkzeug/serving.py BaseWSGIServer), so
# ssl.SSLSocket.accept handshakes each new connection in the accepting thread, before any thread or child
# of that connection exists.
_TLS = Tls(SSL_MODULE, setting="make_server's ssl_context (a (certfile, keyfile) pair)", native=SSL_NATIVE, code_paths=SSL_PATHS,
           where="in the one thread that accepts: the listening socket is an ssl.SSLSocket, whose accept() "
                 "handshakes each new connection before its thread or child starts, one connection at a time "
                 "and with no timeout (a client that connects and stays silent holds every other one)")
_HTTP2 = Http2(cannot="werkzeug's dev server speaks HTTP/1.x only: its WSGIRequestHandler is http.server's "
                     "BaseHTTPRequestHandler")
_COMMON = dict(interface=WSGI, keepalive=False, pip_packages=("werkzeug",), lesson="werkzeug-dev", tls=_TLS, http2=_HTTP2,
               code_paths=("werkzeug/serving.py", *SOCKETSERVER_PATHS),
               caveats=(HTTP_SERVER_PARSER,))

# Which of the three has a parser owner of its own (catalog.parser_owner), read off werkzeug 3.1's
# serving.py: all three run one request handler (WSGIRequestHandler on http.server's parse_request) and
# close every connection after one response (run_wsgi sends `Connection: close` always). But the threaded
# and forking servers set the handler's protocol_version to HTTP/1.1 (BaseWSGIServer.__init__, for
# multithread or multiprocess), the single one keeps http.server's HTTP/1.0, and parse_request reads that:
# with HTTP/1.1 it answers `Expect: 100-continue` itself, before werkzeug's own 100 (two interim answers),
# and the status line says HTTP/1.1. So the single server cannot stand for the threaded one; the forking one
# differs from the threaded one only in who runs the handler (a child process per connection instead of a
# thread: ForkingMixIn and ThreadingMixIn both call finish_request, then shutdown_request), so the threaded
# server's owner stands for it.
_FORKING_SHARES = ("werkzeug-threaded",
                   "the same WSGIRequestHandler with the same protocol_version (HTTP/1.1) and one request per "
                   "connection: a forked child per connection runs what the threaded server's thread runs")

# Where the lessons' source links point: distribution -> (GitHub repository, tag of version v, package folder).
SOURCES = {"werkzeug": ("pallets/werkzeug", "{v}", "src/")}

SPECS = (
    ServerSpec(name="werkzeug", passes=PASSES_METHOD_AS_SENT, serve="servers.adapters.werkzeug_dev:serve_single", model="sync",
               entry_suffix="dev", workers=1, max_workers=1,
               description="werkzeug dev server, one thread: one request at a time",
               details="What `flask run --without-threads` does: one thread accepts and serves one HTTP/1.0 "
                       "request at a time, so a slow Mongo or Redis call blocks every other client. No "
                       "debugger, no reloader. A baseline, not a production server.",
               dev_only="werkzeug dev server, single-threaded, HTTP/1.0: one request at a time", **_COMMON),
    ServerSpec(name="werkzeug-threaded", passes=PASSES_METHOD_AS_SENT, serve="servers.adapters.werkzeug_dev:serve_threaded", model="threads",
               entry_suffix="threaded", workers=1, max_workers=1,
               description="werkzeug dev server, a new thread per connection",
               details="What `app.run(threaded=True)` does: werkzeug closes every connection (no keep-alive); "
                       "a blocking driver call blocks only its thread. Threads are unbounded.",
               dev_only="werkzeug dev server: not hardened, unbounded threads",
               free_threaded="each connection's thread runs Python at the same time as the others; the one "
                             "thread that accepts stays one at a time.", **_COMMON),
    ServerSpec(name="werkzeug-processes", passes=PASSES_METHOD_AS_SENT, serve="servers.adapters.werkzeug_dev:serve_processes",
               model="processes", entry_suffix="processes", process_per_connection=True, min_workers=2,
               description="werkzeug dev server, a forked process per connection (at most N)",
               details="What `app.run(processes=N)` does: at most --workers children at once (at least 2: with "
                       "processes=1 werkzeug's make_server is its single-threaded server); each child "
                       "serves one connection and exits, so every pooled client lives only as long as that "
                       "connection.",
               dev_only="werkzeug dev server: forks per connection, refuses past N", shares_parser=_FORKING_SHARES,
               **_COMMON),
)
