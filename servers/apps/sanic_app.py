"""The Sanic app: the route contract as async handlers, backends through async drivers.

Sanic sends neither Date nor Server, so a response middleware adds both (HTTP/1.1 asks origin
servers for Date). create_app runs in every worker (Sanic spawns them and rebuilds the app there).
"""
from __future__ import annotations

import logging

from sanic import Request, Sanic
from sanic.exceptions import SanicException
from sanic.response import HTTPResponse

from servers.apps import contract
from servers.http_date import http_date
from servers.apps.operations import AsyncOperations
from servers.options import Options

log = logging.getLogger(__name__)
APP_NAME = "refsuite"


def _response(reply: contract.Reply) -> HTTPResponse:
    return HTTPResponse(reply.body, status=reply.status, content_type=reply.content_type)


def create_app(options: Options, *, own_server: bool = True) -> Sanic:
    app = Sanic(APP_NAME, configure_logging=False)
    app.config.ACCESS_LOG = False
    app.config.GRACEFUL_SHUTDOWN_TIMEOUT = 3.0  # SIGTERM must stop within 5 s
    ops = AsyncOperations(options)

    @app.get("/")
    async def hello(request: Request) -> HTTPResponse:
        return _response(contract.HELLO)

    @app.get("/json")
    async def hello_json(request: Request) -> HTTPResponse:
        return _response(contract.HELLO_JSON)

    @app.get("/mongo/pooled/<raw_id:str>")
    async def mongo_pooled(request: Request, raw_id: str) -> HTTPResponse:
        return _response(await ops.mongo_pooled(raw_id))

    @app.get("/mongo/per-request/<raw_id:str>")
    async def mongo_per_request(request: Request, raw_id: str) -> HTTPResponse:
        return _response(await ops.mongo_per_request(raw_id))

    @app.get("/redis/pooled")
    async def redis_pooled(request: Request) -> HTTPResponse:
        return _response(await ops.redis_pooled())

    @app.get("/redis/per-request")
    async def redis_per_request(request: Request) -> HTTPResponse:
        return _response(await ops.redis_per_request())

    @app.exception(SanicException)
    async def http_error(request: Request, error: SanicException) -> HTTPResponse:
        response = _response(contract.error(error.status_code))
        response.headers.update(getattr(error, "headers", None) or {})
        return response

    @app.exception(Exception)
    async def internal_error(request: Request, error: Exception) -> HTTPResponse:
        log.exception("unhandled error")  # to stderr, never to the client
        return _response(contract.INTERNAL_ERROR)

    if own_server:
        @app.on_response
        async def date_and_server(request: Request, response: HTTPResponse) -> None:
            response.headers["Date"] = http_date()
            response.headers["Server"] = "sanic"

    return app


def create_asgi_app(options: Options) -> Sanic:
    """The same app for an ASGI server, which sends Date and Server itself (uvicorn would send
    them twice: it puts its own before the app's)."""
    return create_app(options, own_server=False)
