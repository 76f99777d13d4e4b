"""The stdlib app: a BaseHTTPRequestHandler subclass answering the route contract.

Written as http.server's docs write handlers: do_GET routes self.path, then send_response,
send_header, end_headers and self.wfile.write. The stdlib has no JSON helper for responses, so
bodies are json.dumps (compact) inside each request. The handler class is the app; the server
adapter picks HTTPServer or ThreadingHTTPServer and the protocol version. Requests block their
thread (the only one, on plain HTTPServer).

/fortunes renders the standard library's template, string.Template (TechEmpower's rules require a template):
FORTUNES_ROW for each row, FORTUNES_PAGE around them. string.Template has no loop and does not escape, so the
rows are substituted one by one and joined, each message escaped first with html.escape (`&<>"'`).

As http.server's parser owner it answers `/reflect` (every method it has a do_ method for; http.server
answers the others 501 itself) with what http.server handed the handler (servers/apps/reflection.py):
self.command, self.path (the target as http.server keeps it), self.request_version, self.headers in
their order, and the body read as the docs read one, self.rfile.read(Content-Length). http.server does
not decode a chunked body (no API for it), so the handler reads none and closes the connection.
"""
from __future__ import annotations

import html
import json
import logging
import re
from operator import itemgetter
from http.server import BaseHTTPRequestHandler
from string import Template
from urllib.parse import unquote, urlsplit

from backends.errors import BackendUnavailable
from backends.ids import parse_user_id
from servers.apps import contract, reflection
from servers.apps.operations import SyncOperations
from servers.core.options import Options

log = logging.getLogger(__name__)

_MONGO = re.compile(r"/mongo/(pooled|per-request)/([^/]+)")
_OTHER_METHODS = ("POST", "PUT", "DELETE", "PATCH", "OPTIONS")
_ALLOW = "GET, HEAD"
FORTUNES_PAGE = Template("""<!DOCTYPE html>
<html>
<head><title>Fortunes</title></head>
<body>
<table>
<tr><th>id</th><th>message</th></tr>
$rows</table>
</body>
</html>
""")
FORTUNES_ROW = Template("<tr><td>$id</td><td>$message</td></tr>\n")


def fortunes_page(rows: list[dict]) -> bytes:
    """The fortunes page: the request's row added, sorted by message, rendered by FORTUNES_ROW and FORTUNES_PAGE,
    every message escaped."""
    rows.append({"id": 0, "message": contract.ADDITIONAL_FORTUNE})
    rows.sort(key=itemgetter("message"))
    table = "".join(FORTUNES_ROW.substitute(id=row["id"], message=html.escape(row["message"])) for row in rows)
    return FORTUNES_PAGE.substitute(rows=table).encode()


def create_handler(options: Options) -> type[BaseHTTPRequestHandler]:
    ops = SyncOperations(options)
    find_user = {"pooled": ops.mongo_pooled, "per-request": ops.mongo_per_request}
    get_name = {"/redis/pooled": ops.redis_pooled, "/redis/per-request": ops.redis_per_request}

    class ContractHandler(BaseHTTPRequestHandler):
        # Headers and body go out in two writes: without NODELAY, Nagle and the client's
        # delayed ACK hold every keep-alive response ~40 ms.
        disable_nagle_algorithm = True

        def do_GET(self) -> None:
            if reflection.is_reflect(urlsplit(self.path).path):
                return self.reflect()
            if self.headers.get("Content-Length", "0") != "0" or "Transfer-Encoding" in self.headers:
                # http.server leaves a request body to the handler, which has no use for a GET's:
                # left unread, it would be taken for the next request on a kept-alive connection.
                self.close_connection = True
            path = unquote(urlsplit(self.path).path, errors="replace")
            if path == "/":
                return self.send(200, contract.HELLO.encode(), contract.TEXT)
            if path == "/json":
                return self.send_json(200, {"message": contract.HELLO})
            if path in get_name:
                return self.answer(get_name[path])
            if path == "/fortunes":
                return self.answer_fortunes()
            match = _MONGO.fullmatch(path)
            if match:
                user_id = parse_user_id(match[2])
                if user_id is not None:
                    return self.answer(lambda: find_user[match[1]](user_id))
            self.send_error_json(404)

        def do_HEAD(self) -> None:
            self._head_only = True
            self.do_GET()

        def answer(self, lookup) -> None:
            """A backend route: its value as JSON, 404 for None, 503 for an outage, 500 otherwise."""
            try:
                value = lookup()
            except BackendUnavailable:
                return self.send_error_json(503)
            except Exception:
                log.exception("unhandled error")  # never to the client
                return self.send_error_json(500)
            if value is None:
                return self.send_error_json(404)
            self.send_json(200, value)

        def reflect(self) -> None:
            if "Transfer-Encoding" in self.headers:
                self.close_connection = True  # a body left unread would be taken for the next request
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            x_reflect, answer = reflection.answer("stdlib", self.command, self.path, self.request_version,
                                                  self.headers.items(), body, "path")
            self.send(200, answer, contract.JSON, extra=((reflection.HEADER, x_reflect),))

        def answer_fortunes(self) -> None:
            try:
                page = fortunes_page(ops.fortunes())
            except BackendUnavailable:
                return self.send_error_json(503)
            except Exception:
                log.exception("unhandled error")
                return self.send_error_json(500)
            self.send(200, page, contract.HTML)

        def not_allowed(self) -> None:
            if reflection.is_reflect(urlsplit(self.path).path):
                return self.reflect()
            self.close_connection = True  # the request body, if any, is left unread
            path = unquote(urlsplit(self.path).path, errors="replace")
            if path in ("/", "/json", "/fortunes") or path in get_name or _MONGO.fullmatch(path):
                return self.send_error_json(405, allow=_ALLOW)
            self.send_error_json(404)

        def send_json(self, status: int, value: dict, allow: str | None = None) -> None:
            self.send(status, json.dumps(value, separators=(",", ":")).encode(), contract.JSON, allow)

        def send_error_json(self, status: int, allow: str | None = None) -> None:
            self.send_json(status, {"error": contract.error_message(status)}, allow)

        def send(self, status: int, body: bytes, content_type: str, allow: str | None = None,
                 extra: tuple[tuple[str, str], ...] = ()) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            if allow:
                self.send_header("Allow", allow)
            for name, value in extra:
                self.send_header(name, value)
            if self.request_version == "HTTP/1.0" and not self.close_connection:
                # An HTTP/1.0 client asked for keep-alive (ab -k): say it is granted, or it waits.
                self.send_header("Connection", "keep-alive")
            self.end_headers()
            if not getattr(self, "_head_only", False):
                self.wfile.write(body)
            self._head_only = False

        def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
            # The stdlib's own errors (bad request line, too long, unsupported method): JSON, no HTML.
            self.close_connection = True
            try:
                self.send_response(code, message)
                body = json.dumps({"error": contract.error_message(code)}, separators=(",", ":")).encode()
                self.send_header("Content-Type", contract.JSON)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Connection", "close")
                self.end_headers()
                if self.command != "HEAD" and code >= 200 and code not in (204, 304):
                    self.wfile.write(body)
            except OSError:
                pass  # the client is gone

        def log_message(self, format: str, *args) -> None:
            pass  # no per-request access log

    for method in _OTHER_METHODS:
        setattr(ContractHandler, f"do_{method}", ContractHandler.not_allowed)
    return ContractHandler
