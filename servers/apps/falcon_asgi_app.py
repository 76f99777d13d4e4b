"""The Falcon ASGI app (falcon.asgi.App): the route contract as Falcon's docs write an async app.

Resources with `async def on_get` responders set resp.text or resp.media; Falcon serializes
resp.media inside each request through the JSON handler in app.resp_options.media_handlers
(compact separators: Falcon's default json.dumps puts spaces after ',' and ':'). Errors are
Falcon HTTPErrors (404, 405 with its Allow header, 500 for anything unhandled, whose traceback
Falcon logs) rendered by one error serializer; BackendUnavailable has its own handler.
The pooled clients are made lazily inside the worker's event loop by the backends modules.
/fortunes renders the WSGI app's Jinja2 template (servers/apps/falcon_app.py) after awaiting the rows.
The WebSocket routes are resources with an `on_websocket` responder (Falcon's WebSocket docs): ws.accept(), then a
loop until WebSocketDisconnected. Falcon has no receive that keeps a message's type (receive_text raises on a binary
message and the message is lost), so both payload types get a media handler that hands the payload over as it came
(the docs' "Media Handling" for WebSockets) and receive_media() returns str or bytes; /ws/broadcast keeps the
worker's sockets in a set.
"""
from __future__ import annotations


import falcon
import falcon.asgi

from backends.errors import BackendUnavailable
from backends.ids import parse_user_id
from servers.apps import contract
from servers.apps.falcon_app import configure, fortunes_page, found
from servers.apps.operations import AsyncOperations
from servers.core.options import Options


class HelloResource:
    async def on_get(self, req: falcon.asgi.Request, resp: falcon.asgi.Response) -> None:
        resp.content_type = falcon.MEDIA_TEXT
        resp.text = contract.HELLO


class JSONResource:
    async def on_get(self, req: falcon.asgi.Request, resp: falcon.asgi.Response) -> None:
        resp.media = {"message": contract.HELLO}


class UserResource:
    def __init__(self, find_user):
        self._find_user = find_user

    async def on_get(self, req: falcon.asgi.Request, resp: falcon.asgi.Response, raw_id: str) -> None:
        user_id = parse_user_id(raw_id)
        if user_id is None:
            raise falcon.HTTPNotFound()
        resp.media = found(await self._find_user(user_id))


class NameResource:
    def __init__(self, get_name):
        self._get_name = get_name

    async def on_get(self, req: falcon.asgi.Request, resp: falcon.asgi.Response) -> None:
        resp.media = found(await self._get_name())


class FortunesResource:
    def __init__(self, find_fortunes):
        self._find_fortunes = find_fortunes

    async def on_get(self, req: falcon.asgi.Request, resp: falcon.asgi.Response) -> None:
        resp.content_type = falcon.MEDIA_HTML
        resp.text = fortunes_page(await self._find_fortunes())


class _AsSent:
    """A WebSocket media handler that (de)serializes nothing: receive_media() returns the text or bytes as sent."""

    def serialize(self, media):
        return media

    def deserialize(self, payload):
        return payload


async def _send_to(sockets, message: str | bytes) -> None:
    for ws in list(sockets):
        try:
            await (ws.send_text(message) if isinstance(message, str) else ws.send_data(message))
        except (falcon.WebSocketDisconnected, RuntimeError, OSError):
            sockets.discard(ws)  # gone meanwhile: its own loop ends too


class EchoSocket:
    async def on_websocket(self, req: falcon.asgi.Request, ws: falcon.asgi.WebSocket) -> None:
        await ws.accept()
        try:
            while True:
                await _send_to((ws,), await ws.receive_media())
        except falcon.WebSocketDisconnected:
            pass


class BroadcastSocket:
    def __init__(self):
        self._sockets: set[falcon.asgi.WebSocket] = set()  # the worker's open /ws/broadcast sockets

    async def on_websocket(self, req: falcon.asgi.Request, ws: falcon.asgi.WebSocket) -> None:
        await ws.accept()
        self._sockets.add(ws)
        try:
            while True:
                await _send_to(self._sockets, await ws.receive_media())
        except falcon.WebSocketDisconnected:
            pass
        finally:
            self._sockets.discard(ws)


async def _backend_unavailable(req, resp, error: BackendUnavailable, params) -> None:
    raise falcon.HTTPServiceUnavailable()


def create_app(options: Options) -> falcon.asgi.App:
    app = falcon.asgi.App()
    configure(app, AsyncOperations(options),
              (HelloResource, JSONResource, UserResource, NameResource, FortunesResource), _backend_unavailable)
    for payload_type in (falcon.WebSocketPayloadType.TEXT, falcon.WebSocketPayloadType.BINARY):
        app.ws_options.media_handlers[payload_type] = _AsSent()
    app.add_route(contract.WS_ECHO, EchoSocket())
    app.add_route(contract.WS_BROADCAST, BroadcastSocket())
    return app
