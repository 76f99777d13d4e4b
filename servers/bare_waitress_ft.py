"""Bare WSGI callable on waitress, an event loop that buffers requests for a thread pool, on free-
threaded CPython 3.13t (no GIL).

One process: an event loop reads whole requests and buffers whole responses, and 16 threads run the
app (a blocking backend call holds one thread). Keep-alive on; waitress listens with a backlog of
1024 but serves at most 100 connections at once (connection_limit), the rest waiting unaccepted.
SIGTERM stops the loop and its threads.

The app is servers.apps.bare_app: a plain PEP 3333 callable (hello and json only), the server alone
plus the reflection route (/reflect answers with the method, target, version, header fields and body
the server handed the app).

On free-threaded CPython 3.13t (.venv-ft): its 16 threads run the app at the same time; its one
event-loop thread still reads every request and writes every response, one connection at a time.
Every request first checks that the GIL is still off (servers/core/gil_guard.py).

No HTTPS: waitress has no TLS: its docs say it "does not natively support TLS" and put it behind a
reverse proxy that terminates it (docs/reverse-proxy.rst); --certfile and --keyfile are refused.

No HTTP/2: waitress speaks HTTP/1.x only (its HTTPChannel parses HTTP/1 requests); like TLS, its
docs leave HTTP/2 to the reverse proxy in front; --http2 is refused.

Caveat: HTTP/1.1 (smuggling-relevant): waitress ignores Transfer-Encoding on HTTP/1.0 (the chunked
body is read as requests on a keep-alive connection; HAProxy forwards it so), keeps the connection
after Content-Length with Transfer-Encoding, serves an empty Transfer-Encoding, chunked twice, a LF
after the last chunk, invalid trailer names, HTTP/2.0 and version-less request lines, `GET *`, the
authority-form and a NUL target, checks no Host, refuses BWS in a chunk extension, and waits for a
CRLF after a head ended by bare LFs; a trailer line ended by a bare LF hides the next request in the
trailer section (desync), a bare LF ending the chunked body is taken, and a chunked HTTP/1.0 body is
read as empty before a close (misread) [desync, misread, accepts-invalid, stall, no-close, over-
strict].

Caveat: at 256 keep-alive connections on pooled Redis a few requests wait past 2 s on a 2-core
machine (6 and 16 of 3,800-5,700 answers among 3 of 3 runs of flask_waitress on one machine, p99 1.2
s; none in CI's runs before; `/` holds): one process serves at most 100 connections at once
(connection_limit) and its threads share one GIL.
"""
# Generated from the specs by `python -m servers.generate`: edit the spec, not this file.
# Run as a file, or imported as a library of its name (servers/ on sys.path): refuse, never shadow one.
if getattr(__spec__, "name", "") != "servers.bare_waitress_ft":
    raise SystemExit(f"{__file__}: an entry, run it as `python -m servers.bare_waitress_ft`")

from servers.core.launch import launch  # noqa: E402

if __name__ == "__main__":
    launch("bare_waitress_ft")
