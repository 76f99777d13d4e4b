"""waitress (servers/adapters/waitress_server.py)."""
from servers.adapters.sizing import LISTEN_BACKLOG, THREADS_PER_WORKER
from servers.core.specs import WSGI, Caveat, Http2, ServerSpec, Tls

# pyproject.toml's extras of this module's stacks (python -m servers.generate writes them there).
EXTRAS = {"waitress": ("waitress>=3.0.2",)}
# Where the lessons' source links point: distribution -> (GitHub repository, tag of version v, package folder).
SOURCES = {"waitress": ("Pylons/waitress", "v{v}", "src/")}

SPECS = (
    ServerSpec(name="waitress", interface=WSGI, serve="servers.adapters.waitress_server:serve", model="threads",
               entry_suffix="waitress", workers=1,
               tls=Tls(cannot="waitress has no TLS: its docs say it \"does not natively support TLS\" and put it "
                              "behind a reverse proxy that terminates it (docs/reverse-proxy.rst)"),
               http2=Http2(cannot="waitress speaks HTTP/1.x only (its HTTPChannel parses HTTP/1 requests); like TLS, "
                                  "its docs leave HTTP/2 to the reverse proxy in front"),
               description="waitress, an event loop that buffers requests for a thread pool",
               details="One process: an event loop reads whole requests and buffers whole responses, and "
                       f"{THREADS_PER_WORKER} threads run the app (a blocking backend call holds one thread). Keep-alive on; "
                       f"waitress listens with a backlog of {LISTEN_BACKLOG} but serves at most 100 connections at once "
                       "(connection_limit), the rest waiting unaccepted. SIGTERM stops the loop and its "
                       "threads.",
               caveats=(Caveat("waitress-parser",
                               "HTTP/1.1 (smuggling-relevant): waitress ignores Transfer-Encoding on HTTP/1.0 (the "
                               "chunked body is read as requests on a keep-alive connection; HAProxy forwards it so),"
                               " keeps the connection after Content-Length with Transfer-Encoding, serves an empty "
                               "Transfer-Encoding, chunked twice, a LF after the last chunk, invalid trailer names, "
                               "HTTP/2.0 and version-less request lines, `GET *`, the authority-form and a NUL "
                               "target, checks no Host, refuses BWS in a chunk extension, and waits for a CRLF after "
                               "a head ended by bare LFs"
                               "; a trailer line ended by a bare LF hides the next request in the trailer section "
                               "(desync), a bare LF ending the chunked body is taken, and a chunked HTTP/1.0 body is "
                               "read as empty before a close (misread)",
                               effects=('desync', 'misread', 'accepts-invalid', 'stall', 'no-close', 'over-strict')),
                        Caveat("waitress-256-connections",
                               "at 256 keep-alive connections on pooled Redis a few requests wait past 2 s on a 2-core "
                               "machine (6 and 16 of 3,800-5,700 answers among 3 "
                               "of 3 runs of flask_waitress on one machine, p99 1.2 s; none in CI's runs before; `/` holds): one process serves at most 100 "
                               "connections at once (connection_limit) and its threads share one GIL",
                               # timing-dependent: on a faster machine every answer comes within 2 s
                               evidence=(("test_holds_256_connections[{name}-redis]", False),)),),
               pip_packages=("waitress",), lesson="waitress", code_paths=("waitress/",),
               free_threaded="its 16 threads run the app at the same time; its one event-loop thread still "
                             "reads every request and writes every response, one connection at a time."),
)
