"""The Falcon ASGI app (falcon.asgi.App): the route contract as Falcon's docs write an async app.

Resources with `async def on_get` responders set resp.text or resp.media; Falcon serializes
resp.media inside each request through the JSON handler in app.resp_options.media_handlers
(compact separators: Falcon's default json.dumps puts spaces after ',' and ':'). Errors are
Falcon HTTPErrors (404, 405 with its Allow header, 500 for anything unhandled, whose traceback
Falcon logs) rendered by one error serializer; BackendUnavailable has its own handler.
The pooled clients are made lazily inside the worker's event loop by the backends modules.
/fortunes renders the WSGI app's Jinja2 template (servers/apps/falcon_app.py) after awaiting the rows.
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


async def _backend_unavailable(req, resp, error: BackendUnavailable, params) -> None:
    raise falcon.HTTPServiceUnavailable()


def create_app(options: Options) -> falcon.asgi.App:
    app = falcon.asgi.App()
    configure(app, AsyncOperations(options),
              (HelloResource, JSONResource, UserResource, NameResource, FortunesResource), _backend_unavailable)
    return app
