"""The Flask app: the route contract on Flask, pooled Mongo through flask-pymongo.

create_app is called in the worker process (after any fork), because Flask-PyMongo creates its
MongoClient in init_app and pymongo is not fork-safe.
"""
from __future__ import annotations

from flask import Flask, Response
from flask_pymongo import PyMongo
from werkzeug.exceptions import HTTPException

from backends import mongo_sync
from servers.apps import contract
from servers.apps.operations import SyncOperations
from servers.options import Options


def _response(reply: contract.Reply) -> Response:
    return Response(reply.body, status=reply.status, content_type=reply.content_type)


def create_app(options: Options) -> Flask:
    app = Flask(__name__)
    mongo = PyMongo(app, uri=options.mongo_url, **mongo_sync.client_kwargs())
    users = mongo_sync.users_collection(mongo.cx)
    ops = SyncOperations(options, find_user_pooled=lambda user_id: mongo_sync.find_user_in(users, user_id))

    @app.get("/")
    def hello() -> Response:
        return _response(contract.HELLO)

    @app.get("/json")
    def hello_json() -> Response:
        return _response(contract.HELLO_JSON)

    @app.get("/mongo/pooled/<raw_id>")
    def mongo_pooled(raw_id: str) -> Response:
        return _response(ops.mongo_pooled(raw_id))

    @app.get("/mongo/per-request/<raw_id>")
    def mongo_per_request(raw_id: str) -> Response:
        return _response(ops.mongo_per_request(raw_id))

    @app.get("/redis/pooled")
    def redis_pooled() -> Response:
        return _response(ops.redis_pooled())

    @app.get("/redis/per-request")
    def redis_per_request() -> Response:
        return _response(ops.redis_per_request())

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> Response:
        response = _response(contract.error(error.code or 500))
        if error.code == 405 and error.valid_methods:
            response.headers["Allow"] = ", ".join(error.valid_methods)
        return response

    @app.errorhandler(Exception)
    def internal_error(error: Exception) -> Response:
        app.logger.exception("unhandled error")  # to stderr, never to the client
        return _response(contract.INTERNAL_ERROR)

    return app
