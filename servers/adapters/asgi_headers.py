"""Date and Server headers for ASGI servers that leave them out, as the contract asks (the ASGI twin of
servers/adapters/wsgi_headers.py).

daphne sends `server: daphne` but no Date (its WebRequest is twisted.web.http's Request, which leaves Date to
twisted's Site, which daphne does not use).
"""
from __future__ import annotations

from typing import Any, Awaitable, Callable

from servers.core.http_date import http_date

Send = Callable[[dict], Awaitable[None]]


def with_default_headers(app: Callable, server: str | None = None) -> Callable:
    """Add Date (and Server, when named) to http.response.start messages that do not have them; every other
    message and scope passes through untouched."""

    async def wrapped(scope: dict, receive: Callable, send: Send) -> Any:
        if scope["type"] != "http":
            return await app(scope, receive, send)

        async def start(message: dict) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                present = {bytes(name).lower() for name, _ in headers}
                if b"date" not in present:
                    headers.append((b"date", http_date().encode("latin-1")))
                if server and b"server" not in present:
                    headers.append((b"server", server.encode("latin-1")))
                message = {**message, "headers": headers}
            await send(message)

        return await app(scope, receive, start)

    return wrapped
