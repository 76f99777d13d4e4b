"""The route contract's shared strings: the hello text, error messages, content types, the fortunes row.

Only strings live here. Every app builds its bodies inside each request, its framework's way
(JSON through the framework's own machinery, configured compact: `{"message":"Hello, World!"}`,
no spaces, no trailing newline), so the bytes are the same on every stack and no stack skips the
work a user's app does.
"""
from __future__ import annotations

from http import HTTPStatus

from servers.core.specs import WS_OPERATIONS

TEXT = "text/plain; charset=utf-8"
JSON = "application/json"
HTML = "text/html; charset=utf-8"  # /fortunes: TechEmpower's verifier requires the charset

HELLO = "Hello, World!"
NOT_FOUND = "not found"
METHOD_NOT_ALLOWED = "method not allowed"
BACKEND_UNAVAILABLE = "backend unavailable"
INTERNAL_ERROR = "internal error"
# /fortunes: the row each request adds (id 0) before sorting by message, TechEmpower's words
ADDITIONAL_FORTUNE = "Additional fortune added at request time."
FORTUNES_TITLE = "Fortunes"
ALLOWED_METHODS = ("GET", "HEAD")  # every route of the contract answers GET (and HEAD)
# The WebSocket routes (docs/websockets.md): each message back to its sender, or to every socket of the worker
WS_ECHO, WS_BROADCAST = WS_OPERATIONS["ws-echo"], WS_OPERATIONS["ws-broadcast"]


def error_message(status: int) -> str:
    """The message of {"error": ...} for an error status: the contract's, else the reason phrase."""
    return _MESSAGES.get(status) or HTTPStatus(status).phrase.lower()


_MESSAGES = {404: NOT_FOUND, 405: METHOD_NOT_ALLOWED, 500: INTERNAL_ERROR, 503: BACKEND_UNAVAILABLE}
