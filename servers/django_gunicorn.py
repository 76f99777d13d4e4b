"""Django's WSGI application on gunicorn sync workers, one request per worker process at a time.

gunicorn's arbiter forks --workers processes, each serving one request at a time and closing the
connection after every response (no keep-alive); each worker builds the app after the fork, so its
pooled clients are its own. The arbiter replaces a worker that dies.

WSGIHandler runs the middleware chain (SecurityMiddleware, CommonMiddleware,
XFrameOptionsMiddleware, the contract's error middleware), the URL resolver (a path converter for
the id) and a function view returning HttpResponse or JsonResponse (json.dumps per request,
compact). Settings configured in code in the process that serves (after any fork); pymongo and
redis-py pools made there.

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

Caveat: HTTP/1.1: Django answers 400 to a valid Host, `0.0.0.0=5000` (a reg-name may hold sub-
delims, RFC 3986 3.2.2), and to an empty one (RFC 9112 3.2 has a client send it where the target has
no authority): get_host's pattern allows letters, digits, dots and dashes only [over-strict].
"""
# Generated from the specs by `python -m servers.generate`: edit the spec, not this file.
# Run as a file, or imported as a library of its name (servers/ on sys.path): refuse, never shadow one.
if getattr(__spec__, "name", "") != "servers.django_gunicorn":
    raise SystemExit(f"{__file__}: an entry, run it as `python -m servers.django_gunicorn`")

from servers.core.launch import launch  # noqa: E402

if __name__ == "__main__":
    launch("django_gunicorn")
