"""cheroot (CherryPy's HTTP server): cheroot.wsgi.Server, a thread pool per process, pre-forked one
process per core on one shared listening socket.

In each worker the main thread runs cheroot's selector loop: it accepts, and hands every new
connection, and every kept-alive one that has bytes to read, to a pool thread, which reads and parses
one request, runs the app, writes the response and gives the connection back to the loop. Left as
cheroot ships it but for the pool size (the suite's THREADS_PER_WORKER, as gunicorn gthread and
waitress), the listen backlog and the drain (GRACE_SECONDS): its 10 s socket timeout and its 10 idle
keep-alive connections stay (the catalog's caveats say what they cost).
"""
from __future__ import annotations

import socket
from typing import Callable

from servers.adapters import prefork, workers
from servers.adapters.shutdown import GRACE_SECONDS, exit_deadline, on_stop_signal
from servers.adapters.sizing import LISTEN_BACKLOG, THREADS_PER_WORKER
from servers.core.options import Options


def serve(app_path: str, options: Options, ready: Callable[[], None]) -> None:
    prefork.run(app_path, options, lambda sock: _worker(sock, options))


def _worker(sock: socket.socket, options: Options) -> None:
    from cheroot import wsgi

    class Server(wsgi.Server):
        """cheroot's WSGI server on the supervisor's socket. cheroot takes an address, not a socket;
        its prepare() makes the socket in bind(), so this worker's bind() gives it the one it was handed,
        already listening (prepare() only sets its timeout and listens again with the same backlog)."""

        def bind(self, family: int, type: int, proto: int = 0) -> socket.socket:
            if self.nodelay:  # as cheroot's own prepare_socket(): accepted sockets inherit it
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.socket = sock
            return sock

        def prepare(self) -> None:
            super().prepare()
            # prepare() gives the listening socket a 1 s timeout, so accept() waits up to 1 s for a
            # connection. Alone on its socket cheroot accepts only when its selector saw one; here every
            # worker's selector wakes for each new connection, and a worker that loses the race would
            # wait in accept(), its loop stalled with its kept-alive connections (1 s stalls measured).
            # Non-blocking, the loser's accept() fails at once with EAGAIN, which cheroot ignores.
            self.socket.setblocking(False)

    server = Server(sock.getsockname()[:2], workers.worker_app(), numthreads=THREADS_PER_WORKER,
                    request_queue_size=LISTEN_BACKLOG, shutdown_timeout=GRACE_SECONDS)
    if options.tls:  # cheroot's docs' form: the builtin (ssl module) adapter on the server
        from cheroot.ssl.builtin import BuiltinSSLAdapter

        server.ssl_adapter = BuiltinSSLAdapter(options.certfile, options.keyfile)

    def stop() -> None:
        exit_deadline()  # a pool thread blocked in the app is not interrupted by cheroot's stop()
        raise KeyboardInterrupt  # out of start() in the main thread, as cheroot's docs stop it

    on_stop_signal(stop)
    try:
        server.start()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()  # closes the sockets and joins the pool threads for at most shutdown_timeout
