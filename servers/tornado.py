"""tornado on its HTTPServer, RequestHandlers on the asyncio event loop.

Handlers are coroutines: AsyncMongoClient and redis.asyncio calls yield to the loop. One process by
default; --workers N pre-forks N processes on one socket, each with its own loop and clients.

HTTPS (--certfile, --keyfile): Python's ssl module (OpenSSL), on each process's event-loop thread:
tornado's SSLIOStream drives a non-blocking ssl.SSLSocket, the handshake included, before
HTTP1Connection reads the request (tornado/iostream.py); through HTTPServer's ssl_options (an
SSLContext).

No HTTP/2: tornado's HTTPServer speaks HTTP/1.x only (tornado/http1connection.py); HTTP/2 for
tornado is a third-party package (tornado_http2), not tornado's; --http2 is refused.

Caveat: HTTP/1.1: tornado refuses valid chunk extensions, trailer fields and Transfer-Encoding lists
with an empty element (400), routes an absolute-form target as a path (404), hands `GET *` and the
authority-form to the app, keeps an HTTP/1.0 keep-alive connection after a chunked body; it sends
100 Continue to an HTTP/1.0 request (RFC 9110 15.2 forbids it) [desync, accepts-invalid, no-close,
over-strict].
"""
# Generated from the specs by `python -m servers.generate`: edit the spec, not this file.
# Run as a file, or imported as a library of its name (servers/ on sys.path): refuse, never shadow one.
if getattr(__spec__, "name", "") != "servers.tornado":
    raise SystemExit(f"{__file__}: an entry, run it as `python -m servers.tornado`")

from servers.core.launch import launch  # noqa: E402

if __name__ == "__main__":
    launch("tornado")
