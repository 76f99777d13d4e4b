"""The Falcon (WSGI) app: the route contract as Falcon resources, written as Falcon's docs do.

Responders set resp.text or resp.media; Falcon serializes resp.media inside each request through
the JSON handler configured in app.resp_options.media_handlers (compact separators, so the bytes
match every other stack). Errors are Falcon HTTPErrors (404, 405 with its Allow header, 500 for
anything unhandled) rendered by one error serializer; BackendUnavailable has its own handler.
Falcon has no template engine: /fortunes renders templates/fortunes.html with Jinja2, as Falcon's
FAQ shows (an Environment with autoescaping, resp.text and resp.content_type falcon.MEDIA_HTML).
"""
from __future__ import annotations

import functools
import json
from operator import itemgetter
from pathlib import Path

import falcon
import falcon.asgi
import falcon.media
import jinja2

from backends.errors import BackendUnavailable
from backends.ids import parse_user_id
from servers.apps import contract
from servers.apps.operations import SyncOperations
from servers.core.options import Options


class HelloResource:
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.content_type = falcon.MEDIA_TEXT
        resp.text = contract.HELLO


class JSONResource:
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = {"message": contract.HELLO}


class UserResource:
    def __init__(self, find_user):
        self._find_user = find_user

    def on_get(self, req: falcon.Request, resp: falcon.Response, raw_id: str) -> None:
        user_id = parse_user_id(raw_id)
        if user_id is None:
            raise falcon.HTTPNotFound()
        resp.media = found(self._find_user(user_id))


# One environment per process, its templates compiled on first use and kept (Jinja2's cache).
TEMPLATES = jinja2.Environment(loader=jinja2.FileSystemLoader(Path(__file__).with_name("templates")),
                               autoescape=jinja2.select_autoescape())


def fortunes_page(rows: list[dict]) -> str:
    """The fortunes page of the rows read: the request's row added, sorted by message, rendered."""
    rows.append({"id": 0, "message": contract.ADDITIONAL_FORTUNE})
    rows.sort(key=itemgetter("message"))
    return TEMPLATES.get_template("fortunes.html").render(fortunes=rows)


class FortunesResource:
    def __init__(self, find_fortunes):
        self._find_fortunes = find_fortunes

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.content_type = falcon.MEDIA_HTML
        resp.text = fortunes_page(self._find_fortunes())


class NameResource:
    def __init__(self, get_name):
        self._get_name = get_name

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = found(self._get_name())


def found(value: dict | None) -> dict:
    if value is None:
        raise falcon.HTTPNotFound()
    return value


def serialize_error(req: falcon.Request, resp: falcon.Response, error: falcon.HTTPError) -> None:
    """Every HTTPError (Falcon's own 404/405/500 included) as {"error": ...}; Falcon adds its headers."""
    resp.content_type = falcon.MEDIA_JSON
    resp.media = {"error": contract.error_message(error.status_code)}


def _backend_unavailable(req: falcon.Request, resp: falcon.Response, error: BackendUnavailable, params) -> None:
    raise falcon.HTTPServiceUnavailable()


def configure(app: falcon.App | falcon.asgi.App, ops, resources: tuple, backend_unavailable) -> None:
    """What Falcon's WSGI and ASGI apps share: compact JSON, the contract's routes, error handling.
    resources: the interface's (HelloResource, JSONResource, UserResource, NameResource, FortunesResource)."""
    hello, hello_json, user, name, fortunes = resources
    compact = falcon.media.JSONHandler(dumps=functools.partial(json.dumps, separators=(",", ":")))
    app.resp_options.media_handlers[falcon.MEDIA_JSON] = compact
    app.add_route("/", hello())
    app.add_route("/json", hello_json())
    app.add_route("/mongo/pooled/{raw_id}", user(ops.mongo_pooled))
    app.add_route("/mongo/per-request/{raw_id}", user(ops.mongo_per_request))
    app.add_route("/fortunes", fortunes(ops.fortunes))
    app.add_route("/redis/pooled", name(ops.redis_pooled))
    app.add_route("/redis/per-request", name(ops.redis_per_request))
    # Unhandled exceptions: Falcon's default handler logs the traceback (wsgi.errors or the ASGI
    # server's log) and answers HTTPInternalServerError, through the serializer below.
    app.add_error_handler(BackendUnavailable, backend_unavailable)
    app.set_error_serializer(serialize_error)


def create_app(options: Options) -> falcon.App:
    app = falcon.App()
    configure(app, SyncOperations(options),
              (HelloResource, JSONResource, UserResource, NameResource, FortunesResource), _backend_unavailable)
    return app
