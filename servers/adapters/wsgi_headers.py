"""Date and Server headers for WSGI servers that leave them out, as the contract asks.

tornado's WSGIContainer sends no Date header. (gevent.pywsgi's missing Server header is added by
its handler in servers.adapters.gevent_prefork, which costs less than this wrapper.)
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

from servers.core.http_date import http_date


def with_default_headers(app: Callable, server: str | None = None) -> Callable:
    """Add Date (and Server, when named) to responses that do not have them."""

    def wrapped(environ: dict, start_response: Callable) -> Iterable[bytes]:
        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None):
            present = {name.lower() for name, _ in headers}
            extra = [("Date", http_date())] if "date" not in present else []
            if server and "server" not in present:
                extra.append(("Server", server))
            return start_response(status, [*headers, *extra], exc_info)

        return app(environ, start)

    return wrapped
