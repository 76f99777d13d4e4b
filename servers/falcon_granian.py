"""Falcon on granian (Rust, tokio) in WSGI mode, the app on a blocking thread pool per worker.

granian's main process forks --workers processes and supervises them; each binds the port with its
own SO_REUSEPORT socket (the kernel spreads new connections over them) and parses HTTP in Rust
(hyper on tokio). In each worker the Rust runtime does the I/O and runs the app on a pool of
blocking Python threads, where a backend call blocks one thread. Keep-alive on (granian's default),
backlog 1024, no access log; a worker that dies is replaced (respawn_failed_workers); SIGTERM:
workers get 3 s, then SIGKILL.

pymongo's client and redis-py's pool are made when the app is built, in the process that serves
(after any fork).

HTTPS (--certfile, --keyfile): rustls (Rust, ring's crypto), in each worker's Rust runtime (its
tokio threads, beside hyper's HTTP parsing), without the GIL: the Python threads see plaintext
requests only; granian's minimum is TLS 1.3 (ssl_protocol_min); through granian's ssl_cert and
ssl_key (--ssl-certificate, --ssl-keyfile).

Caveat: each worker listens on its own SO_REUSEPORT socket: when one dies, the connections queued on
its socket are reset (Linux moves them only with net.ipv4.tcp_migrate_req=1).

Caveat: HTTP/1.1: granian checks no Host, hands `GET *` and the authority-form to the app, and a
body with invalid chunk syntax too (the app answers, then granian closes), accepts NUL in a chunk
extension [desync, crash, refuse-shape].

Caveat: HTTP/2: bytes that are not the client preface are answered as an HTTP/1.1 request (400),
also on a TLS connection that selected h2 by ALPN, where RFC 9113 section 3.4 makes them a
connection error (h2spec http2/3.5/2).

Caveat: HTTP/2: it answers a request before it reads the frame that follows it, so h2spec's cases
that send an invalid frame after a complete request (a second HEADERS, DATA after RST_STREAM, a
window overflow, an invalid pseudo-header or content-length) see the answer first on some runs.

Caveat: HTTP/1.1: granian hands an authority-form GET target (`GET host:port`) to the app as an
empty path, which the framework redirects to / or serves as / [refuse-shape].
"""
# Generated from the specs by `python -m servers.generate`: edit the spec, not this file.
# Run as a file, or imported as a library of its name (servers/ on sys.path): refuse, never shadow one.
if getattr(__spec__, "name", "") != "servers.falcon_granian":
    raise SystemExit(f"{__file__}: an entry, run it as `python -m servers.falcon_granian`")

from servers.core.launch import launch  # noqa: E402

if __name__ == "__main__":
    launch("falcon_granian")
