"""The tornado app: the route contract as RequestHandlers, written as tornado's docs write them.

Handlers call self.write(dict) / self.write(str) and raise tornado.web.HTTPError; errors are
rendered by write_error. tornado's write(dict) serializes with tornado.escape.json_encode, which
is json.dumps with its default ", " and ": " separators and cannot be configured, so the base
handler's write() serializes dicts the same way but compact (still inside each request).
Served by tornado's own HTTPServer (servers.adapters.tornado_server); create_app runs in the
worker after any fork so the async clients belong to that worker's event loop. /fortunes calls
self.render with the application's template_path (templates/tornado/): tornado.template, which
escapes every {{ }} expression with xhtml_escape (autoescape's default); the handler's default
Content-Type is text/html; charset=UTF-8.

As tornado's parser owner it answers `/reflect` (any method) with what tornado handed the handler
(servers/apps/reflection.py): request.method, request.uri (the raw target), request.version, the
header fields as request.headers.get_all() gives them (tornado's HTTPHeaders, names normalized) and
request.body, which tornado has read whole before the handler runs. It answers in prepare(), which
tornado runs for every method it supports, before the method's own handler.

The WebSocket routes are WebSocketHandler subclasses as tornado's websocket docs write them: on_message writes
each message back (binary=True for bytes); /ws/broadcast keeps the open handlers in a class-level set, as its chat
demo keeps its waiters. The framing is tornado's own, its limit the Application setting websocket_max_message_size
(the contract's 16 MiB over tornado's 10 MiB); check_origin keeps tornado's default (a cross-site Origin: 403).
"""
from __future__ import annotations

import json
import logging
from operator import itemgetter
from pathlib import Path
from types import TracebackType

import tornado.web
import tornado.websocket

from backends.errors import BackendUnavailable
from backends.ids import parse_user_id
from servers.apps import contract, reflection
from servers.apps.operations import AsyncOperations
from servers.core.options import Options
from servers.core.specs import WS_MAX_MESSAGE

log = logging.getLogger(__name__)
TEMPLATES = Path(__file__).with_name("templates") / "tornado"


class BaseHandler(tornado.web.RequestHandler):
    def write(self, chunk: str | bytes | dict) -> None:
        if isinstance(chunk, dict):
            # json_encode's escaping of "</" kept; only the separators differ.
            chunk = json.dumps(chunk, separators=(",", ":")).replace("</", "<\\/")
            self.set_header("Content-Type", contract.JSON)
        super().write(chunk)

    def found(self, value: dict | None) -> None:
        if value is None:
            raise tornado.web.HTTPError(404)
        self.write(value)

    def write_error(self, status_code: int, **kwargs) -> None:
        exc_info = kwargs.get("exc_info")
        if exc_info and issubclass(exc_info[0], BackendUnavailable):
            status_code = 503
            self.set_status(status_code)
        if status_code == 405:
            self.set_header("Allow", "GET")
        self.write({"error": contract.error_message(status_code)})

    def log_exception(self, typ: type[BaseException] | None, value: BaseException | None,
                      tb: TracebackType | None) -> None:
        if not isinstance(value, BackendUnavailable):  # an outage is a 503, not a traceback per request
            super().log_exception(typ, value, tb)  # tracebacks to stderr, never to the client


class HelloHandler(BaseHandler):
    def get(self) -> None:
        self.set_header("Content-Type", contract.TEXT)
        self.write(contract.HELLO)


class JSONHandler(BaseHandler):
    def get(self) -> None:
        self.write({"message": contract.HELLO})


class UserHandler(BaseHandler):
    def initialize(self, find_user) -> None:
        self.find_user = find_user

    async def get(self, raw_id: str) -> None:
        user_id = parse_user_id(raw_id)
        if user_id is None:
            raise tornado.web.HTTPError(404)
        self.found(await self.find_user(user_id))


class NameHandler(BaseHandler):
    def initialize(self, get_name) -> None:
        self.get_name = get_name

    async def get(self) -> None:
        self.found(await self.get_name())


class AnyMethod(tuple):
    """SUPPORTED_METHODS that hold every method: the reflection route answers whatever tornado passes on."""

    def __contains__(self, method: object) -> bool:
        return True


class ReflectHandler(tornado.web.RequestHandler):
    SUPPORTED_METHODS = AnyMethod()

    def compute_etag(self) -> None:
        return None  # no Etag: the answer is the reflection alone

    def prepare(self) -> None:
        request = self.request
        x_reflect, body = reflection.answer("tornado", request.method, request.uri, request.version,
                                            request.headers.get_all(), request.body, "uri")
        self.set_header("Content-Type", contract.JSON)
        self.set_header(reflection.HEADER, x_reflect)
        self.finish(body)  # tornado sends no body to a HEAD


class FortunesHandler(BaseHandler):
    def initialize(self, find_fortunes) -> None:
        self.find_fortunes = find_fortunes

    async def get(self) -> None:
        rows = await self.find_fortunes()
        rows.append({"id": 0, "message": contract.ADDITIONAL_FORTUNE})
        rows.sort(key=itemgetter("message"))
        self.render("fortunes.html", fortunes=rows)


class EchoSocket(tornado.websocket.WebSocketHandler):
    def on_message(self, message: str | bytes) -> None:
        self.write_message(message, binary=isinstance(message, bytes))


class BroadcastSocket(tornado.websocket.WebSocketHandler):
    sockets: set[BroadcastSocket] = set()  # the worker's open /ws/broadcast sockets

    def open(self) -> None:
        BroadcastSocket.sockets.add(self)

    def on_close(self) -> None:
        BroadcastSocket.sockets.discard(self)

    def on_message(self, message: str | bytes) -> None:
        for socket in list(BroadcastSocket.sockets):
            try:
                socket.write_message(message, binary=isinstance(message, bytes))
            except tornado.websocket.WebSocketClosedError:
                BroadcastSocket.sockets.discard(socket)


class NotFoundHandler(BaseHandler):
    def prepare(self) -> None:
        raise tornado.web.HTTPError(404)


def create_app(options: Options) -> tornado.web.Application:
    ops = AsyncOperations(options)
    return tornado.web.Application(
        [
            (r"/", HelloHandler),
            (r"/json", JSONHandler),
            (r"/mongo/pooled/([^/]+)", UserHandler, {"find_user": ops.mongo_pooled}),
            (r"/mongo/per-request/([^/]+)", UserHandler, {"find_user": ops.mongo_per_request}),
            (r"/fortunes", FortunesHandler, {"find_fortunes": ops.fortunes}),
            (r"/redis/pooled", NameHandler, {"get_name": ops.redis_pooled}),
            (r"/redis/per-request", NameHandler, {"get_name": ops.redis_per_request}),
            (r"/reflect(?:/.*)?", ReflectHandler),
            (contract.WS_ECHO, EchoSocket),
            (contract.WS_BROADCAST, BroadcastSocket),
        ],
        default_handler_class=NotFoundHandler,
        template_path=str(TEMPLATES),
        websocket_max_message_size=WS_MAX_MESSAGE,
    )
