"""Bare WSGI callable on gunicorn sync workers, one request per worker process at a time.

gunicorn's arbiter forks --workers processes, each serving one request at a time and closing the
connection after every response (no keep-alive); each worker builds the app after the fork, so its
pooled clients are its own. The arbiter replaces a worker that dies.

The app is servers.apps.bare_app: a plain PEP 3333 callable (hello and json only), the server alone
plus the reflection route (/reflect answers with the method, target, version, header fields and body
the server handed the app).

HTTPS (--certfile, --keyfile): Python's ssl module (OpenSSL), in each worker process, on its one
thread: each accepted connection is wrapped in an ssl.SSLSocket made from a new SSLContext for every
connection (gunicorn/sock.py ssl_wrap_socket: create_default_context and the certificate files
loaded again), and handshakes on the first read of the request (gunicorn/workers/sync.py); through
gunicorn's certfile and keyfile settings (--certfile, --keyfile).

No HTTP/2: gunicorn's sync worker has no HTTP/2: with h2 in http_protocols it logs a warning and
serves HTTP/1.1 (gunicorn/workers/sync.py run); gthread, gevent and asgi have it; --http2 is
refused.

Caveat: a slow client holds a whole sync worker: deploy behind a buffering proxy, as gunicorn's docs
say.

Caveat: HTTP/1.1: gunicorn hands the app a Content-Length body cut short by the client's EOF as if
complete (wsgi.input ends without an error), checks no Host, echoes HTTP/1.2 in its status line (an
answer no client reads), refuses Transfer-Encoding lists with an empty element (501) and trailer
fields named Content-Length, Transfer-Encoding or Host (400); the sync worker closes after each
answer, so a body a framework leaves unread is never read [accepts-invalid, over-strict, not-
observed].
"""
# Generated from the specs by `python -m servers.generate`: edit the spec, not this file.
# Run as a file, or imported as a library of its name (servers/ on sys.path): refuse, never shadow one.
if getattr(__spec__, "name", "") != "servers.bare_gunicorn":
    raise SystemExit(f"{__file__}: an entry, run it as `python -m servers.bare_gunicorn`")

from servers.core.launch import launch  # noqa: E402

if __name__ == "__main__":
    launch("bare_gunicorn")
