"""uWSGI (servers/adapters/uwsgi_server.py)."""
from servers.adapters.sizing import LISTEN_BACKLOG
from servers.core.specs import PASSES_METHOD_AS_SENT, WSGI, Caveat, Http2, ServerSpec, Tls

# pyproject.toml's extras of this module's stacks (python -m servers.generate writes them there).
# Built from source: gcc and the Python headers (apt-packages.txt).
EXTRAS = {"uwsgi": ("uwsgi>=2.0.31",)}

SPECS = (
    ServerSpec(name="uwsgi", passes=PASSES_METHOD_AS_SENT, interface=WSGI, serve="servers.adapters.uwsgi_server:serve", model="processes",
               entry_suffix="uwsgi", keepalive=False,
               tls=Tls("OpenSSL, from uWSGI's C core", setting="--https-socket ADDR,CERT,KEY (instead of --http-socket)",
                       native=("libssl.so", "libcrypto.so"),
                       where="in each worker process, in C on the thread that takes the request, before the Python "
                             "app is called: every worker speaks HTTPS itself (no router process in front)"),
               http2=Http2(cannot="uWSGI's workers speak HTTP/1.x on --http-socket and --https-socket; the only newer "
                                  "protocol in uWSGI is SPDY/3 by NPN in its HTTP router process (the binary's spdy_* "
                                  "functions), HTTP/2's withdrawn precursor, not HTTP/2"),
               description="uWSGI master and worker processes, each worker speaking HTTP (--http-socket), "
                           "one request at a time",
               details="The master binds and forks --workers processes; each worker speaks HTTP itself "
                       "(--http-socket, no router process in front) and handles one request at a time, "
                       "blocking on backend calls, then closes the connection (no keep-alive). Each worker "
                       f"builds the app after the fork (--lazy-apps); backlog {LISTEN_BACKLOG} (--listen). SIGTERM stops "
                       "master and workers (--die-on-term; without it uWSGI takes SIGTERM as \"reload\"); the "
                       "master replaces a worker that dies.",
               caveats=(Caveat("slow-clients-uwsgi",
                               "a slow client holds a whole worker (--http-socket reads the request in the "
                               "worker): deploy behind nginx with the uwsgi protocol, as uWSGI's docs say",
                               evidence=(("test_slow_headers_do_not_stall_other_clients[{name}]", True),)),
                        Caveat("uwsgi-http-socket",
                               "HTTP/1.1 (smuggling-relevant): uWSGI's --http-socket hands a WSGI app no chunked "
                               "body, so a valid chunked body is read as requests; it hands the app invalid "
                               "Content-Length and Transfer-Encoding values, invalid chunks, invalid field names "
                               "and request lines (HTTP/0.9, other versions, `GET *`, the authority-form), checks "
                               "no Host, echoes the client's protocol in its status line (answers no client "
                               "reads), refuses a bare LF line end and spaces around the target, and closes after "
                               "each answer (a body a framework leaves unread is never read)"
                               "; it reads a chunked body as empty, then closes (misread: the app acts on an empty "
                               "body), and serves chunk data ended by `X\\n` or `\\rX`, a NUL after a chunk size, "
                               "`Content-Length\\x0b` (ignored) and a bare LF in the last chunk's extension",
                               effects=("desync", "misread", "accepts-invalid", "over-strict", "not-observed")),
                        Caveat("uwsgi-chunked-body",
                               "uWSGI's --http-socket decodes no chunked request body for the app: wsgi.input "
                               "reads empty (only uWSGI's own uwsgi.chunked_read() reads one), so a WSGI app never "
                               "sees the body (--http-chunked-input is its router's, not --http-socket's)",
                               evidence=(("test_reflects_a_chunked_body[{name}]", True),))),
               pip_packages=("uwsgi",), lesson="uwsgi", code_paths=("uwsgi", "uwsgidecorators"),
               replaces_dead_workers=True),
)
