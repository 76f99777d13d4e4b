"""The stdlib's http.server, single-threaded and threaded (servers/adapters/stdlib_server.py)."""
from servers.core.specs import HTTP_SERVER_PARSER, SOCKETSERVER_PATHS, ServerSpec

# Both: no chunked request bodies. http.server leaves the body to the handler, and the stdlib has no
# reader of a chunked one (tests/test_reflection.py: the handler reads none and closes the connection).
_COMMON = dict(interface="stdlib", workers=1, max_workers=1, lesson="http-server", code_paths=SOCKETSERVER_PATHS,
               caveats=(HTTP_SERVER_PARSER,))

SPECS = (
    ServerSpec(name="http.server", serve="servers.adapters.stdlib_server:serve_single", model="sync",
               entry_suffix="", keepalive=False,
               description="the single-threaded http.server.HTTPServer",
               details="The stdlib baseline: one request at a time, HTTP/1.0, a listen backlog of 5; blocking "
                       "driver calls stall every client.",
               dev_only="http.server: single-threaded, HTTP/1.0, listen backlog of 5, no chunked request bodies", **_COMMON),
    ServerSpec(name="http.server-threaded", serve="servers.adapters.stdlib_server:serve_threaded",
               model="threads", entry_suffix="threaded",
               description="http.server.ThreadingHTTPServer, a thread per connection",
               details="The stdlib baseline: a new thread per connection, HTTP/1.1 keep-alive, a listen "
                       "backlog of 5.",
               dev_only="http.server: unbounded threads, listen backlog of 5, not hardened, no chunked request bodies",
               free_threaded="each connection's thread parses and answers at the same time as the others; the "
                             "accepting thread stays one at a time.", **_COMMON),
)
