"""bjoern: a libev event loop in C that parses HTTP and calls the WSGI app on the loop's thread.

One request at a time per process: the app, and any backend call it makes, blocks the loop, so
the prefork supervisor runs one process per core on one shared socket (bjoern's own advice for
using more than one core) and replaces any that die. Keep-alive on; bjoern sends neither Date nor
Server (added here). bjoern stops only on SIGINT, which its loop watches itself; a Python SIGTERM
handler would run only with the next request, so a thread takes SIGTERM and turns it into SIGINT.
"""
from __future__ import annotations

import os
import signal
import socket
import threading
from typing import Callable

from servers.adapters import prefork
from servers.adapters.loading import build_app
from servers.adapters.wsgi_headers import with_default_headers
from servers.options import Options


def serve(app_path: str, options: Options, ready: Callable[[], None]) -> None:
    prefork.run(options, ready, lambda sock: _worker(app_path, options, sock))


def _worker(app_path: str, options: Options, sock: socket.socket) -> None:
    import bjoern

    app = with_default_headers(build_app(app_path, options), server="bjoern")
    _sigterm_as_sigint()
    sock.setblocking(False)  # shared by forked workers: the losers of an accept must not block
    bjoern.server_run(sock, app)


def _sigterm_as_sigint() -> None:
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})  # inherited by the thread below

    def forward() -> None:
        signal.sigwait({signal.SIGTERM})
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=forward, daemon=True, name="sigterm-to-sigint").start()
