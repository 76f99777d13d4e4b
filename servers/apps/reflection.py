"""The reflection route's answer, built once for every Python parser-owner app.

A parser-owner app (the bare WSGI, ASGI and RSGI apps; the tornado, twisted.web, Sanic and stdlib
apps) answers any method on `/reflect` and `/reflect/...` with what its server handed it: method,
target, version, header fields, and the body it read (length and SHA-256). Each app reads the request
its interface's way; this module only renders what it read, so the bytes of the answer mean the same
on every stack:
- the `X-Reflect` header: `<method> <version> <body_length> <body_sha256> <target_sha256>`, each of
  method and version percent-encoded outside `!`..`~` (`-` when empty), on HEAD answers too;
- the JSON body: interface, method, target, version, headers (as the interface gives them), body
  length and SHA-256, and `target_from`: what of the interface the target came from (a WSGI environ
  key, ASGI's raw_path or path, tornado's request.uri...), so a server that passes no raw target shows.
Strings the interface gives as str are taken as latin-1, as WSGI and ASGI define them.
"""
from __future__ import annotations

import hashlib
import json
from typing import Iterable
from urllib.parse import quote

HEADER = "X-Reflect"
PATH = "/reflect"
# Where an interface gives only a decoded path: a segment's characters (RFC 3986 pchar) and "/" are
# quoted back as they were sent, the rest as %XX.
_PATH_SAFE = "/:@!$&'()*+,;="


def is_reflect(path: str | bytes) -> bool:
    """Whether a request path (without its query) is the reflection route."""
    path = path.decode("latin-1") if isinstance(path, bytes) else path
    return path == PATH or path.startswith(PATH + "/")


def _bytes(value: str | bytes | None) -> bytes:
    if value is None:
        return b""
    return value if isinstance(value, bytes) else value.encode("latin-1", errors="replace")


def _text(value: str | bytes | None) -> str:
    if value is None:
        return ""
    return value.decode("latin-1") if isinstance(value, bytes) else value


def field(value: str | bytes | None) -> str:
    """A header field of X-Reflect: each byte outside `!`..`~` as %XX, `-` for an empty one."""
    raw = _bytes(value)
    return "".join(chr(b) if 0x21 <= b <= 0x7E else f"%{b:02X}" for b in raw) or "-"


def quoted(path: bytes) -> str:
    """A decoded path percent-encoded back (for an interface that gives no raw target)."""
    return quote(path, safe=_PATH_SAFE)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def answer(interface: str, method: str | bytes, target: str | bytes, version: str | bytes | None,
           headers: Iterable[tuple[str | bytes, str | bytes]], body: bytes, target_from: str) -> tuple[str, bytes]:
    """The X-Reflect header value and the JSON body of a reflection."""
    digest = sha256(body)
    header = f"{field(method)} {field(version)} {len(body)} {digest} {sha256(_bytes(target))}"
    document = {"interface": interface, "method": _text(method), "target": _text(target),
                "version": _text(version), "headers": [[_text(name), _text(value)] for name, value in headers],
                "body_length": len(body), "body_sha256": digest, "target_from": target_from}
    return header, json.dumps(document, separators=(",", ":")).encode()
