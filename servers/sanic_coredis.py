"""Sanic on its own multi-worker server, asyncio (uvloop) per worker; the Redis routes on coredis.

The main process binds, then manages --workers spawned workers and replaces one that dies; each
worker runs an asyncio (uvloop) loop with the app's async handlers.

Async handlers; Mongo through pymongo's AsyncMongoClient (sanic_motor: motor, which wraps
synchronous pymongo in a thread pool and is deprecated since 2025-05, kept to measure that
difference) and Redis through redis.asyncio, their pools created inside the worker's loop. The Redis
client is redis-py's asyncio client with hiredis's parser (sanic_redispy: without it; sanic_glide:
valkey-glide; sanic_coredis: coredis; docs/backends/redis.md compares them).

HTTPS (--certfile, --keyfile): Python's ssl module (OpenSSL), in each worker's event-loop thread:
uvloop's TLS protocol (uvloop/sslproto.pyx, Cython) drives an ssl.SSLObject, the handshake included;
Sanic's context allows TLS 1.2 and up with its own cipher list and offers http/1.1 only by ALPN
(sanic/http/tls/context.py); through Sanic's ssl argument (a dict of cert and key).

No HTTP/2: Sanic has no HTTP/2: it serves HTTP/1.1 and, experimentally, HTTP/3 over QUIC (aioquic),
and its TLS context offers only http/1.1 by ALPN (sanic/http/tls/context.py); --http2 is refused.

Caveat: HTTP/1.1 (smuggling-relevant): sanic serves invalid chunk sizes (`0x`, whitespace), a two-
byte chunk terminator, NUL, LF and CR in chunk extensions, `\x1cchunked` and `\x1c61` (str.strip()),
non-ASCII digits, whitespace before the colon and invalid field names, `GET *` as `GET /`, checks no
Host, keeps an HTTP/1.0 keep-alive connection after a chunked body, refuses HTTP/1.2, lower-case and
unknown methods, `CHUNKED`, Transfer-Encoding lists with an empty element and trailer fields, closes
on an authority-form or NUL target without an answer, and waits for a CRLF after a head ended by
bare LFs; it sends 100 Continue to an HTTP/1.0 request (RFC 9110 15.2 forbids it), serves chunk data
ended by `X\n` or `\rX`, `Content-Length\x0b` (ignored) and a bare LF in the last chunk's extension
[desync, accepts-invalid, stall, no-close, over-strict, not-observed].

Caveat: Sanic 25.12's SIGTERM handler (WorkerManager.shutdown_signal) calls the worker-state proxy
of its multiprocessing manager; when the signal lands while the manager's monitor is inside such a
call (_sync_states, each monitor cycle), the nested call reads the outer one's reply, and the main
process exits 1 with a TypeError instead of 0: a process manager sees a crash.
"""
# Generated from the specs by `python -m servers.generate`: edit the spec, not this file.
# Run as a file, or imported as a library of its name (servers/ on sys.path): refuse, never shadow one.
if getattr(__spec__, "name", "") != "servers.sanic_coredis":
    raise SystemExit(f"{__file__}: an entry, run it as `python -m servers.sanic_coredis`")

from servers.core.launch import launch  # noqa: E402

if __name__ == "__main__":
    launch("sanic_coredis")
