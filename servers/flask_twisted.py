"""Flask on twisted WSGIResource, the app on the reactor's thread pool.

twisted.web parses HTTP on the reactor thread; the app runs on the reactor's thread pool (16
threads) and hands its response back to the reactor. SIGTERM stops the reactor, with a deadline in
case pool threads hang.

Flask-PyMongo's client and redis-py's pool are made when the app is built, in the process that
serves (after any fork).

HTTPS (--certfile, --keyfile): pyOpenSSL (OpenSSL through cffi), on the reactor thread: the endpoint
wraps the site's HTTP protocol in a TLSMemoryBIOProtocol (twisted/protocols/tls.py) that feeds
pyOpenSSL's memory BIOs, the handshake included; through its SSL server endpoint
(ssl:PORT:privateKey=KEY:certKey=CERT).

HTTP/2 (python-hyper's h2 (hpack, hyperframe)), served by default: h2 by ALPN over TLS; --http2
changes nothing. Framed on the reactor thread: H2Connection (twisted/web/_http2.py) feeds each read
to h2's H2Connection and makes each stream an H2Stream with its own Request, so a WSGI app's streams
run on the reactor's thread pool at the same time and a native Resource's on the reactor. Not
served: no h2c: twisted.web picks HTTP/2 from the ALPN result alone (_GenericHTTPChannelProtocol),
so neither a cleartext preface nor `Upgrade: h2c` is served.

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

Caveat: HTTP/1.1: werkzeug upper-cases the method: `get /` is served as GET [accepts-invalid].
"""
# Generated from the specs by `python -m servers.generate`: edit the spec, not this file.
# Run as a file, or imported as a library of its name (servers/ on sys.path): refuse, never shadow one.
if getattr(__spec__, "name", "") != "servers.flask_twisted":
    raise SystemExit(f"{__file__}: an entry, run it as `python -m servers.flask_twisted`")

from servers.core.launch import launch  # noqa: E402

if __name__ == "__main__":
    launch("flask_twisted")
