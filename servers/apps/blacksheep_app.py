"""The BlackSheep app: the route contract as BlackSheep's docs write it, an ASGI app for any ASGI server.

Routes are request handlers registered on the app's router with their path parameter typed in the
signature (`raw_id: str`, bound from `{raw_id}`); they return blacksheep.text and blacksheep.json,
whose json() runs its JSON settings' dumps inside each request (json.dumps with compact separators
by default: the contract's bytes as they come). A handler's errors go through app.exceptions_handlers,
keyed by status or exception type: NotFound (a missing user or key, a bad id), BackendUnavailable
and 500. What no route matches goes to the router's fallback, BlackSheep's 404 hook; its router
knows no 405 (it keeps routes per method and never looks at the others), so the fallback asks the
router whether GET matches the path and answers 405 with Allow when it does, else 404. The pooled
clients are made lazily inside the worker's loop. /fortunes renders templates/fortunes.jinja with
BlackSheep's view() (its JinjaRenderer, the default engine of html_settings: Jinja2 with
select_autoescape(["html", "xml", "jinja"]); BlackSheep adds the ".jinja" suffix to a view's name),
answered text/html; charset=utf-8.
The WebSocket routes are @router.ws handlers as its WebSocket docs write them: accept, then each message from
receive() sent back with send_text or send_bytes as it came, until WebSocketDisconnectError; /ws/broadcast keeps
the worker's sockets in a set.
"""
from __future__ import annotations

import logging
from operator import itemgetter
from pathlib import Path

from blacksheep import Application, Request, Response, json, text
from blacksheep.exceptions import HTTPException, NotFound
from blacksheep.server.rendering.jinja2 import JinjaRenderer
from blacksheep.server.responses import view
from blacksheep.server.routing import Router
from blacksheep.server.websocket import WebSocket, WebSocketDisconnectError
from blacksheep.settings.html import html_settings
from jinja2 import FileSystemLoader

from backends.errors import BackendUnavailable
from backends.ids import parse_user_id
from servers.apps import contract
from servers.apps.operations import AsyncOperations
from servers.core.options import Options

# BlackSheep routes HEAD only where a route says so: these routes answer GET alone, HEAD is a 405.
_ALLOW = "GET"


def _found(value: dict | None) -> Response:
    if value is None:
        raise NotFound()
    return json(value)


def _user_id(raw_id: str) -> int:
    user_id = parse_user_id(raw_id)
    if user_id is None:
        raise NotFound()
    return user_id


def not_found() -> Response:
    return json({"error": contract.NOT_FOUND}, status=404)


def method_not_allowed() -> Response:
    response = json({"error": contract.METHOD_NOT_ALLOWED}, status=405)
    response.add_header(b"Allow", _ALLOW.encode())
    return response


async def not_found_error(app: Application, request: Request, exc: HTTPException) -> Response:
    return not_found()


async def backend_unavailable(app: Application, request: Request, exc: BackendUnavailable) -> Response:
    return json({"error": contract.BACKEND_UNAVAILABLE}, status=503)


async def internal_error(app: Application, request: Request, exc: Exception) -> Response:
    return json({"error": contract.INTERNAL_ERROR}, status=500)  # the traceback goes to the log only


async def _send_to(sockets, message) -> None:
    """One received message sent back, as text or bytes as it came, to each socket; one gone meanwhile is dropped."""
    for socket in list(sockets):
        try:
            if message.get("text") is not None:
                await socket.send_text(message["text"])
            else:
                await socket.send_bytes(message.get("bytes") or b"")
        except (WebSocketDisconnectError, RuntimeError, OSError):
            sockets.discard(socket)


def create_app(options: Options) -> Application:
    app = Application(router=Router(), show_error_details=False)  # its own router, not the module default
    # BlackSheep logs every handled HTTP error (a 404, a 405) at INFO on its own logger, whose level it
    # sets itself: a log line per request is what the contract rules out.
    logging.getLogger("blacksheep.server").setLevel(logging.WARNING)
    ops = AsyncOperations(options)
    router = app.router
    # Views from templates/ beside this module (BlackSheep's default loader reads the package "app").
    html_settings.use(JinjaRenderer(FileSystemLoader(Path(__file__).with_name("templates"))))

    @router.get("/")
    async def hello() -> Response:
        return text(contract.HELLO)

    @router.get("/json")
    async def hello_json() -> Response:
        return json({"message": contract.HELLO})

    @router.get("/mongo/pooled/{raw_id}")
    async def mongo_pooled(raw_id: str) -> Response:
        return _found(await ops.mongo_pooled(_user_id(raw_id)))

    @router.get("/mongo/per-request/{raw_id}")
    async def mongo_per_request(raw_id: str) -> Response:
        return _found(await ops.mongo_per_request(_user_id(raw_id)))

    @router.get("/fortunes")
    async def fortunes() -> Response:
        rows = await ops.fortunes()
        rows.append({"id": 0, "message": contract.ADDITIONAL_FORTUNE})
        rows.sort(key=itemgetter("message"))
        return view("fortunes", fortunes=rows)

    @router.get("/redis/pooled")
    async def redis_pooled() -> Response:
        return _found(await ops.redis_pooled())

    @router.get("/redis/per-request")
    async def redis_per_request() -> Response:
        return _found(await ops.redis_per_request())

    @router.ws(contract.WS_ECHO)
    async def ws_echo(websocket: WebSocket) -> None:
        await websocket.accept()
        try:
            while True:
                await _send_to((websocket,), await websocket.receive())
        except WebSocketDisconnectError:
            pass

    broadcast_sockets: set[WebSocket] = set()  # the worker's /ws/broadcast sockets

    @router.ws(contract.WS_BROADCAST)
    async def ws_broadcast(websocket: WebSocket) -> None:
        await websocket.accept()
        broadcast_sockets.add(websocket)
        try:
            while True:
                await _send_to(broadcast_sockets, await websocket.receive())
        except WebSocketDisconnectError:
            pass
        finally:
            broadcast_sockets.discard(websocket)

    async def fallback(request: Request) -> Response:
        # Any other method on a path of a GET route: 405; anything else: 404. Answered here rather than
        # raised: BlackSheep logs a raised HTTPException with request.url, which raises InvalidURL on a
        # request target it cannot parse (granian hands it "json" for `GET json`): a 500 from the server.
        if request.method != "GET" and router.get_matching_route(b"GET", request.path) is not None:
            return method_not_allowed()
        return not_found()

    router.fallback = fallback
    app.exceptions_handlers.update({
        404: not_found_error,
        500: internal_error,
        BackendUnavailable: backend_unavailable,
    })
    return app
