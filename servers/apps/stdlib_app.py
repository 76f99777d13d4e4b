"""The stdlib app: a BaseHTTPRequestHandler subclass answering the route contract.

The handler class is the app; the server adapter picks HTTPServer or ThreadingHTTPServer and
the protocol version. Requests block their thread (the only one, on plain HTTPServer).
"""
from __future__ import annotations

import logging
import re
from http.server import BaseHTTPRequestHandler
from urllib.parse import unquote, urlsplit

from servers.apps import contract
from servers.apps.operations import SyncOperations
from servers.options import Options

log = logging.getLogger(__name__)

_MONGO = re.compile(r"/mongo/(pooled|per-request)/([^/]+)")
_OTHER_METHODS = ("POST", "PUT", "DELETE", "PATCH", "OPTIONS")


def create_handler(options: Options) -> type[BaseHTTPRequestHandler]:
    ops = SyncOperations(options)
    mongo = {"pooled": ops.mongo_pooled, "per-request": ops.mongo_per_request}
    redis = {"/redis/pooled": ops.redis_pooled, "/redis/per-request": ops.redis_per_request}
    fixed = {"/": contract.HELLO, "/json": contract.HELLO_JSON}

    def route(path: str):
        if path in fixed:
            return lambda: fixed[path]
        if path in redis:
            return redis[path]
        match = _MONGO.fullmatch(path)
        if match:
            return lambda: mongo[match[1]](match[2])
        return None

    class ContractHandler(BaseHTTPRequestHandler):
        # Headers and body go out in two writes: without NODELAY, Nagle and the client's
        # delayed ACK hold every keep-alive response ~40 ms.
        disable_nagle_algorithm = True

        def do_GET(self) -> None:
            operation = route(unquote(urlsplit(self.path).path, errors="replace"))
            if operation is None:
                return self.send(contract.NOT_FOUND)
            try:
                reply = operation()
            except Exception:
                log.exception("unhandled error")  # never to the client
                reply = contract.INTERNAL_ERROR
            self.send(reply)

        def do_HEAD(self) -> None:
            self._head_only = True
            self.do_GET()

        def not_allowed(self) -> None:
            self.close_connection = True  # the request body, if any, is left unread
            if route(unquote(urlsplit(self.path).path, errors="replace")) is None:
                return self.send(contract.NOT_FOUND)
            self.send(contract.METHOD_NOT_ALLOWED, allow="GET, HEAD")

        def send(self, reply: contract.Reply, allow: str | None = None) -> None:
            self.send_response(reply.status)
            self.send_header("Content-Type", reply.content_type)
            self.send_header("Content-Length", str(len(reply.body)))
            if allow:
                self.send_header("Allow", allow)
            if self.request_version == "HTTP/1.0" and not self.close_connection:
                # An HTTP/1.0 client asked for keep-alive (ab -k): say it is granted, or it waits.
                self.send_header("Connection", "keep-alive")
            self.end_headers()
            if not getattr(self, "_head_only", False):
                self.wfile.write(reply.body)
            self._head_only = False

        def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
            # The stdlib's own errors (bad request line, too long, unsupported method): JSON, no HTML.
            self.close_connection = True
            try:
                self.send_response(code, message)
                body = contract.error(code).body
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
