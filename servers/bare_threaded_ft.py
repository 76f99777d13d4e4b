"""Bare WSGI callable on werkzeug dev server, a new thread per connection, on free-threaded CPython
3.13t (no GIL).

What `app.run(threaded=True)` does: werkzeug closes every connection (no keep-alive); a blocking
driver call blocks only its thread. Threads are unbounded.

The app is servers.apps.bare_app: a plain PEP 3333 callable (hello and json only), the server alone
plus the reflection route (/reflect answers with the method, target, version, header fields and body
the server handed the app).

On free-threaded CPython 3.13t (.venv-ft): each connection's thread runs Python at the same time as
the others; the one thread that accepts stays one at a time. Every request first checks that the GIL
is still off (servers/core/gil_guard.py).

HTTPS (--certfile, --keyfile): Python's ssl module (OpenSSL), in the one thread that accepts: the
listening socket is an ssl.SSLSocket, whose accept() handshakes each new connection before its
thread or child starts, one connection at a time and with no timeout (a client that connects and
stays silent holds every other one); through make_server's ssl_context (a (certfile, keyfile) pair).

No HTTP/2: werkzeug's dev server speaks HTTP/1.x only: its WSGIRequestHandler is http.server's
BaseHTTPRequestHandler; --http2 is refused.

Not for production: werkzeug dev server: not hardened, unbounded threads.

Caveat: HTTP/1.1: CPython's http.server parser takes a bare CR for a line end (a hidden Content-
Length honoured), serves invalid field names, versions and request lines (HTTP/0.9 answered without
a status line), checks no Host, hands `GET *`, the authority-form and a NUL target to the app and
leaves Content-Length and Transfer-Encoding to the app's body reader, which takes invalid values and
unknown codings (wsgiref and http.server read no chunked body: a valid one is read as requests;
werkzeug's answers 500 to invalid chunk syntax, and loops allocating memory at EOF inside a chunk
larger than what came); each closes after its answers (a body a framework leaves unread is never
read) [desync, accepts-invalid, crash, stall, over-strict, not-observed].
"""
# Generated from the specs by `python -m servers.generate`: edit the spec, not this file.
# Run as a file, or imported as a library of its name (servers/ on sys.path): refuse, never shadow one.
if getattr(__spec__, "name", "") != "servers.bare_threaded_ft":
    raise SystemExit(f"{__file__}: an entry, run it as `python -m servers.bare_threaded_ft`")

from servers.core.launch import launch  # noqa: E402

if __name__ == "__main__":
    launch("bare_threaded_ft")
