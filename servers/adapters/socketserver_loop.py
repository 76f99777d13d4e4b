"""Running a stdlib socketserver (http.server, wsgiref) until SIGTERM/SIGINT, IPv6 included."""
from __future__ import annotations

import socket
import socketserver
import sys
import threading
from typing import Callable

from servers.adapters.shutdown import exit_deadline, on_stop_signal


class _QuietDisconnects:
    def handle_error(self, request, client_address) -> None:
        # A client that hangs up mid-response (a load tool stopping) is not a server error.
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


def server_class(base: type[socketserver.TCPServer], host: str) -> type:
    """`base` for this host's address family, quiet about clients that disconnect."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    return type(base.__name__, (_QuietDisconnects, base), {"address_family": family})


def serve_until_stopped(server: socketserver.BaseServer, ready: Callable[[], None]) -> None:
    """serve_forever until SIGTERM/SIGINT, then finish the request in hand and close.

    Not by raising in the signal handler: wsgiref's handler catches everything a request raises,
    a KeyboardInterrupt included, and would go on serving. shutdown() must come from another
    thread than serve_forever's; the deadline covers a request that does not finish.
    """

    def stop() -> None:
        exit_deadline()
        threading.Thread(target=server.shutdown, daemon=True).start()

    on_stop_signal(stop)
    ready()
    try:
        server.serve_forever()
    finally:
        server.server_close()
