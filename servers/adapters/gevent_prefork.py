"""gevent's WSGIServer, pre-forked one process per core on one shared listening socket.

Each worker monkey-patches first (before the app, its framework or drivers are imported), then
serves every connection in its own greenlet; blocking driver calls yield to the hub. The
parent is the plain supervisor of servers.adapters.prefork and never imports gevent.
"""
from __future__ import annotations

import socket
from typing import Callable

from servers.adapters import prefork, workers
from servers.adapters.shutdown import GRACE_SECONDS, STOP_SIGNALS
from servers.core.options import Options


def serve(app_path: str, options: Options, ready: Callable[[], None]) -> None:
    prefork.run(app_path, options, _worker)


def _worker(sock: socket.socket) -> None:
    from gevent import monkey

    monkey.patch_all()
    import gevent
    import gevent.socket
    from gevent.pywsgi import WSGIHandler, WSGIServer

    class Handler(WSGIHandler):
        def handle(self) -> None:
            # pywsgi can write headers and body in two sends: without NODELAY, Nagle and the
            # client's delayed ACK hold every keep-alive response ~40 ms (as gunicorn, tornado
            # and Go do, set it).
            self.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            super().handle()

        def finalize_headers(self) -> None:
            # pywsgi adds Date itself but no Server; one append here is the cheapest place (a
            # WSGI middleware around the app cost a closure, a header scan and a Date per request).
            super().finalize_headers()
            self.response_headers.append((b"Server", b"gevent"))

        def log_request(self) -> None:
            pass  # no per-request access log

    listener = gevent.socket.socket(sock.family, sock.type, fileno=sock.detach())
    app = workers.worker_app()
    options = workers.handed()[1]
    tls = {"ssl_context": _ssl_context(options)} if options.tls else {}
    server = WSGIServer(listener, app, handler_class=Handler, log=None, error_log="default", **tls)
    for sig in STOP_SIGNALS:
        gevent.signal_handler(sig, lambda: gevent.spawn(server.stop, timeout=GRACE_SECONDS))
    server.serve_forever()


def _ssl_context(options):
    """WSGIServer's ssl_context (gevent's docs' form; the keyfile/certfile form goes through the removed
    ssl.wrap_socket). Imported after the monkey-patching: gevent's cooperative SSLContext."""
    import ssl

    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(options.certfile, options.keyfile)
    return context
