"""The Falcon ASGI app (falcon.asgi.App): the route contract as Falcon's docs write an async app.

Resources with `async def on_get` responders set resp.text or resp.media; Falcon serializes
resp.media inside each request through the JSON handler in app.resp_options.media_handlers
(compact separators: Falcon's default json.dumps puts spaces after ',' and ':'). Errors are
Falcon HTTPErrors (404, 405 with its Allow header, 500 for anything unhandled, whose traceback
Falcon logs) rendered by one error serializer; BackendUnavailable has its own handler.
The pooled clients are made lazily inside the worker's event loop by the backends modules.
"""
from __future__ import annotations

import functools
import json

import falcon
import falcon.asgi
import falcon.media

from backends.errors import BackendUnavailable
from backends.ids import parse_user_id
from servers.apps import contract
from servers.apps.operations import AsyncOperations
from servers.options import Options


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
        resp.media = _found(await self._find_user(user_id))


class NameResource:
    def __init__(self, get_name):
        self._get_name = get_name

    async def on_get(self, req: falcon.asgi.Request, resp: falcon.asgi.Response) -> None:
        resp.media = _found(await self._get_name())


def _found(value: dict | None) -> dict:
    if value is None:
        raise falcon.HTTPNotFound()
    return value


def _serialize_error(req: falcon.asgi.Request, resp: falcon.asgi.Response, error: falcon.HTTPError) -> None:
    """Every HTTPError (Falcon's own 404/405/500 included) as {"error": ...}; Falcon adds its headers."""
    resp.content_type = falcon.MEDIA_JSON
    resp.media = {"error": contract.error_message(error.status_code)}


async def _backend_unavailable(req, resp, error: BackendUnavailable, params) -> None:
    raise falcon.HTTPServiceUnavailable()


def create_app(options: Options) -> falcon.asgi.App:
    ops = AsyncOperations(options)
    app = falcon.asgi.App()
    compact = falcon.media.JSONHandler(dumps=functools.partial(json.dumps, separators=(",", ":")))
    app.resp_options.media_handlers[falcon.MEDIA_JSON] = compact
    app.add_route("/", HelloResource())
    app.add_route("/json", JSONResource())
    app.add_route("/mongo/pooled/{raw_id}", UserResource(ops.mongo_pooled))
    app.add_route("/mongo/per-request/{raw_id}", UserResource(ops.mongo_per_request))
    app.add_route("/redis/pooled", NameResource(ops.redis_pooled))
    app.add_route("/redis/per-request", NameResource(ops.redis_per_request))
    app.add_error_handler(BackendUnavailable, _backend_unavailable)
    app.set_error_serializer(_serialize_error)
    return app
