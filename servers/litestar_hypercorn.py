"""Litestar on Hypercorn (h11 and h2, uvloop), its supervisor spawning one worker per core.

As `hypercorn --workers N --worker-class uvloop` runs it: the supervisor binds and spawns --workers
processes on the shared socket; each runs a uvloop event loop and parses HTTP/1.1 with h11, or
HTTP/2 with h2 when the connection opens with its preface or asks to upgrade (h2c, on the same
port). Keep-alive 5 s (Hypercorn's default), backlog 1024, no access log. A worker that dies is not
replaced: the supervisor stops the others and the server exits 1. SIGTERM: each worker stops
accepting and drains for up to 3 s, but the supervisor waits only for the first to exit and
terminates the others, dropping their requests in flight.

Litestar's router (a trie of path segments) dispatches to async route handlers; Response.render
serializes per request with msgspec. Mongo through AsyncMongoClient and Redis through redis.asyncio,
made in the worker's loop.

HTTPS (--certfile, --keyfile): Python's ssl module (OpenSSL), in each worker's event-loop thread:
uvloop's TLS protocol (uvloop/sslproto.pyx, Cython) drives an ssl.SSLObject over memory buffers, the
handshake included, before h11 sees a byte; Hypercorn offers h2 and http/1.1 by ALPN
(Config.alpn_protocols); through Hypercorn's certfile and keyfile (--certfile, --keyfile).

HTTP/2 (python-hyper's h2 (hpack, hyperframe)), served by default: h2 by ALPN over TLS, h2c by prior
knowledge, h2c by Upgrade; --http2 changes nothing. Framed in each worker's event-loop thread:
H2Protocol (hypercorn/protocol/h2.py) feeds each read to h2's H2Connection and runs every stream as
a task of the connection's task group, so the app calls of one connection's streams run concurrently
on that loop (100 at most: h2_max_concurrent_streams).

Caveat: WebSockets: on SIGTERM Hypercorn cancels each open socket's app and sends close 1011
(Internal Error) where RFC 6455 section 7.4.1 has 1001 (Going Away) for a server going down; on a
busy machine some sockets end without a close frame (1006) instead (56 of 100 in one run of 4 beside
the default suite): timing-dependent.

Caveat: HTTP/1.1: Hypercorn (h11) keeps the connection after Content-Length with Transfer-Encoding,
serves a bare CR and NUL in a chunk extension, HTTP/2.0 request lines and lower-case methods, `GET
*` and the authority-form, switches to HTTP/2 on an h2c upgrade and on the HTTP/2 preface (a front
that forwards Upgrade lets clients past it), checks no Host value, routes an absolute-form target as
a path (404), and refuses BWS in a chunk extension, 20-digit sizes, Transfer-Encoding lists with an
empty element and the request before bytes that follow `Connection: close` or an HTTP/1.0 request;
it closes instead of reading a body a framework leaves unread when it is large or comes after the
answer; it refuses an HTTP/1.0 request with `Expect: 100-continue` (400) and takes a bare LF ending
the chunked body [accepts-invalid, no-close, over-strict, not-observed].

Caveat: over HTTP/2 Hypercorn ends a connection after 1,000 requests (keep_alive_max_requests) with
a graceful GOAWAY, then answers the streams the client had sent before it saw that with a second
GOAWAY, PROTOCOL_ERROR (h2 refuses frames once the connection is closed): clients (Go's) fail the
requests in flight instead of retrying them.

Caveat: a connection its client closes (FIN) before sending anything is held until the 5 s keep-
alive timeout, not closed at once.

Caveat: at 256 keep-alive connections on a busy 2-core machine some requests wait past 2 s: a worker
spends about 5 times uvicorn's CPU per request (docs/servers/hypercorn.md).

Caveat: a worker that dies is not replaced: Hypercorn's supervisor stops every worker and the server
exits (1 here; `hypercorn` itself exits 0, so a restart-on-failure process manager leaves it down).

Caveat: HTTP/1.1: Litestar answers HEAD 405 on a route declared with @get (a @head handler serves
it; RFC 9110 9.1: a general-purpose server MUST support HEAD) [over-strict].
"""
# Generated from the specs by `python -m servers.generate`: edit the spec, not this file.
# Run as a file, or imported as a library of its name (servers/ on sys.path): refuse, never shadow one.
if getattr(__spec__, "name", "") != "servers.litestar_hypercorn":
    raise SystemExit(f"{__file__}: an entry, run it as `python -m servers.litestar_hypercorn`")

from servers.core.launch import launch  # noqa: E402

if __name__ == "__main__":
    launch("litestar_hypercorn")
