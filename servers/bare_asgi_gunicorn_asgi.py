"""Bare ASGI callable on gunicorn's native ASGI worker (-k asgi): its own HTTP parser on a uvloop event
loop per worker process.

gunicorn's arbiter forks --workers processes (`gunicorn -k asgi`, gunicorn/workers/gasgi.py); each
runs a uvloop event loop (asgi_loop) with an asyncio Protocol per connection
(gunicorn/asgi/protocol.py) that parses HTTP/1.1 with gunicorn's own callback parser (the pure-
Python one, pinned: the C parser gunicorn_h1c is a setting) and runs the app's coroutines as tasks,
so a worker blocks only where a handler computes. Lifespan auto; keep-alive 2 s (gunicorn's
default); backlog 1024; no access log. The arbiter replaces a worker that dies; SIGTERM: each worker
stops accepting and waits up to 3 s (graceful_timeout) for its connections.

The app is servers.apps.bare_asgi_app: a plain ASGI application callable (lifespan; hello and json
only), the server alone plus the reflection route (/reflect answers with the method, target,
version, header fields and body the server handed the app).

HTTPS (--certfile, --keyfile): Python's ssl module (OpenSSL), in each worker's event-loop thread:
the worker builds one SSLContext at its start (gunicorn/workers/gasgi.py _get_ssl_context) and hands
it to loop.create_server, so uvloop's TLS protocol (uvloop/sslproto.pyx, Cython) drives an
ssl.SSLObject over memory buffers, the handshake included, before gunicorn's parser sees a byte;
through gunicorn's certfile and keyfile settings (--certfile, --keyfile).

HTTP/2 (python-hyper's h2 (hpack, hyperframe)), off by default; --http2 adds h2 by ALPN over TLS,
h2c by prior knowledge, h2c by Upgrade through gunicorn's http_protocols "h2,h1" and, in cleartext,
http2_cleartext "both" (--http-protocols, --http2-cleartext). Framed in each worker's event-loop
thread: ASGIProtocol (gunicorn/asgi/protocol.py) hands an h2 connection to
gunicorn/http2/async_connection.py, which drives h2's H2Connection, and starts a task per stream as
soon as its headers are in, so one connection's streams run concurrently on the loop (100 at most:
http2_max_concurrent_streams); h2c only from the peers of forwarded_allow_ips (127.0.0.1 and ::1 by
default: meant from a proxy on the same host), anyone else served HTTP/1.1.

Caveat: HTTP/1.1: gunicorn's ASGI worker (its own parser, gunicorn/asgi/parser.py) checks no Host
and no trailer field name, hands an absolute-form target to the app as the path (404), refuses
HTTP/1.2 (400), Transfer-Encoding lists with an empty element (501) and trailers carrying Content-
Length, Transfer-Encoding or Host (400), and closes instead of reading a body a framework leaves
unread when it is large or comes after the answer [accepts-invalid, over-strict, not-observed].

Caveat: at 256 keep-alive connections on a busy 2-core machine a request or two wait past 2 s (5 of
its 8 stacks in the recorded run, other work taking most of the machine).

Caveat: over HTTP/2 gunicorn 27's ASGI worker sends neither Date nor Server: its HTTP/1.1 path adds
both (gunicorn/asgi/protocol.py _send_response_start), its HTTP/2 path sends the app's headers as
they are (RFC 9110 6.6.1 asks an origin server with a clock for Date).
"""
# Generated from the specs by `python -m servers.generate`: edit the spec, not this file.
# Run as a file, or imported as a library of its name (servers/ on sys.path): refuse, never shadow one.
if getattr(__spec__, "name", "") != "servers.bare_asgi_gunicorn_asgi":
    raise SystemExit(f"{__file__}: an entry, run it as `python -m servers.bare_asgi_gunicorn_asgi`")

from servers.core.launch import launch  # noqa: E402

if __name__ == "__main__":
    launch("bare_asgi_gunicorn_asgi")
