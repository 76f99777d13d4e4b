"""The Falcon (WSGI) app: the route contract as Falcon resources, one per route."""
from __future__ import annotations

import logging

import falcon

from servers.apps import contract
from servers.apps.operations import SyncOperations
from servers.options import Options

log = logging.getLogger(__name__)


def _send(resp: falcon.Response, reply: contract.Reply) -> None:
    resp.status = reply.status
    resp.content_type = reply.content_type
    resp.data = reply.body


class _Fixed:
    def __init__(self, reply: contract.Reply):
        self._reply = reply

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        _send(resp, self._reply)


class _Call:
    """A route whose answer is one call to the operations (with the id, if the route has one)."""

    def __init__(self, operation):
        self._operation = operation

    def on_get(self, req: falcon.Request, resp: falcon.Response, **params: str) -> None:
        _send(resp, self._operation(*params.values()))


def _http_error(req, resp: falcon.Response, error: falcon.HTTPError, params) -> None:
    _send(resp, contract.error(error.status_code))
    for name, value in (error.headers or {}).items():
        resp.set_header(name, value)


def _internal_error(req, resp: falcon.Response, error: Exception, params) -> None:
    log.exception("unhandled error")  # to stderr, never to the client
    _send(resp, contract.INTERNAL_ERROR)


def create_app(options: Options) -> falcon.App:
    ops = SyncOperations(options)
    app = falcon.App()
    app.add_route("/", _Fixed(contract.HELLO))
    app.add_route("/json", _Fixed(contract.HELLO_JSON))
    app.add_route("/mongo/pooled/{raw_id}", _Call(ops.mongo_pooled))
    app.add_route("/mongo/per-request/{raw_id}", _Call(ops.mongo_per_request))
    app.add_route("/redis/pooled", _Call(ops.redis_pooled))
    app.add_route("/redis/per-request", _Call(ops.redis_per_request))
    # Handlers are matched most-specific first: HTTPError before the catch-all.
    app.add_error_handler(Exception, _internal_error)
    app.add_error_handler(falcon.HTTPError, _http_error)
    return app
