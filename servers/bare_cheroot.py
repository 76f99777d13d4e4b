"""Bare WSGI callable on cheroot (CherryPy's server), a thread pool per process, pre-forked one process
per core on one socket.

The parent binds one listening socket and forks the workers; in each, cheroot's main thread runs a
selector loop that accepts and hands each new connection, and each kept-alive one with bytes to
read, to one of 16 pool threads, which reads the request, runs the app and writes the response (a
blocking backend call holds one thread). Backlog 1024; keep-alive on, with a 10 s socket timeout,
and at most 10 idle keep-alive connections per process. SIGTERM: each worker stops accepting, closes
its idle connections and gives busy threads 3 s; the parent replaces a worker that dies.

The app is servers.apps.bare_app: a plain PEP 3333 callable (hello and json only), the server alone
plus the reflection route (/reflect answers with the method, target, version, header fields and body
the server handed the app).

HTTPS (--certfile, --keyfile): Python's ssl module (OpenSSL), in each worker's selector thread, as
it accepts: ConnectionManager._from_server_socket wraps the new socket (BuiltinSSLAdapter.wrap,
do_handshake_on_connect) before any pool thread sees it, with the server's 10 s socket timeout: a
client that connects and stays silent holds that worker's loop, its kept-alive connections included,
for up to 10 s; through cheroot's BuiltinSSLAdapter (server.ssl_adapter).

No HTTP/2: cheroot speaks HTTP/1.x only: its HTTPRequest parses HTTP/1 request lines, and CherryPy's
docs leave HTTP/2 to a proxy in front; --http2 is refused.

Caveat: HTTP/1.1 (smuggling-relevant): cheroot reads Content-Length with Python's int() (`+47` and
`0_47` are taken; `-47` and a 21-digit length make its app's read fail, 500), keeps the last of two
differing Content-Length lines, takes a field name with whitespace before its colon (`Content-Length
: 47` frames the body) or with bytes no token has, a method that is no token, an empty Transfer-
Encoding and one with a vertical tab, chunked twice, ignores Transfer-Encoding on HTTP/1.0 (the
chunked body is read as the next request), keeps the connection after a request with both Content-
Length and Transfer-Encoding, checks no Host, hands a NUL target and a body its client cut short to
the app, and refuses the absolute-form (400) and HTTP/1.2 (505); it sends 100 Continue to an
HTTP/1.0 request (RFC 9110 15.2 forbids it), takes `Content-Length\x0b` for Content-Length, answers
chunk data ended by `X\n` or `\rX` and a NUL after a chunk size with a 500, and refuses the request
after a trailer line ended by a bare LF (the trailer's rest read as a request); its bare app reads a
chunked HTTP/1.0 body as empty, then closes (misread) [desync, misread, accepts-invalid, crash, no-
close, over-strict].

Caveat: HTTP/1.1 (smuggling-relevant): cheroot's chunked reader (ChunkedRFile, run as the app reads
the body) takes a chunk size with `0x`, `+`, `-`, `_` or whitespace (int(..., 16)), a bare CR, LF or
NUL in a chunk line, and invalid trailer names; it answers the body it cannot frame (a missing or
overflowing size, bad chunk data, a body cut by EOF) with a 500 from the app's read instead of a
400, and it reads no trailer section, so the trailer's fields are parsed as the next request
[desync, accepts-invalid, crash].

Caveat: HTTP/1.1 (smuggling-relevant): cheroot reads the unread rest of a Content-Length body before
it answers, but leaves an unread chunked body on the connection and keeps the connection: when the
app answers without reading the body (a 404, a 405), cheroot parses the chunk data as the next
request (a request hidden in it is answered) and never checks its chunk syntax; a body its parser
mis-frames (a negative length, Transfer-Encoding with a vertical tab) is read as requests the same
way; an answer to those bytes is a desync whatever its status (cheroot's 400 to a body after
`Content-Length` with `Transfer-Encoding` was read as a kept connection before) [desync, no-close].

Caveat: HTTP/1.1: cheroot answers a request whose first field line starts with whitespace with a 500
(an UnboundLocalError in its header reader) where it should refuse it (400) [crash].

Caveat: cheroot hands each new connection to a pool thread, which waits up to its 10 s socket
timeout for the first bytes: more silent connections (browser pre-connects, a load tool's spare
dials) than threads (16 a process here) stall every other client of that process meanwhile.
"""
# Generated from the specs by `python -m servers.generate`: edit the spec, not this file.
# Run as a file, or imported as a library of its name (servers/ on sys.path): refuse, never shadow one.
if getattr(__spec__, "name", "") != "servers.bare_cheroot":
    raise SystemExit(f"{__file__}: an entry, run it as `python -m servers.bare_cheroot`")

from servers.core.launch import launch  # noqa: E402

if __name__ == "__main__":
    launch("bare_cheroot")
