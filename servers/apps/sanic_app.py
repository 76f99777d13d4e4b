"""The Sanic app: the route contract as async handlers, written as Sanic's docs write them.

Handlers return sanic.response.text / sanic.response.json; json() serializes inside each request
with Sanic's default dumps (ujson when installed, else json.dumps with compact separators: both
compact, no trailing newline). Errors go through @app.exception handlers; backends through async
drivers. create_app runs in every worker (Sanic spawns them and rebuilds the app there).

Sanic sends neither Date nor Server, and the contract (HTTP/1.1 for Date) wants both. The
cheapest place Sanic offers is one response middleware: with none, Sanic skips its middleware
step; this one costs an await and two header sets per request, the Date string being formatted
once per second (servers.core.http_date). Under an ASGI server (create_asgi_app: Sanic's app is an
ASGI app too) the server sends both, so that app has no such middleware.

As Sanic's parser owner (its own server's), the app answers `/reflect` and `/reflect/<rest:path>` (every
method Sanic routes) with what Sanic handed the handler (servers/apps/reflection.py): request.method,
request.raw_url (the raw target), request.version, request.headers as Sanic gives them (names lower-cased)
and request.body, which Sanic has read whole before a non-streaming handler runs.

/fortunes renders templates/fortunes.html with sanic-ext's render() (Sanic's templating: Jinja2 with
select_autoescape, text/html; charset=utf-8). Sanic would extend an app with every built-in extension
of sanic-ext once installed (AUTO_EXTEND): OpenAPI's /docs routes, CORS headers, automatic OPTIONS,
dependency injection run as a signal on every request. The app extends itself with the templating
extension alone (app.extend), so the other routes stay what they were.

The WebSocket routes are @app.websocket handlers as Sanic's docs write them, in the `msg = await ws.recv()` form:
their other form, `async for msg in ws`, fails on an ASGI server (TypeError: the ASGI WebSocketConnection has no
__aiter__); a message comes as str or bytes and goes back so; /ws/broadcast keeps the worker's sockets in a set.
On Sanic's own server the framing is Sanic's (the websockets library's protocol, WEBSOCKET_MAX_SIZE set to the
contract's 16 MiB over Sanic's 1 MiB); on an ASGI server it is the server's and that setting is not read.
"""
from __future__ import annotations

import logging
from operator import itemgetter
from pathlib import Path

from sanic import Request, Sanic
from sanic.constants import HTTP_METHODS
from sanic.exceptions import NotFound, SanicException
from sanic.response import HTTPResponse, json, raw, text
from sanic.server.websockets.impl import WebsocketImplProtocol
from sanic_ext import render
from sanic_ext.extensions.templating.extension import TemplatingExtension

from backends.errors import BackendUnavailable
from backends.ids import parse_user_id
from servers.adapters.shutdown import GRACE_SECONDS
from servers.apps import contract, reflection
from servers.apps.operations import AsyncOperations
from servers.core.http_date import http_date
from servers.core.options import Options
from servers.core.specs import WS_MAX_MESSAGE

log = logging.getLogger(__name__)
APP_NAME = "refsuite"
TEMPLATES = Path(__file__).with_name("templates")


def _found(value: dict | None) -> dict:
    if value is None:
        raise NotFound()
    return value


def _user_id(raw_id: str) -> int:
    user_id = parse_user_id(raw_id)
    if user_id is None:
        raise NotFound()
    return user_id


def create_app(options: Options, *, own_server: bool = True) -> Sanic:
    app = Sanic(APP_NAME, configure_logging=False)
    app.config.ACCESS_LOG = False
    app.config.GRACEFUL_SHUTDOWN_TIMEOUT = GRACE_SECONDS  # SIGTERM must stop within 5 s
    app.config.WEBSOCKET_MAX_SIZE = WS_MAX_MESSAGE  # the contract's largest message (Sanic's default: 1 MiB)
    app.extend(extensions=[TemplatingExtension], built_in_extensions=False,
               config={"templating_path_to_templates": str(TEMPLATES)})
    ops = AsyncOperations(options)

    @app.get("/")
    async def hello(request: Request) -> HTTPResponse:
        return text(contract.HELLO)

    @app.get("/json")
    async def hello_json(request: Request) -> HTTPResponse:
        return json({"message": contract.HELLO})

    @app.get("/mongo/pooled/<raw_id:str>")
    async def mongo_pooled(request: Request, raw_id: str) -> HTTPResponse:
        return json(_found(await ops.mongo_pooled(_user_id(raw_id))))

    @app.get("/mongo/per-request/<raw_id:str>")
    async def mongo_per_request(request: Request, raw_id: str) -> HTTPResponse:
        return json(_found(await ops.mongo_per_request(_user_id(raw_id))))

    @app.get("/fortunes")
    async def fortunes(request: Request) -> HTTPResponse:
        rows = await ops.fortunes()
        rows.append({"id": 0, "message": contract.ADDITIONAL_FORTUNE})
        rows.sort(key=itemgetter("message"))
        return await render("fortunes.html", context={"fortunes": rows}, app=app)

    @app.get("/redis/pooled")
    async def redis_pooled(request: Request) -> HTTPResponse:
        return json(_found(await ops.redis_pooled()))

    @app.get("/redis/per-request")
    async def redis_per_request(request: Request) -> HTTPResponse:
        return json(_found(await ops.redis_per_request()))

    @app.websocket(contract.WS_ECHO)
    async def ws_echo(request: Request, ws: WebsocketImplProtocol) -> None:
        while (message := await ws.recv()) is not None:  # None: the ASGI peer has gone (own server: it raises)
            await ws.send(message)

    broadcast_sockets: set[WebsocketImplProtocol] = set()  # the worker's /ws/broadcast sockets

    @app.websocket(contract.WS_BROADCAST)
    async def ws_broadcast(request: Request, ws: WebsocketImplProtocol) -> None:
        broadcast_sockets.add(ws)
        try:
            while (message := await ws.recv()) is not None:
                for peer in list(broadcast_sockets):
                    try:
                        await peer.send(message)
                    except Exception:  # gone meanwhile (websockets' ConnectionClosed, or the ASGI server's error)
                        broadcast_sockets.discard(peer)
        finally:
            broadcast_sockets.discard(ws)

    @app.route("/reflect", methods=HTTP_METHODS)
    @app.route("/reflect/<rest:path>", methods=HTTP_METHODS, name="reflect_under")
    async def reflect(request: Request, rest: str = "") -> HTTPResponse:
        x_reflect, body = reflection.answer("sanic", request.method, request.raw_url, request.version,
                                            request.headers.items(), request.body, "raw_url")
        # Sanic sends no body to a HEAD
        return raw(body, content_type=contract.JSON, headers={reflection.HEADER: x_reflect})

    @app.exception(BackendUnavailable)
    async def backend_unavailable(request: Request, error: BackendUnavailable) -> HTTPResponse:
        return json({"error": contract.BACKEND_UNAVAILABLE}, status=503)

    @app.exception(SanicException)
    async def http_error(request: Request, error: SanicException) -> HTTPResponse:
        # Sanic's own 404 and 405 (with its Allow header) arrive here too.
        return json({"error": contract.error_message(error.status_code)}, status=error.status_code,
                    headers=getattr(error, "headers", None))

    @app.exception(Exception)
    async def internal_error(request: Request, error: Exception) -> HTTPResponse:
        log.exception("unhandled error")  # to stderr, never to the client
        return json({"error": contract.INTERNAL_ERROR}, status=500)

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
