"""Falcon on gunicorn gevent workers, a greenlet per connection.

Each worker monkey-patches, then accepts on the shared socket and runs a greenlet per connection
(kept alive); blocking pymongo and redis-py calls yield to gevent's hub, so one worker serves many
requests at once.

pymongo's client and redis-py's pool are made when the app is built, in the process that serves
(after any fork).

HTTPS (--certfile, --keyfile): Python's ssl module (OpenSSL), in each worker, in the connection's
greenlet: gevent's StreamServer wraps each accepted socket in gevent's cooperative SSLSocket
(gevent/ssl.py, over the ssl module's _ssl) with one SSLContext made at the worker's start
(gunicorn/workers/ggevent.py), and handshakes before the request is read; through gunicorn's
certfile and keyfile settings (--certfile, --keyfile).

HTTP/2 (python-hyper's h2 (hpack, hyperframe)), off by default; --http2 adds h2 by ALPN over TLS,
h2c by prior knowledge, h2c by Upgrade through gunicorn's http_protocols "h2,h1" and, in cleartext,
http2_cleartext "both" (--http-protocols, --http2-cleartext). Framed in the connection's greenlet:
gunicorn/http2/connection.py drives h2's H2Connection over gevent's cooperative socket and the
greenlet serves the requests of each read one after another (workers/base_async.py handle_http2), so
one connection's streams are answered one at a time (a backend call yields to other connections, not
to the same connection's streams); h2c only from the peers of forwarded_allow_ips (127.0.0.1 and ::1
by default: meant from a proxy on the same host), anyone else served HTTP/1.1.

Caveat: with more than one worker each accepts one connection per loop turn (gunicorn #2266): a
burst of new connections waits in the accept queue, some past 2 s at 256 at once.

Caveat: HTTP/1.1: gunicorn hands the app a Content-Length body cut short by the client's EOF as if
complete (wsgi.input ends without an error), checks no Host, echoes HTTP/1.2 in its status line (an
answer no client reads), refuses Transfer-Encoding lists with an empty element (501) and trailer
fields named Content-Length, Transfer-Encoding or Host (400); the sync worker closes after each
answer, so a body a framework leaves unread is never read [accepts-invalid, over-strict, not-
observed].

Caveat: HTTP/2 (--http2): the gthread and gevent workers serve the requests a read completes before
they read on, so an invalid frame that follows a request (a second HEADERS, a pseudo-header in
trailers, DATA that does not add up to its content-length, a window past 2^31-1) meets an answer
already sent, and a malformed request is at times left unanswered past h2spec's 2 s: h2spec races
them (docs/http2-grid.md).

Caveat: HTTP/2 over TLS (--http2): gunicorn's gevent worker ends a connection after the peer's
GOAWAY or a connection error (a PING of the wrong length or on a stream) with a TCP reset, so the
peer reads a reset instead of the GOAWAY and close h2spec expects; its h2c does so in some runs (1
of 3 recorded), the gthread worker's TLS ends them cleanly (docs/http2-grid.md).

Caveat: HTTP/1.1: Falcon answers HEAD 405 where a resource has no on_head responder (RFC 9110 9.1: a
general-purpose server MUST support HEAD): `HEAD /` is refused [over-strict].
"""
# Generated from the specs by `python -m servers.generate`: edit the spec, not this file.
# Run as a file, or imported as a library of its name (servers/ on sys.path): refuse, never shadow one.
if getattr(__spec__, "name", "") != "servers.falcon_gunicorn_gevent":
    raise SystemExit(f"{__file__}: an entry, run it as `python -m servers.falcon_gunicorn_gevent`")

from servers.core.launch import launch  # noqa: E402

if __name__ == "__main__":
    launch("falcon_gunicorn_gevent")
