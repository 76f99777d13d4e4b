"""granian (a Rust HTTP server on tokio, hyper's HTTP/1.1), through its Python API.

Its main process forks --workers worker processes and supervises them (with
respawn_failed_workers, a worker that dies is replaced); on Linux each worker listens on its own
SO_REUSEPORT socket (the kernel spreads new connections over them by hash), so the ready line
waits for a first accepted connection; each worker builds the app itself
(a target_loader called after the fork, so pymongo's clients are the worker's own). In WSGI mode
the Rust runtime does the I/O and hands each request to a pool of blocking Python threads, where
the app runs holding the GIL: THREADS_PER_WORKER of them, as the suite's other thread pools
(granian's default is backlog / workers / 2, 256 here, and it warns past 2 x cores + 1). SIGTERM/SIGINT to the main process stop the workers (given workers_kill_timeout
before they are killed). Keep-alive on; granian sends its own Date and Server headers.
"""
from __future__ import annotations

import socket
import threading
import time
from functools import partial
from typing import Any, Callable

from servers.adapters.loading import build_app
from servers.adapters.shutdown import GRACE_SECONDS
from servers.adapters.sizing import LISTEN_BACKLOG, THREADS_PER_WORKER
from servers.options import Options

PROBE_INTERVAL = 0.05


def serve_wsgi(app_path: str, options: Options, ready: Callable[[], None]) -> None:
    _serve(app_path, options, ready, "wsgi", partial(_load_wsgi, options))


def _load_wsgi(options: Options, app_path: str) -> Any:
    return build_app(app_path, options)


def _serve(app_path: str, options: Options, ready: Callable[[], None], interface: str,
           loader: Callable[[str], Any]) -> None:
    from granian import Granian
    from granian.constants import Interfaces
    from granian.log import LogLevels

    server = Granian(app_path, address=options.host, port=options.port, interface=Interfaces(interface),
                     workers=options.workers, backlog=LISTEN_BACKLOG, respawn_failed_workers=True,
                     blocking_threads=THREADS_PER_WORKER, workers_kill_timeout=int(GRACE_SECONDS),
                     log_level=LogLevels.warning, log_access=False)
    server.on_startup(lambda: _announce_once_accepting(options, ready))
    server.serve(target_loader=loader)


def _announce_once_accepting(options: Options, ready: Callable[[], None]) -> None:
    """ready() once a connection is accepted: on Linux granian's main process only checks that the
    address binds, and each worker listens on its own SO_REUSEPORT socket once its app is built."""

    def probe() -> None:
        while True:
            try:
                socket.create_connection((options.host, options.port), timeout=1).close()
            except OSError:
                time.sleep(PROBE_INTERVAL)
                continue
            ready()
            return

    threading.Thread(target=probe, daemon=True, name="ready-probe").start()
