"""Django's ASGI application (async views) on granian's Rust HTTP server in ASGI mode, one worker
process per core.

granian's main process forks --workers processes and supervises them; each binds the port with its
own SO_REUSEPORT socket (the kernel spreads new connections over them) and parses HTTP in Rust
(hyper on tokio). Each worker hands each request to the app's async handlers on its uvloop event
loop, so a worker blocks only where a handler computes. Keep-alive on (granian's default), backlog
1024, no access log; a worker that dies is replaced (respawn_failed_workers); SIGTERM: workers get 3
s, then SIGKILL.

ASGIHandler reads the body, then runs the same middleware and URL resolver as the WSGI app and
awaits an async view (AsyncMongoClient, redis.asyncio, made in the worker's loop). Django runs each
MiddlewareMixin hook through sync_to_async, in a thread that each request's ThreadSensitiveContext
starts anew.

HTTPS (--certfile, --keyfile): rustls (Rust, ring's crypto), in each worker's Rust runtime (its
tokio threads, beside hyper's HTTP parsing), without the GIL: the Python threads see plaintext
requests only; granian's minimum is TLS 1.3 (ssl_protocol_min); through granian's ssl_cert and
ssl_key (--ssl-certificate, --ssl-keyfile).

HTTP/2 (Rust's hyper (its h2 crate), in granian's _granian module), served by default: h2 by ALPN
over TLS, h2c by prior knowledge; --http2 changes nothing. Framed in each worker's Rust runtime (its
tokio threads, without the GIL): hyper frames the streams and hands each request to Python as it
would an HTTP/1.1 one (ASGI and RSGI: a task on the worker's event loop; WSGI: a blocking thread),
up to 200 concurrent streams (HTTP2Settings); a profile of Python frames cannot see the framing. Not
served: no `Upgrade: h2c`: granian refuses it by design (granian #440), as RFC 9113 deprecates it.

Caveat: each worker listens on its own SO_REUSEPORT socket: when one dies, the connections queued on
its socket are reset (Linux moves them only with net.ipv4.tcp_migrate_req=1).

Caveat: HTTP/1.1: granian hands the app a body with invalid chunk syntax (a size with `0x`, `+`,
`-`, `_` or whitespace, a LF or CR in a chunk line, a bad terminator, an invalid trailer) and one
its client cut short: WSGI apps read what came as the whole body, ASGI and RSGI apps fail and
granian answers 500; a 64 KiB chunk extension gives a WSGI or RSGI app an empty body as if whole; it
checks no Host, hands `GET *`, the authority-form and the HTTP/2 preface to the app, serves chunked
twice, and refuses HTTP/1.2 and `Transfer-Encoding: chunked,`; it closes instead of reading a body a
framework leaves unread when it is large or comes after the answer; a trailer line ended by a bare
LF hides the next request in the trailer section (desync: the request a front forwards is never
answered), and a bare LF ending the chunked body, chunk data ended by `X\n` or `\rX`, a NUL after a
chunk size and a bare LF in the last chunk's extension are served (WSGI) or answered 500 (ASGI,
RSGI); a WSGI app's empty body for a 64 KiB chunk extension is followed by a close (misread)
[desync, misread, accepts-invalid, crash, over-strict, not-observed].

Caveat: HTTP/2: bytes that are not the client preface are answered as an HTTP/1.1 request (400),
also on a TLS connection that selected h2 by ALPN, where RFC 9113 section 3.4 makes them a
connection error (h2spec http2/3.5/2).

Caveat: HTTP/2: it answers a request before it reads the frame that follows it, so h2spec's cases
that send an invalid frame after a complete request (a second HEADERS, DATA after RST_STREAM, a
window overflow, an invalid pseudo-header or content-length) see the answer first on some runs.

Caveat: WebSockets: granian (tungstenite) takes a message of up to 64 MiB in frames of up to 16 MiB,
neither settable, and past either closes with a close frame that carries no status code (the client
sees 1005) where RFC 6455 section 7.4.1 gives 1009 (Message Too Big).

Caveat: Django's ASGI handler runs each request's middleware hooks in a thread started for that
request (asgiref's ThreadSensitiveContext): 256 keep-alive connections make about as many threads in
the workers, which on 2 cores can push some requests past 2 s.

Caveat: HTTP/1.1: Django answers 400 to a valid Host, `0.0.0.0=5000` (a reg-name may hold sub-
delims, RFC 3986 3.2.2), and to an empty one (RFC 9112 3.2 has a client send it where the target has
no authority): get_host's pattern allows letters, digits, dots and dashes only [over-strict].

Caveat: HTTP/1.1: a server that passes a lower-case method on (granian, daphne) has Django upper-
case it (HttpRequest.method): `get / HTTP/1.1` is served as GET (200), not refused [accepts-
invalid].

Caveat: granian hands a request that has no Host an empty one (HTTP_HOST '' in WSGI, an empty host
header in ASGI), which Django's get_host refuses: an HTTP/1.0 request without Host is answered 400,
not 200 [over-strict].

Caveat: a request whose body the client cuts short makes Django's ASGI handler return without an
answer (RequestAborted on http.disconnect, as ASGI allows), and granian then answers 500.
"""
# Generated from the specs by `python -m servers.generate`: edit the spec, not this file.
# Run as a file, or imported as a library of its name (servers/ on sys.path): refuse, never shadow one.
if getattr(__spec__, "name", "") != "servers.django_asgi_granian":
    raise SystemExit(f"{__file__}: an entry, run it as `python -m servers.django_asgi_granian`")

from servers.core.launch import launch  # noqa: E402

if __name__ == "__main__":
    launch("django_asgi_granian")
