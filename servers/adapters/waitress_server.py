"""waitress: one process, an asyncore-style event loop that reads and buffers whole requests and
responses, and a pool of threads that run the WSGI app.

The loop, not a thread, deals with slow clients: a thread only gets a request once it has been
read in full. Keep-alive on, Date and Server headers its own. Left as waitress ships it apart from
the thread count (the suite's THREADS_PER_WORKER, as gunicorn gthread and tornado's executor):
`connection_limit` stays 100, past which it stops accepting (the catalog's caveat). With
--workers N the prefork supervisor forks N such processes on one socket.
"""
from __future__ import annotations

import socket
from typing import Callable

from servers.adapters import prefork, workers
from servers.adapters.shutdown import exit_deadline, on_stop_signal
from servers.adapters.sizing import LISTEN_BACKLOG, THREADS_PER_WORKER
from servers.core.options import Options


def serve(app_path: str, options: Options, ready: Callable[[], None]) -> None:
    prefork.run(app_path, options, _worker)


def _worker(sock: socket.socket) -> None:
    from waitress.server import create_server

    server = create_server(workers.worker_app(), sockets=[sock], threads=THREADS_PER_WORKER,
                           backlog=LISTEN_BACKLOG, ident="waitress")

    def stop() -> None:
        exit_deadline()  # the task dispatcher waits up to 5 s for busy threads: the contract wants less
        # waitress's run() stops its task threads on it; with one listening socket (a TcpWSGIServer) it
        # closes no socket: they close when the process exits
        raise KeyboardInterrupt

    on_stop_signal(stop)
    server.run()
