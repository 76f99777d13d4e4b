"""What the framework pages say each step does, shown on the installed frameworks."""
from __future__ import annotations

import asyncio

import blacksheep
import flask
import orjson
import pytest
from blacksheep.exceptions import NotFound
from blacksheep.server.routing import Router
from emmett import App
from emmett.serializers import Serializers
from werkzeug.test import EnvironBuilder


def test_flask_pops_its_contexts_before_the_server_writes_the_body():
    """wsgi_app pops the request and app contexts in its finally, when it returns the body
    iterable: the server iterates (writes) it afterwards, with no context, unless the body is
    wrapped in stream_with_context."""
    app = flask.Flask(__name__)
    events = []
    app.teardown_request(lambda exc: events.append("teardown"))

    def body():
        events.append(f"write, request context: {flask.has_request_context()}")
        yield b"x"

    @app.get("/plain")
    def plain():
        return flask.Response(body())

    @app.get("/with-context")
    def with_context():
        return flask.Response(flask.stream_with_context(body()))

    for path in ("/plain", "/with-context"):
        events.clear()
        iterable = app.wsgi_app(EnvironBuilder(path=path).get_environ(), lambda status, headers: None)
        events.append("returned to the server")
        assert b"".join(iterable) == b"x"
        iterable.close()
        if path == "/plain":
            assert events == ["teardown", "returned to the server", "write, request context: False"]
        else:  # the same context pushed again while the server writes; popping it tears down again
            assert events == ["teardown", "returned to the server", "write, request context: True", "teardown"]


async def _asgi_call(app, method: str, path: str) -> tuple[int, bytes]:
    """One request straight into an ASGI app (BlackSheep's, Emmett's: the same routers as under any server)."""
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
             "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
             "headers": [(b"host", b"127.0.0.1")], "server": ("127.0.0.1", 80), "client": ("127.0.0.1", 1)}
    sent = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    await app(scope, receive, send)
    return sent[0]["status"], b"".join(m.get("body", b"") for m in sent[1:])


def _blacksheep_app():
    app = blacksheep.Application(router=Router())

    @app.router.get("/json")
    async def hello_json():
        return blacksheep.json({"message": "Hello, World!"})

    return app


def test_blacksheep_has_no_405_and_its_json_is_compact():
    """A method without a route on a path is BlackSheep's 404 (it never looks at the other methods'
    routes), and json() serializes compact, as the contract's bytes are."""
    app = _blacksheep_app()
    assert asyncio.run(_asgi_call(app, "GET", "/json")) == (200, b'{"message":"Hello, World!"}')
    assert asyncio.run(_asgi_call(app, "POST", "/json"))[0] == 404


def test_blacksheep_raises_out_of_the_app_when_it_logs_an_http_exception_on_a_target_it_cannot_parse():
    """BlackSheep logs a raised HTTPException with request.url, which raises InvalidURL for a target
    such as `json` (granian hands it over as is): the exception leaves the app, the server answers 500.
    The suite's fallback answers 404 and 405 instead of raising them."""
    app = _blacksheep_app()

    async def fallback():
        raise NotFound()

    app.router.fallback = fallback
    with pytest.raises(Exception, match="cannot be parsed as URL"):
        asyncio.run(_asgi_call(app, "GET", "json"))


def test_emmett_routes_per_method_and_serializes_json_with_orjson():
    """Emmett's router matches method and path together: a method a route does not list is its 404;
    HEAD listed gets the GET handler's answer without the body. Its JSON serializer is orjson's
    dumps (installed with the emmett extra): compact bytes."""
    app = App(__name__)

    @app.route("/", methods=["get", "head"])
    async def hello():
        return "Hello, World!"

    assert asyncio.run(_asgi_call(app, "GET", "/")) == (200, b"Hello, World!")
    assert asyncio.run(_asgi_call(app, "HEAD", "/")) == (200, b"")
    assert asyncio.run(_asgi_call(app, "POST", "/"))[0] == 404
    dumps = Serializers.get_for("json")
    assert dumps.func is orjson.dumps and dumps({"message": "Hello, World!"}) == b'{"message":"Hello, World!"}'
