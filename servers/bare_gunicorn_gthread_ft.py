"""Bare WSGI callable on gunicorn gthread workers, a thread pool per process, on free-threaded CPython
3.13t (no GIL).

Each of --workers processes runs a pool of 16 threads; the main thread of each worker polls the
kept-alive connections, and a blocking driver call holds one thread of its worker's pool.

The app is servers.apps.bare_app: a plain PEP 3333 callable (hello and json only), the server alone
plus the reflection route (/reflect answers with the method, target, version, header fields and body
the server handed the app).

On free-threaded CPython 3.13t (.venv-ft): the pool threads of a worker run Python at the same time,
so one worker can keep every core busy; what stays one at a time is its main thread's selector,
which accepts and polls the kept-alive connections. Every request first checks that the GIL is still
off (servers/core/gil_guard.py).

HTTPS (--certfile, --keyfile): Python's ssl module (OpenSSL), in the pool thread that takes a new
connection: it wraps it in an ssl.SSLSocket made from a new SSLContext for every connection
(gunicorn/sock.py ssl_wrap_socket: create_default_context and the certificate files loaded again)
and handshakes there before the first request (gunicorn/workers/gthread.py TConn.init); the pool
threads read and write the kept connections, the main thread only polls them; through gunicorn's
certfile and keyfile settings (--certfile, --keyfile).

HTTP/2 (python-hyper's h2 (hpack, hyperframe)), off by default; --http2 adds h2 by ALPN over TLS,
h2c by prior knowledge, h2c by Upgrade through gunicorn's http_protocols "h2,h1" and, in cleartext,
http2_cleartext "both" (--http-protocols, --http2-cleartext). Framed in the pool thread that takes
the connection, for the connection's whole life: gunicorn/http2/connection.py drives h2's
H2Connection over the blocking socket and the thread serves the requests of each read one after
another (workers/gthread.py handle_http2), so one connection's streams are answered one at a time
and each open HTTP/2 connection holds one of the worker's 16 threads; h2c only from the peers of
forwarded_allow_ips (127.0.0.1 and ::1 by default: meant from a proxy on the same host), anyone else
served HTTP/1.1.

Caveat: gunicorn 27's gthread worker hands each new connection to a pool thread that waits up to 5 s
for its first bytes: more silent connections (browser pre-connects, a load tool's spare dials) than
threads stall every other client meanwhile.

Caveat: HTTP/1.1: gunicorn hands the app a Content-Length body cut short by the client's EOF as if
complete (wsgi.input ends without an error), checks no Host, echoes HTTP/1.2 in its status line (an
answer no client reads), refuses Transfer-Encoding lists with an empty element (501) and trailer
fields named Content-Length, Transfer-Encoding or Host (400); the sync worker closes after each
answer, so a body a framework leaves unread is never read [accepts-invalid, over-strict, not-
observed].

Caveat: HTTP/2 (--http2): the gthread and gevent workers serve the requests a read completes before
they read on, so an invalid frame that follows a request (a second HEADERS, a pseudo-header in
trailers, DATA that does not add up to its content-length, a window past 2^31-1) meets an answer
already sent, and a malformed request is at times left unanswered past h2spec's 2 s: h2spec races
them (docs/http2-grid.md).
"""
# Generated from the specs by `python -m servers.generate`: edit the spec, not this file.
# Run as a file, or imported as a library of its name (servers/ on sys.path): refuse, never shadow one.
if getattr(__spec__, "name", "") != "servers.bare_gunicorn_gthread_ft":
    raise SystemExit(f"{__file__}: an entry, run it as `python -m servers.bare_gunicorn_gthread_ft`")

from servers.core.launch import launch  # noqa: E402

if __name__ == "__main__":
    launch("bare_gunicorn_gthread_ft")
