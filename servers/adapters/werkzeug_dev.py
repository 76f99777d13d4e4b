"""werkzeug's development server (what `flask run` uses): single, threaded, or forking.

Never with the debugger or the reloader. werkzeug (3.x) sends `Connection: close` on every
response in every mode: no keep-alive, whatever the protocol version.
"""
from __future__ import annotations

from typing import Callable

from werkzeug.serving import WSGIRequestHandler, make_server

from servers.core.loading import build_app
from servers.adapters.socketserver_loop import serve_until_stopped
from servers.core.options import Options


class _QuietHandler(WSGIRequestHandler):
    def log_request(self, code="-", size="-") -> None:
        pass  # no per-request access log


def _serve(app_path: str, options: Options, ready: Callable[[], None], *, threaded: bool, processes: int) -> None:
    app = build_app(app_path, options)
    server = make_server(options.host, options.port, app, threaded=threaded, processes=processes,
                         request_handler=_QuietHandler,
                         ssl_context=(options.certfile, options.keyfile) if options.tls else None)
    serve_until_stopped(server, ready)


def serve_single(app_path: str, options: Options, ready: Callable[[], None]) -> None:
    _serve(app_path, options, ready, threaded=False, processes=1)


def serve_threaded(app_path: str, options: Options, ready: Callable[[], None]) -> None:
    _serve(app_path, options, ready, threaded=True, processes=1)


def serve_processes(app_path: str, options: Options, ready: Callable[[], None]) -> None:
    _serve(app_path, options, ready, threaded=False, processes=options.workers)
