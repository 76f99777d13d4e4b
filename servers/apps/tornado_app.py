"""The tornado app: the route contract as RequestHandlers, backends through async drivers.

Served by tornado's own HTTPServer (servers.adapters.tornado_server); create_app runs in the
worker after any fork so the async clients belong to that worker's event loop.
"""
from __future__ import annotations

import logging

import tornado.web

from servers.apps import contract
from servers.apps.operations import AsyncOperations
from servers.options import Options

log = logging.getLogger(__name__)


class _Base(tornado.web.RequestHandler):
    def send(self, reply: contract.Reply) -> None:
        self.set_status(reply.status)
        self.set_header("Content-Type", reply.content_type)
        self.finish(reply.body)

    def write_error(self, status_code: int, **kwargs) -> None:
        if status_code >= 500 and "exc_info" in kwargs:
            log.error("unhandled error", exc_info=kwargs["exc_info"])  # never to the client
        if status_code == 405:  # tornado's own 405 names no method; the handlers define get() only
            self.set_header("Allow", "GET")
        self.send(contract.error(status_code) if status_code != 500 else contract.INTERNAL_ERROR)


class _Fixed(_Base):
    def initialize(self, reply: contract.Reply) -> None:
        self.reply = reply

    def get(self) -> None:
        self.send(self.reply)


class _Call(_Base):
    def initialize(self, operation) -> None:
        self.operation = operation

    async def get(self, *params: str) -> None:
        self.send(await self.operation(*params))


class _NotFound(_Base):
    def prepare(self) -> None:
        raise tornado.web.HTTPError(404)


def create_app(options: Options) -> tornado.web.Application:
    ops = AsyncOperations(options)
    return tornado.web.Application(
        [
            (r"/", _Fixed, {"reply": contract.HELLO}),
            (r"/json", _Fixed, {"reply": contract.HELLO_JSON}),
            (r"/mongo/pooled/([^/]+)", _Call, {"operation": ops.mongo_pooled}),
            (r"/mongo/per-request/([^/]+)", _Call, {"operation": ops.mongo_per_request}),
            (r"/redis/pooled", _Call, {"operation": ops.redis_pooled}),
            (r"/redis/per-request", _Call, {"operation": ops.redis_per_request}),
        ],
        default_handler_class=_NotFound,
        compress_response=False,
    )
