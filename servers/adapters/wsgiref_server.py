"""The stdlib's wsgiref.simple_server: one thread, one request per connection, backlog of 5.

The reference WSGI server, not a production one: a slow request stalls every other client.
"""
from __future__ import annotations

from typing import Callable
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from servers.core.loading import build_app
from servers.adapters.socketserver_loop import serve_until_stopped, server_class
from servers.core.options import Options


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args) -> None:
        pass  # no per-request access log


def serve(app_path: str, options: Options, ready: Callable[[], None]) -> None:
    server = make_server(options.host, options.port, build_app(app_path, options),
                         server_class=server_class(WSGIServer, options.host), handler_class=_QuietHandler)
    serve_until_stopped(server, ready)
