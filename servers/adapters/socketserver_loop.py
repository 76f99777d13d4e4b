"""Running a stdlib socketserver (http.server, wsgiref) until SIGTERM/SIGINT, IPv6 included."""
from __future__ import annotations

import socket
import socketserver
from typing import Callable

from servers.adapters.shutdown import raise_keyboard_interrupt_on_stop


def family_for(host: str) -> socket.AddressFamily:
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def serve_until_stopped(server: socketserver.BaseServer, ready: Callable[[], None]) -> None:
    raise_keyboard_interrupt_on_stop()
    ready()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
