"""The route contract as bytes: every app answers exactly these, so stacks compare fairly.

JSON bodies are compact and end without a newline, the same bytes from every stack (Python and Go).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

TEXT = "text/plain; charset=utf-8"
JSON = "application/json"


def json_bytes(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


@dataclass(frozen=True)
class Reply:
    status: int
    body: bytes
    content_type: str = JSON


def error(status: int, message: str | None = None) -> Reply:
    """An error answer: JSON {"error": ...}, the reason phrase in lower case unless told."""
    return Reply(status, json_bytes({"error": message or HTTPStatus(status).phrase.lower()}))


HELLO = Reply(200, b"Hello, World!", TEXT)
HELLO_JSON = Reply(200, json_bytes({"message": "Hello, World!"}))
NOT_FOUND = error(404)
METHOD_NOT_ALLOWED = error(405)
BACKEND_UNAVAILABLE = error(503, "backend unavailable")
INTERNAL_ERROR = error(500, "internal error")


def found(value: dict | None) -> Reply:
    return NOT_FOUND if value is None else Reply(200, json_bytes(value))
