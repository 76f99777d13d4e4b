"""Falcon's ASGI app (falcon.asgi) on uvicorn (uvloop, httptools), its supervisor spawning one worker
per core.

As the frameworks' docs deploy it (`uvicorn --workers N --loop uvloop --http httptools`): the
supervisor spawns --workers processes on one shared socket and replaces one that dies; each runs a
uvloop event loop, parses HTTP with httptools and awaits the app, so a worker blocks only where a
handler computes. Keep-alive 5 s (uvicorn's default), backlog 1024, no access log; SIGTERM: the
supervisor stops the workers, each drains for up to 3 s.

Falcon routes to `async def on_get` responders and serializes resp.media per request. Mongo through
AsyncMongoClient and Redis through redis.asyncio, made in the worker's loop.

HTTPS (--certfile, --keyfile): Python's ssl module (OpenSSL), in each worker's event-loop thread:
uvloop's TLS protocol (uvloop/sslproto.pyx, Cython) drives an ssl.SSLObject over memory buffers, the
handshake included, before httptools sees a byte; through uvicorn's ssl_certfile and ssl_keyfile
(--ssl-certfile, --ssl-keyfile).

HTTP/2 (zttp (a Zig core; uvicorn's release notes call it experimental, not for production traffic
yet)), off by default; --http2 adds h2 by ALPN over TLS, h2c by prior knowledge through uvicorn's
http2=True with http="zttp" (--http zttp --http2). Framed in each worker's event-loop thread:
ZttpH2Protocol (uvicorn/protocols/http/zttp_h2_impl.py) feeds each read to zttp's H2Connection and
runs every stream's RequestResponseCycle as a task on that loop; with --http2 the connection's first
bytes choose, and HTTP/1.1 connections are parsed by zttp as well (ZttpProtocol), not httptools. Not
served: no `Upgrade: h2c`: AutoZttpProtocol switches on the ALPN result or the preface only.

Caveat: uvicorn's httptools protocol answers a valid request followed in the same read by invalid
bytes with a 400 alone: the valid request is dropped unanswered.

Caveat: with --http2, zttp ends an HTTP/2 connection after 4,096 streams with GOAWAY
ENHANCE_YOUR_CALM, not NO_ERROR, and the requests in flight go unanswered: clients (Go's) fail them
instead of retrying on a new connection.

Caveat: with --http2, zttp takes a stream made to depend on itself (by HEADERS or PRIORITY) and a
PRIORITY frame on stream 0 without the PROTOCOL_ERROR RFC 7540 section 5.3.1 and RFC 9113 section
6.3 require, and in cleartext answers a GOAWAY with a TCP reset in some runs (1 of 3 recorded) where
h2spec expects the connection closed (docs/http2-grid.md).

Caveat: HTTP/1.1 (smuggling-relevant): uvicorn (httptools) answers a request that asks for an h2c
upgrade and drops the request after it on that connection, serves HTTP/2.0 and HTTP/0.9 request
lines and `GET *`, checks no Host, and refuses HTTP/1.2, BWS in a chunk extension, `Transfer-
Encoding: chunked,` and trailer fields named Content-Length or Transfer-Encoding; it sends 100
Continue to an HTTP/1.0 request (RFC 9110 15.2 forbids it: an HTTP/1.0 client reads it as the
answer) [desync, accepts-invalid, over-strict].

Caveat: HTTP/1.1: Falcon answers HEAD 405 where a resource has no on_head responder (RFC 9110 9.1: a
general-purpose server MUST support HEAD): `HEAD /` is refused [over-strict].

Caveat: uvicorn (httptools) hands HTTP/0.9 and HTTP/2.0 request lines to the app, and Falcon's ASGI
app refuses such a scope by raising: uvicorn answers them 500, not 400.
"""
# Generated from the specs by `python -m servers.generate`: edit the spec, not this file.
# Run as a file, or imported as a library of its name (servers/ on sys.path): refuse, never shadow one.
if getattr(__spec__, "name", "") != "servers.falcon_asgi_uvicorn":
    raise SystemExit(f"{__file__}: an entry, run it as `python -m servers.falcon_asgi_uvicorn`")

from servers.core.launch import launch  # noqa: E402

if __name__ == "__main__":
    launch("falcon_asgi_uvicorn")
