"""The Emmett app: the route contract as Emmett's docs write it, served through granian's RSGI interface.

Routes are @app.route functions with their path parameter typed in the rule (`<str:raw_id>`); the
hello route returns its string (Emmett's auto output, text/plain), the JSON routes go through the
service pipe (@service.json), which serializes each return value inside the request with Emmett's
JSON serializer (orjson when installed, as it is here: compact, no trailing newline). Errors are the
framework's: abort(status) raises an HTTP response that Emmett renders through the @app.on_error
handler of its status. Emmett's router matches method and path together and knows no 405 (any other
method on a known path is its 404), so each contract path also has a route for the other methods
that aborts 405, whose handler adds Allow. A backend failure becomes abort(503) in one pipe on the
backend routes (Emmett's pipeline is its middleware); anything else is Emmett's 500 handler. The
pooled clients are made lazily inside the worker's loop. /fortunes returns a dict, which Emmett's
auto output renders with the route's template (templates/emmett/fortunes.html, Emmett's own engine,
renoir, whose `{{=...}}` escapes) and answers text/html; charset=utf-8.
"""
from __future__ import annotations

from operator import itemgetter

from emmett import App, abort, response
from emmett.pipeline import Pipe
from emmett.serializers import Serializers
from emmett.tools import service

from backends.errors import BackendUnavailable
from backends.ids import parse_user_id
from servers.apps import contract
from servers.apps.operations import AsyncOperations
from servers.core.options import Options

# Emmett answers HEAD with the GET route's headers alone when a route lists it (its head builder).
GET = ["get", "head"]
# Methods answered 405 on the contract's paths (RFC 9110's, less GET and HEAD).
OTHER_METHODS = ["post", "put", "delete", "patch", "options", "trace", "connect"]
_ALLOW = ", ".join(contract.ALLOWED_METHODS)
_dumps = Serializers.get_for("json")


class BackendErrors(Pipe):
    """A backend that is down or too slow is the contract's 503."""

    async def pipe_request(self, next_pipe, **kwargs):
        try:
            return await next_pipe(**kwargs)
        except BackendUnavailable:
            abort(503)


def _error_body(status: int) -> str:
    # on_error handlers return text; Emmett's JSON serializer gives bytes under orjson.
    response.content_type = contract.JSON
    body = _dumps({"error": contract.error_message(status)})
    return body.decode() if isinstance(body, bytes) else body


def _found(value: dict | None) -> dict:
    if value is None:
        abort(404)
    return value


def _user_id(raw_id: str) -> int:
    user_id = parse_user_id(raw_id)
    if user_id is None:
        abort(404)
    return user_id


def create_app(options: Options) -> App:
    app = App(__name__)
    app.config.handle_static = False  # no static folder: every path goes to the router
    ops = AsyncOperations(options)
    backend = [BackendErrors()]

    @app.route("/", methods=GET)
    async def hello():
        return contract.HELLO

    @app.route("/json", methods=GET)
    @service.json
    async def hello_json():
        return {"message": contract.HELLO}

    @app.route("/mongo/pooled/<str:raw_id>", methods=GET, pipeline=backend)
    @service.json
    async def mongo_pooled(raw_id: str):
        return _found(await ops.mongo_pooled(_user_id(raw_id)))

    @app.route("/mongo/per-request/<str:raw_id>", methods=GET, pipeline=backend)
    @service.json
    async def mongo_per_request(raw_id: str):
        return _found(await ops.mongo_per_request(_user_id(raw_id)))

    @app.route("/fortunes", methods=GET, pipeline=backend, template="emmett/fortunes.html")
    async def fortunes():
        rows = await ops.fortunes()
        rows.append({"id": 0, "message": contract.ADDITIONAL_FORTUNE})
        rows.sort(key=itemgetter("message"))
        return {"fortunes": rows}

    @app.route("/redis/pooled", methods=GET, pipeline=backend)
    @service.json
    async def redis_pooled():
        return _found(await ops.redis_pooled())

    @app.route("/redis/per-request", methods=GET, pipeline=backend)
    @service.json
    async def redis_per_request():
        return _found(await ops.redis_per_request())

    @app.route(["/", "/json", "/mongo/pooled/<str:raw_id>", "/mongo/per-request/<str:raw_id>", "/fortunes",
                "/redis/pooled", "/redis/per-request"], methods=OTHER_METHODS)
    async def other_methods(raw_id: str = ""):
        abort(405)

    @app.on_error(404)
    async def not_found() -> str:
        return _error_body(404)

    @app.on_error(405)
    async def method_not_allowed() -> str:
        response.headers["allow"] = _ALLOW
        return _error_body(405)

    @app.on_error(503)
    async def backend_unavailable() -> str:
        return _error_body(503)

    @app.on_error(500)
    async def internal_error() -> str:
        return _error_body(500)  # Emmett logs the traceback; the client gets this only

    return app
