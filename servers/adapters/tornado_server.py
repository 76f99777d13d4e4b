"""tornado's HTTPServer on the asyncio event loop: native apps, or WSGI apps in a WSGIContainer.

One process by default; with --workers N the prefork supervisor forks N processes on one socket
(tornado's own bind()/start(n) is deprecated). The WSGIContainer runs the WSGI app on a
ThreadPoolExecutor, so a blocking driver call blocks a pool thread, not the event loop.
WSGIContainer (6.5) never answers nor closes a request it fails to turn into an environ (a Host
whose port is not a number): this adapter answers those 400 and closes on any other such failure.
"""
from __future__ import annotations

import asyncio
import socket
import ssl
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

from servers.adapters import prefork, workers
from servers.adapters.shutdown import GRACE_SECONDS, STOP_SIGNALS
from servers.adapters.sizing import THREADS_PER_WORKER
from servers.adapters.wsgi_headers import with_default_headers
from servers.core.options import Options


def serve_native(app_path: str, options: Options, ready: Callable[[], None]) -> None:
    prefork.run(app_path, options, lambda sock: asyncio.run(_worker(workers.worker_app, sock, options)))


def serve_wsgi(app_path: str, options: Options, ready: Callable[[], None]) -> None:
    def container() -> Any:
        executor = ThreadPoolExecutor(max_workers=THREADS_PER_WORKER)
        return _guarded_container()(with_default_headers(workers.worker_app()), executor=executor)

    prefork.run(app_path, options, lambda sock: asyncio.run(_worker(container, sock, options)))


def _ssl_options(options: Options) -> ssl.SSLContext | None:
    """HTTPServer's ssl_options as tornado's docs write them: a server-side default context and the pair."""
    if not options.tls:
        return None
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(options.certfile, options.keyfile)
    return context


async def _worker(make_handler: Callable[[], Any], sock: socket.socket, options: Options) -> None:
    from tornado.httpserver import HTTPServer

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in STOP_SIGNALS:
        loop.add_signal_handler(sig, stop.set)
    server = HTTPServer(make_handler(), xheaders=False, ssl_options=_ssl_options(options))
    sock.setblocking(False)  # shared by forked workers: the losers of an accept must not block
    server.add_sockets([sock])
    await stop.wait()
    server.stop()
    try:
        await asyncio.wait_for(server.close_all_connections(), GRACE_SECONDS)
    except asyncio.TimeoutError:
        pass  # stragglers are dropped: the contract wants the process gone within 5 s


def _guarded_container() -> type:
    from tornado import httputil
    from tornado.wsgi import WSGIContainer

    # The adapter speaks HTTP only: its own answer, not an app's (adapters import no app).
    bad_host = b'{"error":"bad host header"}'

    class GuardedWSGIContainer(WSGIContainer):
        async def handle_request(self, request: httputil.HTTPServerRequest) -> None:
            if not _port_is_a_number(request.host):
                headers = httputil.HTTPHeaders({"Content-Type": "application/json",
                                                "Content-Length": str(len(bad_host))})
                request.connection.write_headers(httputil.ResponseStartLine("HTTP/1.1", 400, "Bad Request"),
                                                 headers, chunk=bad_host)
                request.connection.finish()
                return
            try:
                await super().handle_request(request)
            except Exception:
                request.connection.close()  # whatever was sent, the client is not left waiting
                raise

    return GuardedWSGIContainer


def _port_is_a_number(host: str) -> bool:
    """What WSGIContainer.environ needs: a host with exactly one ':' has an int() port after it."""
    parts = host.split(":")
    if len(parts) != 2:
        return True
    try:
        int(parts[1])
    except ValueError:
        return False
    return True
