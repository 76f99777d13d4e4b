"""Reading a parser owner's reflection: what its server handed the app, from one answer.

A parser owner (catalog.parser_owner) answers any method on `/reflect` and `/reflect/...` with 200,
an `X-Reflect: <method> <version> <body_length> <body_sha256> <target_sha256>` header (on HEAD
answers too) and, but to a HEAD, a JSON body with the full reflection (servers/apps/reflection.py
writes both). read() turns one answer's header value and body into a Reflection:

    reflection = read(response.getheader("X-Reflect"), response.read())
    reflection.body_sha256 == sha256(b"hello")   # the body the app could read
    reflection.is_target(b"/reflect/x?a=b")       # the target as the app received it
    reflection.header("x-probe")                  # ["value"], whatever form the interface gives names

The header's method and version fields are percent-encoded outside `!`..`~` (`-` for an empty one);
`method` and `version` here are the decoded bytes, best effort: a literal `%` is not encoded by the
server's side, so `%41` in a method reads as `A`. The JSON body's strings are latin-1 text of the bytes
the interface gave (WSGI's environ, ASGI's raw headers); `target_from` says where the target came from
(a WSGI environ key, ASGI's raw_path or path, tornado's uri, ...).
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from urllib.parse import unquote_to_bytes

HEADER = "X-Reflect"


class NotAReflection(ValueError):
    """The answer carries no reflection (no X-Reflect, or one that is not five fields)."""


def _field(value: str) -> bytes:
    return b"" if value == "-" else unquote_to_bytes(value)


def _name(name: str) -> str:
    """A header field name in one form: WSGI's HTTP_X_PROBE, ASGI's x-probe and Go's X-Probe all read x-probe."""
    name = name.lower()
    if name.startswith("http_"):
        name = name[len("http_"):]
    return name.replace("_", "-")


@dataclass(frozen=True)
class Reflection:
    """One reflection: the X-Reflect fields, and the JSON body's where the answer has one (not to a HEAD)."""

    method: bytes
    version: bytes
    body_length: int
    body_sha256: str
    target_sha256: str
    document: dict | None = None  # the JSON body: interface, method, target, version, headers, ...

    @property
    def interface(self) -> str | None:
        return self.document["interface"] if self.document else None

    @property
    def target(self) -> str | None:
        return self.document["target"] if self.document else None

    @property
    def target_from(self) -> str | None:
        return self.document.get("target_from") if self.document else None

    @property
    def headers(self) -> list[tuple[str, str]]:
        """The header fields in the order and form the interface gave them ([] without a JSON body)."""
        return [(name, value) for name, value in self.document["headers"]] if self.document else []

    def header(self, name: str) -> list[str]:
        """The values of one header field, its name compared in one form (case, WSGI's HTTP_ and _)."""
        wanted = _name(name)
        return [value for field, value in self.headers if _name(field) == wanted]

    def is_body(self, body: bytes) -> bool:
        return self.body_length == len(body) and self.body_sha256 == hashlib.sha256(body).hexdigest()

    def is_target(self, target: bytes) -> bool:
        return self.target_sha256 == hashlib.sha256(target).hexdigest()


def parse_header(value: str | None) -> Reflection:
    """The X-Reflect header alone (a HEAD answer's whole reflection)."""
    fields = (value or "").split(" ")
    if len(fields) != 5 or not fields[2].isdigit():
        raise NotAReflection(f"{HEADER}: {value!r} is not <method> <version> <length> <sha256> <sha256>")
    method, version, length, body_sha256, target_sha256 = fields
    return Reflection(_field(method), _field(version), int(length), body_sha256, target_sha256)


def read(header: str | None, body: bytes | None = None) -> Reflection:
    """An answer's reflection: its X-Reflect value, and its JSON body when it has one (None or b"" for none)."""
    reflection = parse_header(header)
    if not body:
        return reflection
    try:
        document = json.loads(body)
    except ValueError:
        raise NotAReflection(f"the body is not a reflection's JSON: {body[:200]!r}") from None
    if document.get("body_sha256") != reflection.body_sha256 or document.get("body_length") != reflection.body_length:
        raise NotAReflection(f"the JSON body ({document.get('body_length')} bytes) and {HEADER} "
                             f"({reflection.body_length} bytes) disagree")
    return Reflection(reflection.method, reflection.version, reflection.body_length, reflection.body_sha256,
                      reflection.target_sha256, document)
