"""The Litestar app: the route contract as Litestar's docs write an app, an ASGI app served by any ASGI server.

Route handlers are `async def` functions under @get with typed path parameters (the id taken as a
str and checked by the shared id rule: Litestar's int parameter would take "+1" and "-1"); they
return a str (media_type text) or a dict, which Litestar's Response.render serializes per request
with msgspec (compact JSON: the contract's bytes as they come). Errors go through the app's
exception_handlers: Litestar's router raises NotFoundException for an unknown path and
MethodNotAllowedException (with its Allow header) for a known path's other methods, a handler
raises NotFoundException for a missing user or key, BackendUnavailable answers 503 and anything
else 500 (logged, never sent). The pooled clients are made lazily inside the worker's event loop.
/fortunes returns a Template response of templates/fortunes.html, rendered by the app's
TemplateConfig with Litestar's JinjaTemplateEngine (Jinja2, autoescape=True; text/html from the
template's suffix, with Litestar's charset=utf-8).
The WebSocket routes are @websocket route handlers as its WebSockets docs write the low-level form: accept, then
each event from socket.receive() sent back with send_data in the mode it came (text or binary), until
WebSocketDisconnect; /ws/broadcast keeps the worker's sockets in a set.
"""
from __future__ import annotations

from operator import itemgetter
from pathlib import Path

from litestar import Litestar, MediaType, Request, Response, WebSocket, get, websocket
from litestar.exceptions import HTTPException, NotFoundException, WebSocketDisconnect
from litestar.plugins.jinja import JinjaTemplateEngine
from litestar.response import Template
from litestar.template.config import TemplateConfig

from backends.errors import BackendUnavailable
from backends.ids import parse_user_id
from servers.apps import contract
from servers.apps.operations import AsyncOperations
from servers.core.options import Options


def _found(value: dict | None) -> dict:
    if value is None:
        raise NotFoundException()
    return value


def _user_id(raw_id: str) -> int:
    user_id = parse_user_id(raw_id)
    if user_id is None:
        raise NotFoundException()
    return user_id


def http_error(request: Request, exc: HTTPException) -> Response:
    return Response({"error": contract.error_message(exc.status_code)}, status_code=exc.status_code,
                    headers=exc.headers, media_type=MediaType.JSON)


def backend_unavailable(request: Request, exc: BackendUnavailable) -> Response:
    return Response({"error": contract.BACKEND_UNAVAILABLE}, status_code=503, media_type=MediaType.JSON)


def internal_error(request: Request, exc: Exception) -> Response:
    request.logger.exception("unhandled error")  # to stderr, never to the client
    return Response({"error": contract.INTERNAL_ERROR}, status_code=500, media_type=MediaType.JSON)


async def _echo_to(sockets, event: dict) -> None:
    """One received event sent back, in the mode it came, to each socket; a socket gone meanwhile is dropped."""
    text = event.get("text")
    for socket in list(sockets):
        try:
            await socket.send_data(text if text is not None else event.get("bytes") or b"",
                                   mode="text" if text is not None else "binary")
        except (WebSocketDisconnect, RuntimeError, OSError):
            sockets.discard(socket)


def create_app(options: Options) -> Litestar:
    ops = AsyncOperations(options)

    @get("/", media_type=MediaType.TEXT)
    async def hello() -> str:
        return contract.HELLO

    @get("/json")
    async def hello_json() -> dict:
        return {"message": contract.HELLO}

    @get("/mongo/pooled/{raw_id:str}")
    async def mongo_pooled(raw_id: str) -> dict:
        return _found(await ops.mongo_pooled(_user_id(raw_id)))

    @get("/mongo/per-request/{raw_id:str}")
    async def mongo_per_request(raw_id: str) -> dict:
        return _found(await ops.mongo_per_request(_user_id(raw_id)))

    @get("/fortunes")
    async def fortunes() -> Template:
        rows = await ops.fortunes()
        rows.append({"id": 0, "message": contract.ADDITIONAL_FORTUNE})
        rows.sort(key=itemgetter("message"))
        return Template(template_name="fortunes.html", context={"fortunes": rows})

    @get("/redis/pooled")
    async def redis_pooled() -> dict:
        return _found(await ops.redis_pooled())

    @get("/redis/per-request")
    async def redis_per_request() -> dict:
        return _found(await ops.redis_per_request())

    @websocket(contract.WS_ECHO)
    async def ws_echo(socket: WebSocket) -> None:
        await socket.accept()
        try:
            while True:
                await _echo_to((socket,), await socket.receive())
        except WebSocketDisconnect:
            pass

    broadcast_sockets: set[WebSocket] = set()  # the worker's /ws/broadcast sockets

    @websocket(contract.WS_BROADCAST)
    async def ws_broadcast(socket: WebSocket) -> None:
        await socket.accept()
        broadcast_sockets.add(socket)
        try:
            while True:
                await _echo_to(broadcast_sockets, await socket.receive())
        except WebSocketDisconnect:
            pass
        finally:
            broadcast_sockets.discard(socket)

    return Litestar(
        route_handlers=[hello, hello_json, mongo_pooled, mongo_per_request, fortunes, redis_pooled,
                        redis_per_request, ws_echo, ws_broadcast],
        template_config=TemplateConfig(directory=Path(__file__).with_name("templates"), engine=JinjaTemplateEngine),
        exception_handlers={HTTPException: http_error, BackendUnavailable: backend_unavailable,
                            Exception: internal_error},
        openapi_config=None,  # no /schema routes: the contract's unknown paths stay 404
    )
