"""Flask on gevent WSGIServer pre-forked one process per core on one socket; the Redis routes on redis-
py with its pure-Python parser.

The parent binds one listening socket and forks the workers; each monkey-patches before the app is
imported and serves a greenlet per connection. The parent only supervises: it replaces a crashed
worker and passes SIGTERM on.

Flask-PyMongo's client and redis-py's pool are made when the app is built, in the process that
serves (after any fork).

HTTPS (--certfile, --keyfile): Python's ssl module (OpenSSL), in each worker, in the connection's
greenlet: WSGIServer wraps each accepted socket in gevent's cooperative SSLSocket (gevent/ssl.py,
over the ssl module's _ssl) and handshakes before the request is read (gevent/server.py
wrap_socket_and_handle); through gevent WSGIServer's ssl_context.

No HTTP/2: gevent's WSGIServer (gevent.pywsgi) speaks HTTP/1.x only: its WSGIHandler reads request
lines, there is no HTTP/2 in gevent; --http2 is refused.

Caveat: HTTP/1.1 (smuggling-relevant): gevent's pywsgi frames a valid `Transfer-Encoding: ,
chunked`, `chunked,`, `gzip, chunked` as no body (the chunked body is then read as requests; HAProxy
forwards `chunked,` as it came, so that pair desyncs) and takes a bare CR for a line end (a hidden
Content-Length honoured); it serves invalid Content-Length (`+61`, `0_61`, NBSP, two values), a
Transfer-Encoding it cannot use (ignored) or wrapped in bytes str.strip() removes, invalid field
names and request lines, NUL and LF in chunk extensions, checks no Host; keeps the connection after
Content-Length with Transfer-Encoding and after an HTTP/1.0 keep-alive chunked body; answers 500 to
a body cut short or a 2^64 length; refuses HEAD with a body; it sends 100 Continue to an HTTP/1.0
request (RFC 9110 15.2 forbids it), ignores a `Content-Length\x0b` line and serves a bare LF in the
last chunk's extension [desync, accepts-invalid, crash, no-close, over-strict].

Caveat: a greenlet per connection and one pool of 100 Redis connections a worker: 256 kept
connections on pooled Redis queue for the pools, and on a 2-core machine some wait past the 1 s
backend timeout and are answered 503 (4 and 116 of 4,400-14,000 answers among 3 of 6 runs of
flask_gevent on one machine, none in CI's runs before).

Caveat: HTTP/1.1: werkzeug upper-cases the method: `get /` is served as GET [accepts-invalid].
"""
# Generated from the specs by `python -m servers.generate`: edit the spec, not this file.
# Run as a file, or imported as a library of its name (servers/ on sys.path): refuse, never shadow one.
if getattr(__spec__, "name", "") != "servers.flask_gevent_redispy":
    raise SystemExit(f"{__file__}: an entry, run it as `python -m servers.flask_gevent_redispy`")

from servers.core.launch import launch  # noqa: E402

if __name__ == "__main__":
    launch("flask_gevent_redispy")
