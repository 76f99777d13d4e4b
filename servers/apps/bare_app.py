"""The bare WSGI app: a plain PEP 3333 callable, no framework, for the server-alone rows.

It answers the hello part of the route contract (`/`, `/json`, 404, 405 with Allow) exactly as
PEP 3333's own example writes an application: look at environ, call start_response with a status
line and a header list, return a list of bytes. JSON is json.dumps (compact) inside each request,
as the framework apps serialize theirs. What a framework costs on a server is then the
difference between its entry and the bare one on the same server, in the same run.

It is also the WSGI servers' parser owner: `/reflect` (any method) answers with what the server
handed it (servers/apps/reflection.py). The body is read as PEP 3333 lets an app read it: wsgi.input
up to CONTENT_LENGTH, or to its end where the server frames the body itself (wsgi.input_terminated,
or a chunked request); the target is REQUEST_URI or RAW_URI where the server gives one, else
PATH_INFO quoted back with QUERY_STRING. A read that raises propagates: the server's answer to it is
what is observed.
"""
from __future__ import annotations

import json
from typing import Callable, Iterable

from servers.apps import contract, reflection
from servers.core.options import Options

_ALLOW = ", ".join(contract.ALLOWED_METHODS)
# The raw target, under the names servers give it (not PEP 3333's: uWSGI's and mod_wsgi's, gunicorn's).
_RAW_TARGET_KEYS = ("REQUEST_URI", "RAW_URI")


def application(environ: dict, start_response: Callable) -> Iterable[bytes]:
    path, method = environ.get("PATH_INFO", ""), environ["REQUEST_METHOD"]
    if reflection.is_reflect(path):
        return reflect(environ, start_response)
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


def reflect(environ: dict, start_response: Callable) -> Iterable[bytes]:
    """The reflection route: what the server handed the app, as servers/apps/reflection.py renders it."""
    target, target_from = _target(environ)
    headers = [(key, value) for key, value in environ.items()
               if key.startswith("HTTP_") or key in ("CONTENT_TYPE", "CONTENT_LENGTH")]
    x_reflect, body = reflection.answer("wsgi", environ["REQUEST_METHOD"], target, environ.get("SERVER_PROTOCOL"),
                                        headers, _read_body(environ), target_from=target_from)
    start_response("200 OK", [("Content-Type", contract.JSON), ("Content-Length", str(len(body))),
                              (reflection.HEADER, x_reflect)])
    return [] if environ["REQUEST_METHOD"] == "HEAD" else [body]


def _read_body(environ: dict) -> bytes:
    stream = environ["wsgi.input"]
    if environ.get("wsgi.input_terminated") or "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower():
        return stream.read()
    length = environ.get("CONTENT_LENGTH")
    return stream.read(int(length)) if length else b""


def _target(environ: dict) -> tuple[str, str]:
    """The request target as the server gave it, and the environ key(s) it came from."""
    for key in _RAW_TARGET_KEYS:
        if environ.get(key):
            return environ[key], key
    target = reflection.quoted(environ.get("PATH_INFO", "").encode("latin-1"))
    if environ.get("QUERY_STRING"):
        return f"{target}?{environ['QUERY_STRING']}", "PATH_INFO+QUERY_STRING"
    return target, "PATH_INFO"


def create_app(options: Options) -> Callable:
    """The same callable for any options: it touches no backend."""
    return application
