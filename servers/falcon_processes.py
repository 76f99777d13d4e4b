"""Falcon on werkzeug dev server, a forked process per connection (at most N).

What `app.run(processes=N)` does: at most --workers children at once (at least 2: with processes=1
werkzeug's make_server is its single-threaded server); each child serves one connection and exits,
so every pooled client lives only as long as that connection.

pymongo's client and redis-py's pool are made when the app is built, in the process that serves
(after any fork).

HTTPS (--certfile, --keyfile): Python's ssl module (OpenSSL), in the one thread that accepts: the
listening socket is an ssl.SSLSocket, whose accept() handshakes each new connection before its
thread or child starts, one connection at a time and with no timeout (a client that connects and
stays silent holds every other one); through make_server's ssl_context (a (certfile, keyfile) pair).

No HTTP/2: werkzeug's dev server speaks HTTP/1.x only: its WSGIRequestHandler is http.server's
BaseHTTPRequestHandler; --http2 is refused.

Not for production: werkzeug dev server: forks per connection, refuses past N.

Caveat: HTTP/1.1: CPython's http.server parser takes a bare CR for a line end (a hidden Content-
Length honoured), serves invalid field names, versions and request lines (HTTP/0.9 answered without
a status line), checks no Host, hands `GET *`, the authority-form and a NUL target to the app and
leaves Content-Length and Transfer-Encoding to the app's body reader, which takes invalid values and
unknown codings (wsgiref and http.server read no chunked body: a valid one is read as requests;
werkzeug's answers 500 to invalid chunk syntax, and loops allocating memory at EOF inside a chunk
larger than what came); each closes after its answers (a body a framework leaves unread is never
read) [desync, accepts-invalid, crash, stall, over-strict, not-observed].

Caveat: HTTP/1.1: Falcon answers HEAD 405 where a resource has no on_head responder (RFC 9110 9.1: a
general-purpose server MUST support HEAD): `HEAD /` is refused [over-strict].
"""
# Generated from the specs by `python -m servers.generate`: edit the spec, not this file.
# Run as a file, or imported as a library of its name (servers/ on sys.path): refuse, never shadow one.
if getattr(__spec__, "name", "") != "servers.falcon_processes":
    raise SystemExit(f"{__file__}: an entry, run it as `python -m servers.falcon_processes`")

from servers.core.launch import launch  # noqa: E402

if __name__ == "__main__":
    launch("falcon_processes")
