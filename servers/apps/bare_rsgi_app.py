"""The bare RSGI app: granian's RSGI interface with no framework, for the server-alone row.

Written as granian's RSGI specification writes an application: `async def app(scope, protocol)`,
answering with one call of the protocol (`response_bytes(status, headers, body)`, headers a list of
str pairs). It answers the hello part of the route contract (`/`, `/json`, 404, 405 with Allow; JSON
is json.dumps, compact, inside each request), and, as granian-rsgi's parser owner, `/reflect` (any
method) with what granian handed it (servers/apps/reflection.py): the body is `await protocol()`
(the whole body, as the specification receives it), the target `path` and `?query_string` (RSGI
gives no raw target), the headers the scope's mapping as it iterates. HEAD is answered as GET; the
server sends no body to a HEAD.
"""
from __future__ import annotations

import json
from typing import Any

from servers.apps import contract, reflection
from servers.core.options import Options

_ALLOW = ", ".join(contract.ALLOWED_METHODS)


def _json(value: dict) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


async def app(scope: Any, protocol: Any) -> None:
    path, method = scope.path, scope.method
    if reflection.is_reflect(path):
        return await reflect(scope, protocol)
    headers = []
    if path == "/":
        status, content_type, body = 200, contract.TEXT, contract.HELLO.encode()
    elif path == "/json":
        status, content_type, body = 200, contract.JSON, _json({"message": contract.HELLO})
    else:
        status, content_type, body = 404, contract.JSON, _json({"error": contract.NOT_FOUND})
    if status == 200 and method not in contract.ALLOWED_METHODS:
        status, content_type = 405, contract.JSON
        body = _json({"error": contract.METHOD_NOT_ALLOWED})
        headers.append(("allow", _ALLOW))
    protocol.response_bytes(status=status, headers=[("content-type", content_type), *headers], body=body)


async def reflect(scope: Any, protocol: Any) -> None:
    """The reflection route: the whole body as the protocol hands it over."""
    body = await protocol()
    target, target_from = reflection.quoted(scope.path.encode("utf-8")), "path"
    if scope.query_string:
        target, target_from = f"{target}?{scope.query_string}", "path+query_string"
    x_reflect, answer = reflection.answer("rsgi", scope.method, target, scope.http_version,
                                          scope.headers.items(), body, target_from)
    protocol.response_bytes(status=200, headers=[("content-type", contract.JSON), (reflection.HEADER, x_reflect)],
                            body=answer)


def create_app(options: Options) -> Any:
    """The same callable for any options: it touches no backend."""
    return app
