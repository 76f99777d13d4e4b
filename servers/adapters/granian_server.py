"""granian: a Rust HTTP server (hyper on tokio) driving a Python app, in ASGI, RSGI or WSGI mode.

The main process forks --workers processes and supervises them; each worker loads the app through
our target loader, servers.adapters.workers.worker_app (the app built from the flags handed over, so
the app and the clients it makes are the worker's own, after the fork), and binds its own listening
socket on the port with SO_REUSEPORT (on Linux granian shares no socket: the kernel spreads new
connections over the workers' sockets by hash). ASGI: a uvloop event loop runs the app while Rust
threads do the HTTP. RSGI, granian's own interface: the same, but the app is called as
app.__rsgi__(scope, protocol) and answers with one call (protocol.response_str/bytes) instead of
ASGI's message dicts; its __rsgi_init__ runs on each worker's loop before it serves (Emmett's
startup). WSGI: the Rust runtime does the I/O and hands each request to a pool of blocking Python
threads, where the app runs holding the GIL: THREADS_PER_WORKER of them, as the suite's other thread
pools (granian's default is backlog / workers / 2, and it warns past 2 x cores + 1). Keep-alive on
(granian's HTTP/1 default; an idle keep-alive connection is closed after hyper's
header_read_timeout, which granian sets to 30 s and which since hyper 1.6 also runs between
requests), backlog 1024, no access log; granian adds Date and `Server: granian`.

On free-threaded CPython (granian 2.7.9, the last release with cp313t wheels) granian's workers are
threads of the one process (granian.server.MTServer), sharing the socket it binds and the one app it
loads (with its clients: an asyncio client made on one worker's loop is used from the others'); it
refuses to start when the GIL is on.

Pitfalls: the main process holds no socket, so "ready" is servers.adapters.workers' one rule (every
worker has loaded the app, and the port accepts); granian 2.8 puts http_version "1" (not the ASGI
spec's "1.0") in the scope of an HTTP/1.0 request, which Falcon's ASGI app refuses (500):
falcon_asgi_granian is left out of the catalog for it. A SIGKILLed worker's queued connections are
reset with its socket (Linux moves them only with net.ipv4.tcp_migrate_req=1). A worker that dies is
replaced only with respawn_failed_workers (off by default, on here), and one that dies again within
5.5 s of its respawn makes granian stop the whole server ("crash loop detected"). SIGTERM/SIGINT:
the main process stops the workers, each gets workers_kill_timeout (3 s; granian waits for ever by
default) before SIGKILL.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any, Callable

from granian.http import HTTP1Settings
from granian.constants import Interfaces, Loops
from granian.log import LogLevels
from granian.server import MTServer, Server

from servers.adapters import workers
from servers.adapters.shutdown import GRACE_SECONDS
from servers.adapters.sizing import LISTEN_BACKLOG, THREADS_PER_WORKER
from servers.core import server_options
from servers.core.options import Options


# uvloop has no free-threaded (cp313t) wheel: the free-threaded entries run asyncio's own loop.
_LOOP = Loops.uvloop if importlib.util.find_spec("uvloop") else Loops.asyncio


def _load(target: str) -> Any:
    """granian's target loader, called in each worker with the target (the app path handed over); on
    free-threaded Python once, in the main process, for every worker thread."""
    return workers.worker_app(serves=workers.handed()[1].workers if Server is MTServer else 1)


def serve_asgi(app_path: str, options: Options, ready: Callable[[], None]) -> None:
    _serve(Interfaces.ASGI, app_path, options, ready)


def serve_rsgi(app_path: str, options: Options, ready: Callable[[], None]) -> None:
    _serve(Interfaces.RSGI, app_path, options, ready)


def serve_wsgi(app_path: str, options: Options, ready: Callable[[], None]) -> None:
    _serve(Interfaces.WSGI, app_path, options, ready, blocking_threads=THREADS_PER_WORKER)


def _given() -> dict[str, Any]:
    """A setting's options; its HTTP/1 ones (a dict under http1_settings) as granian's HTTP1Settings."""
    given = server_options.given()
    if "http1_settings" in given:
        given["http1_settings"] = HTTP1Settings(**dict(given["http1_settings"]))
    return given


def _serve(interface: Interfaces, app_path: str, options: Options, ready: Callable[[], None],
           **extra: Any) -> None:
    if options.tls:  # rustls in each worker's Rust runtime (the spec's Tls)
        extra.update(ssl_cert=Path(options.certfile), ssl_key=Path(options.keyfile))
    server = Server(
        app_path, address=options.host, port=options.port, interface=interface, workers=options.workers,
        loop=_LOOP, backlog=LISTEN_BACKLOG, log_level=LogLevels.warning, log_access=False,
        respawn_failed_workers=True, workers_kill_timeout=int(GRACE_SECONDS), **extra, **_given(),
    )
    workers.hand_over(app_path, options)
    server.serve(target_loader=_load)
