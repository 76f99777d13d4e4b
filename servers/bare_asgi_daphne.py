"""Bare ASGI callable on daphne (twisted.web on the asyncio reactor), one process.

As `daphne -b HOST -p PORT app` runs it: one process, no workers of its own (a process manager runs
several, each on its own port or an inherited socket: --fd). twisted.web's HTTPChannel parses
HTTP/1.1 on the reactor, which runs on asyncio's loop; daphne turns each request into an ASGI scope
and runs the app as a task on that loop. Keep-alive without an idle timeout. SIGTERM stops the
reactor after cancelling every running app instance (no drain).

The app is servers.apps.bare_asgi_app: a plain ASGI application callable (lifespan; hello and json
only), the server alone plus the reflection route (/reflect answers with the method, target,
version, header fields and body the server handed the app).

HTTPS (--certfile, --keyfile): pyOpenSSL (OpenSSL through cffi), on the reactor thread: the endpoint
wraps the site's HTTP protocol in a TLSMemoryBIOProtocol (twisted/protocols/tls.py) that feeds
pyOpenSSL's memory BIOs, the handshake included; through its SSL server endpoint
(ssl:PORT:privateKey=KEY:certKey=CERT).

HTTP/2 (python-hyper's h2 (hpack, hyperframe)), served by default: h2 by ALPN over TLS; --http2
changes nothing. Framed on the reactor thread: twisted.web's H2Connection (twisted/web/_http2.py)
feeds each read to h2 and makes each stream a daphne WebRequest, whose app instance is an asyncio
task on the reactor's loop, so a connection's streams run concurrently there. Not served: no h2c:
twisted.web picks HTTP/2 from the ALPN result alone, so neither a cleartext preface nor `Upgrade:
h2c` is served.

Caveat: HTTP/1.1 (smuggling-relevant): twisted.web reads the body of `Transfer-Encoding: identity`
as the next request (or not: a race), frames `chunked` then `identity` on two lines as chunked,
checks no Host, hands `GET *` and the authority-form to the app, routes an absolute-form target as a
path (404), refuses BWS in a chunk extension, HTTP/1.2 and a Transfer-Encoding list with an empty
element, and waits for a CRLF after a head ended by bare LFs; a trailer line ended by a bare LF
hides the next request in the trailer section (desync), and a bare LF ending the chunked body is
taken [desync, accepts-invalid, stall, over-strict].

Caveat: HTTP/2: after the GOAWAY of a connection error the TLS connection stays open until its
timers end it (75 s), where RFC 9113 section 5.4.1 says close, and reads on: h2 buffers every byte
read after its error, so a CONTINUATION flood grows the worker's memory without bound; HPACK
decoding errors carry PROTOCOL_ERROR, not COMPRESSION_ERROR (h2). h2spec waits out 15 cases for it.

Caveat: WebSockets: daphne never sends an empty message: handle_reply (daphne/ws_protocol.py) sends
an app's `bytes` or `text` only when it is truthy, so an empty text or binary message is dropped
without an error.

Caveat: WebSockets: past the largest message or frame daphne drops the TCP connection without a
close frame (autobahn's failByDrop, which daphne leaves on) where RFC 6455 section 7.4.1 gives 1009:
the client sees an abnormal closure (1006).

Caveat: one process, one event loop and one pool a backend: 200 concurrent requests for pooled
Mongo, or 256 kept connections on pooled Redis, queue for the pool's connections, and some wait past
the 1 s backend timeout and are answered 503 (about half of the Mongo ones on a busy 2-core machine;
2 or 3 of about 5,000 Redis answers on a quiet one, on FastAPI and BlackSheep). Servers with a
worker per core split them over two pools; a process manager running one daphne per core does too.

Caveat: daphne keeps each finished request (its app task and its entry among the server's
connections) until a sweep once a second (Server.application_checker): its memory follows the
request rate and how late its loop runs, so its RSS can rise 10-23 % between two checkpoints 5k
requests apart with no leak (alone: 95 MiB after 5k requests, 101-107 MiB from 50k to 250k).
"""
# Generated from the specs by `python -m servers.generate`: edit the spec, not this file.
# Run as a file, or imported as a library of its name (servers/ on sys.path): refuse, never shadow one.
if getattr(__spec__, "name", "") != "servers.bare_asgi_daphne":
    raise SystemExit(f"{__file__}: an entry, run it as `python -m servers.bare_asgi_daphne`")

from servers.core.launch import launch  # noqa: E402

if __name__ == "__main__":
    launch("bare_asgi_daphne")
