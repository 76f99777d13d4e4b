"""The Starlette app: the route contract as Starlette writes it, an ASGI app served by any ASGI server.

Routes with path parameters in a Starlette(routes=[...]); responses are PlainTextResponse and
JSONResponse, whose render() runs json.dumps inside each request with compact separators (the
contract's bytes as they come). Errors go through the app's exception_handlers: Starlette's router
raises HTTPException for 404 and for 405 (with its Allow header), BackendUnavailable answers 503,
and anything else 500 from ServerErrorMiddleware's handler (the traceback goes to the log only).
The pooled clients are made lazily inside the worker's event loop by the backends modules.
/fortunes renders templates/fortunes.html through Jinja2Templates.TemplateResponse (Starlette's
templating: Jinja2 with select_autoescape, so .html is escaped; text/html; charset=utf-8).
The WebSocket routes are WebSocketRoute endpoints as its WebSockets docs write them: accept, then each message
received and sent back with send_text or send_bytes as it came; /ws/broadcast keeps the worker's open sockets in a
set and sends each message to every one in turn (granian's benchmark app). The framing, the size limit, pings and
the 1009 close are the server's: the app sees whole messages.
"""
from __future__ import annotations

from operator import itemgetter
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route, WebSocketRoute
from starlette.templating import Jinja2Templates
from starlette.websockets import WebSocket, WebSocketDisconnect

from backends.errors import BackendUnavailable
from backends.ids import parse_user_id
from servers.apps import contract
from servers.apps.operations import AsyncOperations
from servers.core.options import Options


def _found(value: dict | None) -> JSONResponse:
    if value is None:
        raise HTTPException(status_code=404)
    return JSONResponse(value)


def _user_id(request: Request) -> int:
    user_id = parse_user_id(request.path_params["raw_id"])
    if user_id is None:
        raise HTTPException(status_code=404)
    return user_id


async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
    return JSONResponse({"error": contract.error_message(exc.status_code)}, status_code=exc.status_code,
                        headers=exc.headers)


async def backend_unavailable(request: Request, exc: BackendUnavailable) -> JSONResponse:
    return JSONResponse({"error": contract.BACKEND_UNAVAILABLE}, status_code=503)


async def internal_error(request: Request, exc: Exception) -> JSONResponse:
    return JSONResponse({"error": contract.INTERNAL_ERROR}, status_code=500)


templates = Jinja2Templates(directory=Path(__file__).with_name("templates"))


async def _messages(websocket: WebSocket):
    """Each message as ASGI gives it (text or bytes), until the client goes."""
    while (message := await websocket.receive())["type"] == "websocket.receive":
        yield message


async def _send(websocket: WebSocket, message: dict) -> None:
    if message.get("text") is not None:
        await websocket.send_text(message["text"])
    else:
        await websocket.send_bytes(message.get("bytes") or b"")


def websocket_routes() -> list[WebSocketRoute]:
    """/ws/echo and /ws/broadcast, with this app's own set of broadcast sockets (one app per worker)."""
    clients: set[WebSocket] = set()

    async def echo(websocket: WebSocket) -> None:
        await websocket.accept()
        async for message in _messages(websocket):
            await _send(websocket, message)

    async def broadcast(websocket: WebSocket) -> None:
        await websocket.accept()
        clients.add(websocket)
        try:
            async for message in _messages(websocket):
                for client in list(clients):
                    try:
                        await _send(client, message)
                    except (WebSocketDisconnect, RuntimeError, OSError):
                        clients.discard(client)  # gone meanwhile; its own loop ends too
        finally:
            clients.discard(websocket)

    return [WebSocketRoute(contract.WS_ECHO, echo), WebSocketRoute(contract.WS_BROADCAST, broadcast)]


def create_app(options: Options) -> Starlette:
    ops = AsyncOperations(options)

    async def hello(request: Request) -> PlainTextResponse:
        return PlainTextResponse(contract.HELLO)

    async def hello_json(request: Request) -> JSONResponse:
        return JSONResponse({"message": contract.HELLO})

    async def mongo_pooled(request: Request) -> JSONResponse:
        return _found(await ops.mongo_pooled(_user_id(request)))

    async def mongo_per_request(request: Request) -> JSONResponse:
        return _found(await ops.mongo_per_request(_user_id(request)))

    async def fortunes(request: Request):
        rows = await ops.fortunes()
        rows.append({"id": 0, "message": contract.ADDITIONAL_FORTUNE})
        rows.sort(key=itemgetter("message"))
        return templates.TemplateResponse(request, "fortunes.html", {"fortunes": rows})

    async def redis_pooled(request: Request) -> JSONResponse:
        return _found(await ops.redis_pooled())

    async def redis_per_request(request: Request) -> JSONResponse:
        return _found(await ops.redis_per_request())

    routes = [
        Route("/", hello),
        Route("/json", hello_json),
        Route("/mongo/pooled/{raw_id}", mongo_pooled),
        Route("/mongo/per-request/{raw_id}", mongo_per_request),
        Route("/fortunes", fortunes),
        Route("/redis/pooled", redis_pooled),
        Route("/redis/per-request", redis_per_request),
        *websocket_routes(),
    ]
    exception_handlers = {
        HTTPException: http_error,
        BackendUnavailable: backend_unavailable,
        Exception: internal_error,  # ServerErrorMiddleware: answers, then re-raises to the server's log
    }
    return Starlette(routes=routes, exception_handlers=exception_handlers)
