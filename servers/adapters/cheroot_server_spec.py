"""cheroot, CherryPy's HTTP server (servers/adapters/cheroot_server.py)."""
from servers.adapters.shutdown import GRACE_SECONDS
from servers.adapters.sizing import LISTEN_BACKLOG, THREADS_PER_WORKER
from servers.core.specs import SSL_MODULE, SSL_NATIVE, SSL_PATHS, WSGI, Caveat, Http2, ServerSpec, Tls

# HTTP/1.1 conformance (tests/conformance/known.py says which cases each stands for; the lesson page,
# docs/servers/cheroot.md, has a reproduction of each defect for upstream).
_PARSER = Caveat(
    "cheroot-parser",
    "HTTP/1.1 (smuggling-relevant): cheroot reads Content-Length with Python's int() (`+47` and `0_47` are taken; "
    "`-47` and a 21-digit length make its app's read fail, 500), keeps the last of two differing Content-Length "
    "lines, takes a field name with whitespace before its colon (`Content-Length : 47` frames the body) or with "
    "bytes no token has, a method that is no token, an empty Transfer-Encoding and one with a vertical tab, "
    "chunked twice, ignores Transfer-Encoding on HTTP/1.0 (the chunked body is read as the next request), keeps "
    "the connection after a request with both Content-Length and Transfer-Encoding, checks no Host, hands a NUL "
    "target and a body its client cut short to the app, and refuses the absolute-form (400) and HTTP/1.2 (505)"
    "; it sends 100 Continue to an HTTP/1.0 request (RFC 9110 15.2 forbids it), takes `Content-Length\\x0b` for "
    "Content-Length, answers chunk data ended by `X\\n` or `\\rX` and a NUL after a chunk size with a 500, and "
    "refuses the request after a trailer line ended by a bare LF (the trailer's rest read as a request); its bare "
    "app reads a chunked HTTP/1.0 body as empty, then closes (misread)",
    effects=("desync", "misread", "accepts-invalid", "crash", "no-close", "over-strict"))
_CHUNKED_READER = Caveat(
    "cheroot-chunked-reader",
    "HTTP/1.1 (smuggling-relevant): cheroot's chunked reader (ChunkedRFile, run as the app reads the body) takes "
    "a chunk size with `0x`, `+`, `-`, `_` or whitespace (int(..., 16)), a bare CR, LF or NUL in a chunk "
    "line, and invalid trailer names; it answers the body it cannot frame (a missing or overflowing size, bad "
    "chunk data, a body cut by EOF) with a 500 from the app's read instead of a 400, and it reads no trailer "
    "section, so the trailer's fields are parsed as the next request", effects=("desync", "accepts-invalid", "crash"))
_UNREAD_CHUNKED_BODY = Caveat(
    "cheroot-unread-chunked-body",
    "HTTP/1.1 (smuggling-relevant): cheroot reads the unread rest of a Content-Length body before it answers, but "
    "leaves an unread chunked body on the connection and keeps the connection: when the app answers without "
    "reading the body (a 404, a 405), cheroot parses the chunk data as the next request (a request hidden in it is "
    "answered) and never checks its chunk syntax; a body its parser mis-frames (a negative length, Transfer-Encoding "
    "with a vertical tab) is read as requests the same way"
    "; an answer to those bytes is a desync whatever its status (cheroot's 400 to a body after `Content-Length` with "
    "`Transfer-Encoding` was read as a kept connection before)", effects=("desync", "no-close"))
_FIRST_FIELD_500 = Caveat(
    "cheroot-first-field-500",
    "HTTP/1.1: cheroot answers a request whose first field line starts with whitespace with a 500 (an "
    "UnboundLocalError in its header reader) where it should refuse it (400)", effects=("crash",),
    evidence=(("test_hostile_requests_are_refused_not_crashing[{name}]", True),))
# Reliability (tests/reliability): what the thread pool costs.
_SILENT_CONNECTIONS = Caveat(
    "cheroot-silent-connections",
    "cheroot hands each new connection to a pool thread, which waits up to its 10 s socket timeout for the first "
    f"bytes: more silent connections (browser pre-connects, a load tool's spare dials) than threads "
    f"({THREADS_PER_WORKER} a process here) stall every other client of that process meanwhile",
    evidence=(("test_silent_connections_do_not_stall_other_clients[{name}]", True),))

# pyproject.toml's extras of this module's stacks (python -m servers.generate writes them there).
EXTRAS = {"cheroot": ("cheroot>=11.1.2",)}
# Where the lessons' source links point: distribution -> (GitHub repository, tag of version v, package folder).
SOURCES = {"cheroot": ("cherrypy/cheroot", "v{v}", "")}

SPECS = (
    ServerSpec(name="cheroot", interface=WSGI, serve="servers.adapters.cheroot_server:serve", model="threads",
               entry_suffix="cheroot",
               tls=Tls(SSL_MODULE, setting="cheroot's BuiltinSSLAdapter (server.ssl_adapter)", native=SSL_NATIVE,
                       code_paths=(*SSL_PATHS, "cheroot/ssl/"),
                       where="in each worker's selector thread, as it accepts: ConnectionManager._from_server_socket "
                             "wraps the new socket (BuiltinSSLAdapter.wrap, do_handshake_on_connect) before any pool "
                             "thread sees it, with the server's 10 s socket timeout: a client that connects and "
                             "stays silent holds that worker's loop, its kept-alive connections included, for up "
                             "to 10 s"),
               http2=Http2(cannot="cheroot speaks HTTP/1.x only: its HTTPRequest parses HTTP/1 request lines, and "
                                  "CherryPy's docs leave HTTP/2 to a proxy in front"),
               description="cheroot (CherryPy's server), a thread pool per process, pre-forked one process per "
                           "core on one socket",
               details="The parent binds one listening socket and forks the workers; in each, cheroot's main "
                       "thread runs a selector loop that accepts and hands each new connection, and each kept-alive "
                       f"one with bytes to read, to one of {THREADS_PER_WORKER} pool threads, which reads the "
                       "request, runs the app and writes the response (a blocking backend call holds one thread). "
                       f"Backlog {LISTEN_BACKLOG}; keep-alive on, with a 10 s socket timeout, and at most 10 idle "
                       "keep-alive connections per process. SIGTERM: each worker stops accepting, closes its idle "
                       f"connections and gives busy threads {GRACE_SECONDS:g} s; the parent replaces a worker that "
                       "dies.",
               caveats=(_PARSER, _CHUNKED_READER, _UNREAD_CHUNKED_BODY, _FIRST_FIELD_500, _SILENT_CONNECTIONS),
               pip_packages=("cheroot",), lesson="cheroot", code_paths=("cheroot/", "_pyio.py"),
               replaces_dead_workers=True),
)
