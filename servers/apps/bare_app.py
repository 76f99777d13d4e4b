"""The bare WSGI app: a plain PEP 3333 callable, no framework, for the server-alone rows.

It answers the hello part of the route contract (`/`, `/json`, 404, 405 with Allow) exactly as
PEP 3333's own example writes an application: look at environ, call start_response with a status
line and a header list, return a list of bytes. JSON is json.dumps (compact) inside each request,
as the framework apps serialize theirs. What a framework costs on a server is then the
difference between its entry and the bare one on the same server, in the same run.
"""
from __future__ import annotations

import json
from typing import Callable, Iterable

from servers.apps import contract
from servers.core.options import Options

_ALLOW = ", ".join(contract.ALLOWED_METHODS)


def application(environ: dict, start_response: Callable) -> Iterable[bytes]:
    path, method = environ.get("PATH_INFO", ""), environ["REQUEST_METHOD"]
    if path == "/":
        status, content_type, body = "200 OK", contract.TEXT, contract.HELLO.encode()
    elif path == "/json":
        status, content_type = "200 OK", contract.JSON
        body = json.dumps({"message": contract.HELLO}, separators=(",", ":")).encode()
    else:
        status, content_type = "404 Not Found", contract.JSON
        body = json.dumps({"error": contract.NOT_FOUND}, separators=(",", ":")).encode()
    headers = [("Content-Type", content_type), ("Content-Length", str(len(body)))]
    if status.startswith("200") and method not in contract.ALLOWED_METHODS:
        status = "405 Method Not Allowed"
        body = json.dumps({"error": contract.METHOD_NOT_ALLOWED}, separators=(",", ":")).encode()
        headers = [("Content-Type", contract.JSON), ("Content-Length", str(len(body))), ("Allow", _ALLOW)]
    start_response(status, headers)
    return [] if method == "HEAD" else [body]


def create_app(options: Options) -> Callable:
    """The same callable for any options: it touches no backend."""
    return application
