"""The FastAPI app: the route contract as FastAPI's tutorial writes it, an ASGI app.

Path operations declared with @app.get and typed path parameters; the JSON routes return a dict,
which FastAPI passes through jsonable_encoder and its default JSONResponse (Starlette's, whose
render() runs json.dumps inside each request with compact separators: the contract's bytes as
they come); `/` declares response_class=PlainTextResponse. Errors are HTTPExceptions rendered by
the app's exception handlers as {"error": ...} (Starlette's router raises them for 404 and for 405
with Allow), BackendUnavailable answers 503, anything else 500 (the traceback to the log only).
The interactive docs and openapi.json are off: the app serves the contract's routes only.
/fortunes renders templates/fortunes.html with FastAPI's Jinja2Templates (Starlette's: Jinja2 with
select_autoescape) as its docs' "Templates" page does, response_class=HTMLResponse.
The WebSocket routes are @app.websocket endpoints as its WebSockets page writes them (accept, a loop of receive and
send until WebSocketDisconnect; /ws/broadcast its ConnectionManager's list of active connections, a set here), with
receive() rather than receive_text() so a binary message comes back binary.
"""
from __future__ import annotations

from operator import itemgetter
from pathlib import Path

from fastapi import FastAPI, HTTPException, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse
from fastapi.templating import Jinja2Templates
from starlette.exceptions import HTTPException as StarletteHTTPException

from backends.errors import BackendUnavailable
from backends.ids import parse_user_id
from servers.apps import contract
from servers.apps.operations import AsyncOperations
from servers.core.options import Options


templates = Jinja2Templates(directory=Path(__file__).with_name("templates"))


def _found(value: dict | None) -> dict:
    if value is None:
        raise HTTPException(status_code=404)
    return value


def _user_id(raw_id: str) -> int:
    user_id = parse_user_id(raw_id)
    if user_id is None:
        raise HTTPException(status_code=404)
    return user_id


async def _receive(websocket: WebSocket) -> dict:
    """The next message ({"text": ...} or {"bytes": ...}); WebSocketDisconnect once the client has gone."""
    message = await websocket.receive()
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000))
    return message


async def _send(websocket: WebSocket, message: dict) -> None:
    if message.get("text") is not None:
        await websocket.send_text(message["text"])
    else:
        await websocket.send_bytes(message.get("bytes") or b"")


def create_app(options: Options) -> FastAPI:
    ops = AsyncOperations(options)
    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)

    @app.get("/", response_class=PlainTextResponse)
    async def hello():
        return contract.HELLO

    @app.get("/json")
    async def hello_json():
        return {"message": contract.HELLO}

    @app.get("/mongo/pooled/{raw_id}")
    async def mongo_pooled(raw_id: str):
        return _found(await ops.mongo_pooled(_user_id(raw_id)))

    @app.get("/mongo/per-request/{raw_id}")
    async def mongo_per_request(raw_id: str):
        return _found(await ops.mongo_per_request(_user_id(raw_id)))

    @app.get("/fortunes", response_class=HTMLResponse)
    async def fortunes(request: Request):
        rows = await ops.fortunes()
        rows.append({"id": 0, "message": contract.ADDITIONAL_FORTUNE})
        rows.sort(key=itemgetter("message"))
        return templates.TemplateResponse(request, "fortunes.html", {"fortunes": rows})

    @app.get("/redis/pooled")
    async def redis_pooled():
        return _found(await ops.redis_pooled())

    @app.get("/redis/per-request")
    async def redis_per_request():
        return _found(await ops.redis_per_request())

    @app.websocket(contract.WS_ECHO)
    async def ws_echo(websocket: WebSocket):
        await websocket.accept()
        try:
            while True:
                await _send(websocket, await _receive(websocket))
        except WebSocketDisconnect:
            pass

    active: set[WebSocket] = set()  # the worker's /ws/broadcast connections

    @app.websocket(contract.WS_BROADCAST)
    async def ws_broadcast(websocket: WebSocket):
        await websocket.accept()
        active.add(websocket)
        try:
            while True:
                message = await _receive(websocket)
                for connection in list(active):
                    try:
                        await _send(connection, message)
                    except (WebSocketDisconnect, RuntimeError, OSError):
                        active.discard(connection)  # gone meanwhile; its own loop ends too
        except WebSocketDisconnect:
            pass
        finally:
            active.discard(websocket)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return JSONResponse({"error": contract.error_message(exc.status_code)}, status_code=exc.status_code,
                            headers=exc.headers)

    @app.exception_handler(BackendUnavailable)
    async def backend_unavailable(request: Request, exc: BackendUnavailable) -> JSONResponse:
        return JSONResponse({"error": contract.BACKEND_UNAVAILABLE}, status_code=503)

    @app.exception_handler(Exception)
    async def internal_error(request: Request, exc: Exception) -> JSONResponse:
        # Starlette's ServerErrorMiddleware sends this, then re-raises to the server's log.
        return JSONResponse({"error": contract.INTERNAL_ERROR}, status_code=500)

    return app
