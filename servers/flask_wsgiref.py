"""Flask on stdlib wsgiref, single-threaded, one request per connection.

One thread, one HTTP/1.0 request per connection, a listen backlog of 5: connections beyond it are
refused under load. The reference WSGI server, not a production one.

Flask-PyMongo's client and redis-py's pool are made when the app is built, in the process that
serves (after any fork).

No HTTPS: wsgiref.simple_server has no TLS: make_server and its WSGIServer take no SSL context and
its docs show none (the reference WSGI server, not a deployment); --certfile and --keyfile are
refused.

No HTTP/2: wsgiref.simple_server speaks HTTP/1.0 only (http.server's request handler); --http2 is
refused.

Not for production: wsgiref: single-threaded, HTTP/1.0, listen backlog of 5, no chunked request
bodies.

Caveat: HTTP/1.1: CPython's http.server parser takes a bare CR for a line end (a hidden Content-
Length honoured), serves invalid field names, versions and request lines (HTTP/0.9 answered without
a status line), checks no Host, hands `GET *`, the authority-form and a NUL target to the app and
leaves Content-Length and Transfer-Encoding to the app's body reader, which takes invalid values and
unknown codings (wsgiref and http.server read no chunked body: a valid one is read as requests;
werkzeug's answers 500 to invalid chunk syntax, and loops allocating memory at EOF inside a chunk
larger than what came); each closes after its answers (a body a framework leaves unread is never
read) [desync, accepts-invalid, crash, stall, over-strict, not-observed].

Caveat: HTTP/1.1: werkzeug upper-cases the method: `get /` is served as GET [accepts-invalid].
"""
# Generated from the specs by `python -m servers.generate`: edit the spec, not this file.
# Run as a file, or imported as a library of its name (servers/ on sys.path): refuse, never shadow one.
if getattr(__spec__, "name", "") != "servers.flask_wsgiref":
    raise SystemExit(f"{__file__}: an entry, run it as `python -m servers.flask_wsgiref`")

from servers.core.launch import launch  # noqa: E402

if __name__ == "__main__":
    launch("flask_wsgiref")
