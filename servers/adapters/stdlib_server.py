"""The stdlib's http.server: HTTPServer (one thread) or ThreadingHTTPServer (a thread each).

The handler class is the app. The single-threaded server speaks HTTP/1.0 and closes every
connection (keep-alive would let one client starve the rest); the threaded one HTTP/1.1.
Both keep the stdlib's listen backlog of 5.
"""
from __future__ import annotations

import ssl
from http.server import HTTPServer, ThreadingHTTPServer
from typing import Callable

from servers.core.loading import build_app
from servers.adapters.socketserver_loop import serve_until_stopped, server_class
from servers.core.options import Options


def _serve(app_path: str, options: Options, ready: Callable[[], None], base: type, protocol: str) -> None:
    handler = type("Handler", (build_app(app_path, options),), {"protocol_version": protocol})
    cls = server_class(base, options.host)
    if options.tls:
        cls = type(base.__name__, (_tls_activation(options), cls), {})
    serve_until_stopped(cls((options.host, options.port), handler), ready)


def _tls_activation(options: Options) -> type:
    """What Python 3.14's http.server.HTTPSServer adds, for 3.11 and 3.13: once listening, the socket is
    wrapped, so that accept() hands over each connection handshaken (in the accepting thread)."""
    class TlsActivation:
        def server_activate(self) -> None:
            super().server_activate()
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(options.certfile, options.keyfile)
            self.socket = context.wrap_socket(self.socket, server_side=True)

    return TlsActivation


def serve_single(app_path: str, options: Options, ready: Callable[[], None]) -> None:
    _serve(app_path, options, ready, HTTPServer, "HTTP/1.0")


def serve_threaded(app_path: str, options: Options, ready: Callable[[], None]) -> None:
    _serve(app_path, options, ready, ThreadingHTTPServer, "HTTP/1.1")
