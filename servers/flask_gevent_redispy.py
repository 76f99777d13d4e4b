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

Caveat: HTTP/1.1 (smuggling-relevant): gevent's pywsgi accepts invalid Content-Length, unknown or
doubled Transfer-Encoding and `chunked` wrapped in bytes str.strip() removes (\x1c-\x1f, NBSP, NEL),
keeps an HTTP/1.0 keep-alive connection after a chunked body, accepts invalid field names: expose it
behind a proxy [desync, no-close, refuse-shape].

Caveat: HTTP/1.1: werkzeug upper-cases the method: `get /` is served as GET [refuse-shape].

Caveat: HTTP/1.1: the server passes a method that is no token (`G@T /`) on to the app, which answers
it 405, where the server should refuse it (400) [refuse-shape].
"""
# Generated from the specs by `python -m servers.generate`: edit the spec, not this file.
# Run as a file, or imported as a library of its name (servers/ on sys.path): refuse, never shadow one.
if getattr(__spec__, "name", "") != "servers.flask_gevent_redispy":
    raise SystemExit(f"{__file__}: an entry, run it as `python -m servers.flask_gevent_redispy`")

from servers.core.launch import launch  # noqa: E402

if __name__ == "__main__":
    launch("flask_gevent_redispy")
