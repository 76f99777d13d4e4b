"""Falcon on uWSGI master and worker processes, each worker speaking HTTP (--http-socket), one request
at a time.

The master binds and forks --workers processes; each worker speaks HTTP itself (--http-socket, no
router process in front) and handles one request at a time, blocking on backend calls, then closes
the connection (no keep-alive). Each worker builds the app after the fork (--lazy-apps); backlog
1024 (--listen). SIGTERM stops master and workers (--die-on-term; without it uWSGI takes SIGTERM as
"reload"); the master replaces a worker that dies.

pymongo's client and redis-py's pool are made when the app is built, in the process that serves
(after any fork).

HTTPS (--certfile, --keyfile): OpenSSL, from uWSGI's C core, in each worker process, in C on the
thread that takes the request, before the Python app is called: every worker speaks HTTPS itself (no
router process in front); through --https-socket ADDR,CERT,KEY (instead of --http-socket).

No HTTP/2: uWSGI's workers speak HTTP/1.x on --http-socket and --https-socket; the only newer
protocol in uWSGI is SPDY/3 by NPN in its HTTP router process (the binary's spdy_* functions),
HTTP/2's withdrawn precursor, not HTTP/2; --http2 is refused.

Caveat: a slow client holds a whole worker (--http-socket reads the request in the worker): deploy
behind nginx with the uwsgi protocol, as uWSGI's docs say.

Caveat: HTTP/1.1 (smuggling-relevant): uWSGI's --http-socket hands a WSGI app no chunked body, so a
valid chunked body is read as requests; it hands the app invalid Content-Length and Transfer-
Encoding values, invalid chunks, invalid field names and request lines (HTTP/0.9, other versions,
`GET *`, the authority-form), checks no Host, echoes the client's protocol in its status line
(answers no client reads), refuses a bare LF line end and spaces around the target, and closes after
each answer (a body a framework leaves unread is never read); it reads a chunked body as empty, then
closes (misread: the app acts on an empty body), and serves chunk data ended by `X\n` or `\rX`, a
NUL after a chunk size, `Content-Length\x0b` (ignored) and a bare LF in the last chunk's extension
[desync, misread, accepts-invalid, over-strict, not-observed].

Caveat: uWSGI's --http-socket decodes no chunked request body for the app: wsgi.input reads empty
(only uWSGI's own uwsgi.chunked_read() reads one), so a WSGI app never sees the body (--http-
chunked-input is its router's, not --http-socket's).

Caveat: HTTP/1.1: Falcon answers HEAD 405 where a resource has no on_head responder (RFC 9110 9.1: a
general-purpose server MUST support HEAD): `HEAD /` is refused [over-strict].
"""
# Generated from the specs by `python -m servers.generate`: edit the spec, not this file.
# Run as a file, or imported as a library of its name (servers/ on sys.path): refuse, never shadow one.
if getattr(__spec__, "name", "") != "servers.falcon_uwsgi":
    raise SystemExit(f"{__file__}: an entry, run it as `python -m servers.falcon_uwsgi`")

from servers.core.launch import launch  # noqa: E402

if __name__ == "__main__":
    launch("falcon_uwsgi")
