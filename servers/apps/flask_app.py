"""The Flask app: the route contract written as Flask's docs write apps.

Views return a str or a dict; Flask turns a dict into JSON through app.json (its JSON provider)
inside each request. The provider is configured compact and without the "\\n" that Flask's
DefaultJSONProvider.response appends, so the bytes match every other stack. Errors go through
@app.errorhandler. Pooled Mongo is flask-pymongo's client. /fortunes renders templates/fortunes.html
with render_template (Jinja2, autoescaped as Flask does for .html templates; Flask answers it
text/html; charset=utf-8).

create_app is called in the worker process (after any fork), because Flask-PyMongo creates its
MongoClient in init_app and pymongo is not fork-safe.
"""
from __future__ import annotations

from typing import Any

from operator import itemgetter

from flask import Flask, Response, abort, render_template
from flask.json.provider import DefaultJSONProvider
from flask_pymongo import PyMongo
from werkzeug.exceptions import HTTPException

from backends import mongo_sync
from backends.errors import BackendUnavailable
from backends.ids import parse_user_id
from servers.apps import contract
from servers.apps.operations import SyncOperations
from servers.core.options import Options


class CompactJSONProvider(DefaultJSONProvider):
    """Flask's provider, compact, and without the trailing newline its response() adds."""

    compact = True

    def response(self, *args: Any, **kwargs: Any) -> Response:
        body = self.dumps(self._prepare_response_obj(args, kwargs), separators=(",", ":"))
        return self._app.response_class(body, mimetype=self.mimetype)


class TextResponse(Response):
    # A view returning a str answers text/plain (Flask's default is text/html); set once on the
    # class, it costs nothing per request, unlike a headers dict in every return.
    default_mimetype = "text/plain"


def create_app(options: Options) -> Flask:
    app = Flask(__name__)
    app.response_class = TextResponse
    mongo = PyMongo(app, uri=options.mongo_url, **mongo_sync.client_kwargs())
    # After PyMongo: it installs its BSONProvider (bson.json_util, not compact); the documents we
    # answer are plain {"id", "name"} (no ObjectId), which Flask's own provider serializes.
    app.json = CompactJSONProvider(app)
    users = mongo_sync.users_collection(mongo.cx)
    fortunes = mongo_sync.fortunes_collection(mongo.cx)
    ops = SyncOperations(options, find_user_pooled=lambda user_id: mongo_sync.find_user_in(users, user_id),
                         find_fortunes=lambda: mongo_sync.find_fortunes_in(fortunes))

    def found(value: dict | None) -> dict:
        if value is None:
            abort(404)
        return value

    def user_id_or_404(raw_id: str) -> int:
        user_id = parse_user_id(raw_id)
        if user_id is None:
            abort(404)
        return user_id

    @app.get("/")
    def hello() -> str:
        return contract.HELLO

    @app.get("/json")
    def hello_json() -> dict:
        return {"message": contract.HELLO}

    @app.get("/mongo/pooled/<raw_id>")
    def mongo_pooled(raw_id: str) -> dict:
        return found(ops.mongo_pooled(user_id_or_404(raw_id)))

    @app.get("/mongo/per-request/<raw_id>")
    def mongo_per_request(raw_id: str) -> dict:
        return found(ops.mongo_per_request(user_id_or_404(raw_id)))

    @app.get("/fortunes")
    def fortunes_page() -> Response:
        rows = ops.fortunes()
        rows.append({"id": 0, "message": contract.ADDITIONAL_FORTUNE})
        rows.sort(key=itemgetter("message"))
        # A str from a view is text/plain here (TextResponse): the page sets its own type.
        return Response(render_template("fortunes.html", fortunes=rows), mimetype="text/html")

    @app.get("/redis/pooled")
    def redis_pooled() -> dict:
        return found(ops.redis_pooled())

    @app.get("/redis/per-request")
    def redis_per_request() -> dict:
        return found(ops.redis_per_request())

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException):
        code = error.code or 500
        headers = {"Allow": ", ".join(error.valid_methods)} if code == 405 and error.valid_methods else {}
        return {"error": contract.error_message(code)}, code, headers

    @app.errorhandler(BackendUnavailable)
    def backend_unavailable(error: BackendUnavailable):
        return {"error": contract.BACKEND_UNAVAILABLE}, 503

    @app.errorhandler(Exception)
    def internal_error(error: Exception):
        app.logger.exception("unhandled error")  # to stderr, never to the client
        return {"error": contract.INTERNAL_ERROR}, 500

    return app
