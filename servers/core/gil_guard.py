"""The GIL proven off: every request on a free-threaded entry checks sys._is_gil_enabled().

CPython 3.13t takes the GIL back, for the whole process and for good, when it loads an extension
module that does not declare Py_mod_gil, and says so in a RuntimeWarning that names the module.
watch() (called by servers.core.launch before any server or app is imported) keeps that warning;
guard() wraps the app of a free-threaded entry (servers.core.loading.build_app) so that each request
first asks whether the GIL is on. When it is, the request is answered 500 with the reason, and the
process says once on stderr, after MARKER, which module took it back: the benchmark voids a cell
whose server said it (bench reads it with reenabled()), and the contract tests fail on the 500.
On a build with the GIL (sys._is_gil_enabled absent or True from the start) nothing is wrapped.
"""
from __future__ import annotations

import json
import sys
import threading
import warnings
from typing import Any

MARKER = "refsuite: the GIL is enabled again, the free-threaded measurement is void:"
_reasons: list[str] = []
_said = threading.Event()


def gil_enabled() -> bool:
    return getattr(sys, "_is_gil_enabled", lambda: True)()


def watch() -> None:
    """Keep CPython's 'GIL has been enabled to load module X' warning (shown as before too)."""
    shown = warnings.showwarning

    def keep(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, RuntimeWarning) and "global interpreter lock" in str(message):
            _reasons.append(str(message))
        shown(message, category, filename, lineno, file, line)

    warnings.showwarning = keep


def reason() -> str:
    return _reasons[0] if _reasons else "the GIL is enabled (no module named: PYTHON_GIL=1, -Xgil=1 or a C call)"


def _say() -> str:
    text = reason()
    if not _said.is_set():
        _said.set()
        print(f"{MARKER} {text}", file=sys.stderr, flush=True)
    return text


def _body() -> bytes:
    return json.dumps({"error": f"GIL enabled: {_say()}"}, separators=(",", ":")).encode()


def reenabled(stderr: str) -> str | None:
    """What a free-threaded entry said on stderr when the GIL came back (None: it did not say)."""
    for line in stderr.splitlines():
        if line.startswith(MARKER):
            return line[len(MARKER):].strip()
    return None


def _wsgi(app: Any) -> Any:
    def guarded(environ, start_response):
        if gil_enabled():
            body = _body()
            start_response("500 Internal Server Error", [("Content-Type", "application/json"),
                                                         ("Content-Length", str(len(body)))])
            return [body]
        return app(environ, start_response)
    return guarded


def _asgi(app: Any) -> Any:
    async def guarded(scope, receive, send):
        if scope["type"] == "http" and gil_enabled():
            body = _body()
            await send({"type": "http.response.start", "status": 500,
                        "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})
            return
        await app(scope, receive, send)
    return guarded


def _handler(handler: type) -> type:
    """http.server's handler class is the app: the check comes once its request line is parsed."""
    class Guarded(handler):
        def parse_request(self):
            if not super().parse_request():
                return False
            if gil_enabled():
                body = _body()
                self.send_response(500)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return False
            return True
    return Guarded


def guard(app: Any, interface: str) -> Any:
    """The app, checking the GIL on every request (WSGI, ASGI or http.server's handler class)."""
    if gil_enabled():
        _say()  # an import took it back already: say so at start, the requests will say it again
    if interface == "wsgi":
        return _wsgi(app)
    if interface == "asgi":
        return _asgi(app)
    if interface == "stdlib":
        return _handler(app)
    raise ValueError(f"no GIL guard for the {interface!r} interface")
