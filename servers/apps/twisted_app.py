"""The twisted.web app: one leaf Resource that routes the contract, async drivers on asyncio.

The Mongo and Redis routes run coroutines of the asyncio drivers, so the adapter installs
twisted's asyncio reactor; a request is answered from the Deferred that wraps the coroutine.
"""
from __future__ import annotations

import asyncio
import logging
import re
from urllib.parse import unquote

from twisted.internet import defer
from twisted.web import resource, server
from twisted.web.http import Request

from servers.apps import contract
from servers.apps.operations import AsyncOperations
from servers.options import Options

log = logging.getLogger(__name__)

_MONGO = re.compile(r"/mongo/(pooled|per-request)/([^/]+)")


class ContractResource(resource.Resource):
    isLeaf = True

    def __init__(self, options: Options):
        super().__init__()
        ops = AsyncOperations(options)
        self._mongo = {"pooled": ops.mongo_pooled, "per-request": ops.mongo_per_request}
        self._redis = {"/redis/pooled": ops.redis_pooled, "/redis/per-request": ops.redis_per_request}

    def render(self, request: Request):
        path = unquote(request.path.decode("latin-1"), errors="replace")
        operation = self._route(path)
        if operation is None:
            return _send(request, contract.NOT_FOUND)
        if request.method not in (b"GET", b"HEAD"):
            request.setHeader(b"Allow", b"GET, HEAD")
            return _send(request, contract.METHOD_NOT_ALLOWED)
        if isinstance(operation, contract.Reply):
            return _send(request, operation)
        return _answer_later(request, operation())

    def _route(self, path: str):
        if path == "/":
            return contract.HELLO
        if path == "/json":
            return contract.HELLO_JSON
        if path in self._redis:
            return self._redis[path]
        match = _MONGO.fullmatch(path)
        if match:
            lookup, raw_id = self._mongo[match[1]], match[2]
            return lambda: lookup(raw_id)
        return None


def _send(request: Request, reply: contract.Reply) -> bytes:
    request.setResponseCode(reply.status)
    request.setHeader(b"Content-Type", reply.content_type.encode())
    request.setHeader(b"Content-Length", str(len(reply.body)).encode())
    return reply.body


def _answer_later(request: Request, coroutine) -> int:
    finished = request.notifyFinish()  # fires (with a failure) if the client goes away first
    gone = []
    finished.addErrback(lambda _: gone.append(True))

    def reply(answer: contract.Reply) -> None:
        if not gone:
            request.write(_send(request, answer))
            request.finish()

    def failed(failure) -> None:
        log.error("unhandled error: %s", failure.getTraceback())  # never to the client
        reply(contract.INTERNAL_ERROR)

    defer.Deferred.fromFuture(asyncio.ensure_future(coroutine)).addCallbacks(reply, failed)
    return server.NOT_DONE_YET


def create_resource(options: Options) -> resource.Resource:
    return ContractResource(options)
