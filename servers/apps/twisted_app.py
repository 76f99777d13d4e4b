"""The twisted.web app: the route contract as a tree of Resources, as twisted.web's docs write it.

Static children are put with putChild, the {id} segment comes from getChild, and each leaf
answers in render_GET (twisted answers HEAD with render_GET too). twisted.web has no JSON
helper, so bodies are json.dumps (compact) inside each request. The Mongo and Redis routes run
coroutines of the asyncio drivers, so the adapter installs twisted's asyncio reactor; such a
request is answered from the Deferred that wraps the coroutine (NOT_DONE_YET), and its errback
maps BackendUnavailable to 503. Unknown paths and wrong methods answer JSON 404 and 405 (with
the Allow header twisted computes from the render_ methods).

As twisted.web's parser owner, the leaf /reflect answers any method (in render(), which dispatches
every method) with what twisted handed the Resource (servers/apps/reflection.py): request.method,
request.uri (the raw target), request.clientproto, the header fields as
requestHeaders.getAllRawHeaders() gives them, and request.content, the body twisted has read whole
before rendering.
"""
from __future__ import annotations

import asyncio
import json
import logging

from twisted.internet import defer
from twisted.python.failure import Failure
from twisted.web import resource, server
from twisted.web.error import UnsupportedMethod
from twisted.web.http import Request

from backends.errors import BackendUnavailable
from backends.ids import parse_user_id
from servers.apps import contract, reflection
from servers.apps.operations import AsyncOperations
from servers.core.options import Options

log = logging.getLogger(__name__)


def _json(request: Request, value: dict, status: int = 200) -> bytes:
    return _json_body(request, json.dumps(value, separators=(",", ":")).encode(), status)


def _json_body(request: Request, body: bytes, status: int = 200) -> bytes:
    request.setResponseCode(status)
    request.setHeader(b"Content-Type", contract.JSON.encode())
    request.setHeader(b"Content-Length", b"%d" % len(body))  # not chunked when written later
    return body


def _error(request: Request, status: int) -> bytes:
    return _json(request, {"error": contract.error_message(status)}, status)


class ContractResource(resource.Resource):
    """A Resource whose unknown children and unsupported methods answer the contract's JSON.

    One without render_GET (a path prefix such as /mongo) is not found rather than 405.
    """

    def getChild(self, path: bytes, request: Request) -> resource.Resource:
        return NotFound()

    def render(self, request: Request) -> bytes | int:
        try:
            return super().render(request)
        except UnsupportedMethod as unsupported:
            if b"GET" not in unsupported.allowedMethods:  # a path prefix such as /mongo renders nothing
                return _error(request, 404)
            request.setHeader(b"Allow", b", ".join(unsupported.allowedMethods))
            return _error(request, 405)


class NotFound(resource.Resource):
    isLeaf = True

    def render(self, request: Request) -> bytes:
        return _error(request, 404)


class Hello(ContractResource):
    def render_GET(self, request: Request) -> bytes:
        request.setHeader(b"Content-Type", contract.TEXT.encode())
        return contract.HELLO.encode()


class HelloJSON(ContractResource):
    def render_GET(self, request: Request) -> bytes:
        return _json(request, {"message": contract.HELLO})


class Lookup(ContractResource):
    """A route answered by a coroutine: its value as JSON, 404 for None, 503 for an outage."""

    def __init__(self, lookup):
        super().__init__()
        self._lookup = lookup

    def render_GET(self, request: Request) -> int:
        finished = request.notifyFinish()  # fires (with a failure) if the client goes away first
        gone = []
        finished.addErrback(lambda _: gone.append(True))

        def reply(value: dict | None) -> None:
            body = _error(request, 404) if value is None else _json(request, value)
            if not gone:
                request.write(body)
                request.finish()

        def failed(failure: Failure) -> None:
            if failure.check(BackendUnavailable):
                body = _error(request, 503)
            else:
                log.error("unhandled error: %s", failure.getTraceback())  # never to the client
                body = _error(request, 500)
            if not gone:
                request.write(body)
                request.finish()

        coroutine = self._lookup()
        defer.Deferred.fromFuture(asyncio.ensure_future(coroutine)).addCallbacks(reply, failed)
        return server.NOT_DONE_YET


class Reflect(resource.Resource):
    """/reflect and everything under it, any method."""

    isLeaf = True

    def render(self, request: Request) -> bytes:
        headers = [(name, value) for name, values in request.requestHeaders.getAllRawHeaders() for value in values]
        x_reflect, body = reflection.answer("twisted", request.method, request.uri, request.clientproto, headers,
                                            request.content.read(), "uri")
        request.setHeader(reflection.HEADER.encode(), x_reflect.encode())
        return _json_body(request, body)  # twisted sends no body to a HEAD


class Users(ContractResource):
    """/mongo/<how>/: its child is the {id} segment."""

    def __init__(self, find_user):
        super().__init__()
        self._find_user = find_user

    def getChild(self, path: bytes, request: Request) -> resource.Resource:
        user_id = parse_user_id(path.decode("utf-8", errors="replace"))
        if user_id is None:
            return NotFound()
        return Lookup(lambda: self._find_user(user_id))


def create_resource(options: Options) -> resource.Resource:
    ops = AsyncOperations(options)
    mongo, redis = ContractResource(), ContractResource()
    mongo.putChild(b"pooled", Users(ops.mongo_pooled))
    mongo.putChild(b"per-request", Users(ops.mongo_per_request))
    redis.putChild(b"pooled", Lookup(ops.redis_pooled))
    redis.putChild(b"per-request", Lookup(ops.redis_per_request))
    root = ContractResource()
    root.putChild(b"", Hello())
    root.putChild(b"json", HelloJSON())
    root.putChild(b"mongo", mongo)
    root.putChild(b"redis", redis)
    root.putChild(b"reflect", Reflect())
    return root
