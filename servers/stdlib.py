"""stdlib BaseHTTPRequestHandler on the single-threaded http.server.HTTPServer.

The stdlib baseline: one request at a time, HTTP/1.0, a listen backlog of 5; blocking driver calls
stall every client.

HTTPS (--certfile, --keyfile): Python's ssl module (OpenSSL), in the one thread that accepts:
ssl.SSLSocket.accept handshakes each new connection before it is served (or its thread started), one
at a time and with no timeout (a client that connects and stays silent holds every other one);
through the listening socket wrapped by an SSLContext (Python 3.14's HTTPSServer).

No HTTP/2: http.server speaks HTTP/1.x only (BaseHTTPRequestHandler.parse_request refuses any
version above 1.x with 505); --http2 is refused.

Not for production: http.server: single-threaded, HTTP/1.0, listen backlog of 5, no chunked request
bodies.

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
if getattr(__spec__, "name", "") != "servers.stdlib":
    raise SystemExit(f"{__file__}: an entry, run it as `python -m servers.stdlib`")

from servers.core.launch import launch  # noqa: E402

if __name__ == "__main__":
    launch("stdlib")
