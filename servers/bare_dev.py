"""Bare WSGI callable on werkzeug dev server, one thread: one request at a time.

What `flask run --without-threads` does: one thread accepts and serves one HTTP/1.0 request at a
time, so a slow Mongo or Redis call blocks every other client. No debugger, no reloader. A baseline,
not a production server.

The app is servers.apps.bare_app: a plain PEP 3333 callable (hello and json only), the server alone
plus the reflection route (/reflect answers with the method, target, version, header fields and body
the server handed the app).

HTTPS (--certfile, --keyfile): Python's ssl module (OpenSSL), in the one thread that accepts: the
listening socket is an ssl.SSLSocket, whose accept() handshakes each new connection before its
thread or child starts, one connection at a time and with no timeout (a client that connects and
stays silent holds every other one); through make_server's ssl_context (a (certfile, keyfile) pair).

No HTTP/2: werkzeug's dev server speaks HTTP/1.x only: its WSGIRequestHandler is http.server's
BaseHTTPRequestHandler; --http2 is refused.

Not for production: werkzeug dev server, single-threaded, HTTP/1.0: one request at a time.

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
if getattr(__spec__, "name", "") != "servers.bare_dev":
    raise SystemExit(f"{__file__}: an entry, run it as `python -m servers.bare_dev`")

from servers.core.launch import launch  # noqa: E402

if __name__ == "__main__":
    launch("bare_dev")
