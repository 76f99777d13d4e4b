"""The stdlib's http.server: HTTPServer (one thread) or ThreadingHTTPServer (a thread each).

The handler class is the app. The single-threaded server speaks HTTP/1.0 and closes every
connection (keep-alive would let one client starve the rest); the threaded one HTTP/1.1.
Both keep the stdlib's listen backlog of 5.
"""
from __future__ import annotations

from http.server import HTTPServer, ThreadingHTTPServer
from typing import Callable

from servers.core.loading import build_app
from servers.adapters.socketserver_loop import serve_until_stopped, server_class
from servers.core.options import Options


def _serve(app_path: str, options: Options, ready: Callable[[], None], base: type, protocol: str) -> None:
    handler = type("Handler", (build_app(app_path, options),), {"protocol_version": protocol})
    serve_until_stopped(server_class(base, options.host)((options.host, options.port), handler), ready)


def serve_single(app_path: str, options: Options, ready: Callable[[], None]) -> None:
    _serve(app_path, options, ready, HTTPServer, "HTTP/1.0")


def serve_threaded(app_path: str, options: Options, ready: Callable[[], None]) -> None:
    _serve(app_path, options, ready, ThreadingHTTPServer, "HTTP/1.1")
