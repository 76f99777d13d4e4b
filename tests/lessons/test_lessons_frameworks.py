"""What the framework pages say each step does, shown on the installed frameworks."""
from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys

import pytest

from lessontools import needs
from serverproc import ROOT

# Each framework is an extra: a test skips when its framework is not installed, the others still run.
needs_flask, needs_blacksheep, needs_emmett, needs_django = (needs("flask"), needs("blacksheep"), needs("emmett"),
                                                              needs("django"))


@needs_flask
def test_flask_pops_its_contexts_before_the_server_writes_the_body():
    """wsgi_app pops the request and app contexts in its finally, when it returns the body
    iterable: the server iterates (writes) it afterwards, with no context, unless the body is
    wrapped in stream_with_context."""
    import flask
    from werkzeug.test import EnvironBuilder

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
    import blacksheep
    from blacksheep.server.routing import Router

    app = blacksheep.Application(router=Router())

    @app.router.get("/json")
    async def hello_json():
        return blacksheep.json({"message": "Hello, World!"})

    return app


@needs_blacksheep
def test_blacksheep_has_no_405_and_its_json_is_compact():
    """A method without a route on a path is BlackSheep's 404 (it never looks at the other methods'
    routes), and json() serializes compact, as the contract's bytes are."""
    app = _blacksheep_app()
    assert asyncio.run(_asgi_call(app, "GET", "/json")) == (200, b'{"message":"Hello, World!"}')
    assert asyncio.run(_asgi_call(app, "POST", "/json"))[0] == 404


@needs_blacksheep
def test_blacksheep_raises_out_of_the_app_when_it_logs_an_http_exception_on_a_target_it_cannot_parse():
    """BlackSheep logs a raised HTTPException with request.url, which raises InvalidURL for a target
    such as `json` (granian hands it over as is): the exception leaves the app, the server answers 500.
    The suite's fallback answers 404 and 405 instead of raising them."""
    from blacksheep.exceptions import NotFound

    app = _blacksheep_app()

    async def fallback():
        raise NotFound()

    app.router.fallback = fallback
    with pytest.raises(Exception, match="cannot be parsed as URL"):
        asyncio.run(_asgi_call(app, "GET", "json"))


class _RSGIProtocol:
    """What granian hands an RSGI app as `protocol`: the one response_* call the app makes is recorded."""

    def __init__(self):
        self.calls = []

    async def __call__(self):  # the request body
        return b""

    def __getattr__(self, name):
        if name.startswith("response_"):
            return lambda *args: self.calls.append((name, *args))
        raise AttributeError(name)


def _rsgi_call(app, method: str, path: str) -> list[tuple]:
    """One request into app.__rsgi__(scope, protocol), as granian's RSGI worker makes it."""
    from emmett_core.protocols.rsgi.test_client.scope import Scope  # emmett-core's own RSGI scope

    protocol = _RSGIProtocol()
    asyncio.run(app.__rsgi__(Scope([("host", "127.0.0.1")], path, method, ""), protocol))
    return protocol.calls


@needs_blacksheep
def test_blacksheep_app_answers_405_from_its_fallback_not_from_an_exception_handler():
    """blacksheep.md: the app's router fallback returns the 405 response itself (method_not_allowed(),
    with Allow) when GET matches the path; it raises nothing, and no 405 exception handler is
    registered: one registered here is never called."""
    from servers.apps.blacksheep_app import create_app
    from servers.core.options import Options

    app = create_app(Options("lesson", "127.0.0.1", 8000, 1, "mongodb://127.0.0.1:1/test",
                             "redis://127.0.0.1:1/0", "pymongo"))
    assert 405 not in app.exceptions_handlers and 404 in app.exceptions_handlers

    async def teapot(app, request, exc):
        from blacksheep import Response

        return Response(418)

    app.exceptions_handlers[405] = teapot  # would answer, were the 405 raised as HTTPException(405)

    async def answers():
        await app.start()
        return [await _asgi_call(app, method, "/json") for method in ("POST", "HEAD", "GET")]

    (post, _), (head, _), get = asyncio.run(answers())
    assert (post, head) == (405, 405)
    assert get == (200, b'{"message":"Hello, World!"}')


@needs_emmett
def test_emmett_answers_rsgi_with_one_protocol_call_routes_per_method_and_serializes_with_orjson():
    """emmett.md: granian calls App.__rsgi__(scope, protocol) and the response is one call
    (protocol.response_str or response_bytes: status, headers and body at once), not ASGI messages.
    Emmett's router matches method and path together: a method a route does not list is its 404;
    HEAD listed gets the GET handler's headers without a body. Its JSON serializer is orjson's
    dumps (installed with the emmett extra): compact bytes."""
    import orjson
    from emmett import App
    from emmett.serializers import Serializers

    app = App(__name__)

    @app.route("/", methods=["get", "head"])
    async def hello():
        return "Hello, World!"

    assert _rsgi_call(app, "GET", "/") == [("response_str", 200, [("content-type", "text/plain")], "Hello, World!")]
    assert _rsgi_call(app, "HEAD", "/") == [("response_empty", 200, [("content-type", "text/plain")])]
    [(call, status, *_)] = _rsgi_call(app, "POST", "/")
    assert status == 404
    dumps = Serializers.get_for("json")
    assert dumps.func is orjson.dumps and dumps({"message": "Hello, World!"}) == b'{"message":"Hello, World!"}'


@needs("litestar")
def test_litestar_wraps_its_router_in_the_exception_middleware_which_answers_the_routers_404_and_405():
    """litestar.md: the app adds no middleware of its own, but Litestar always wraps its router in
    ExceptionHandlerMiddleware (Litestar._create_asgi_handler): the router's NotFoundException and
    MethodNotAllowedException become the app's exception handlers' answers there."""
    from litestar.middleware._internal.exceptions import ExceptionHandlerMiddleware

    from servers.apps import contract
    from servers.apps.litestar_app import create_app
    from servers.core.options import Options

    app = create_app(Options("lesson", "127.0.0.1", 8000, 1, "mongodb://127.0.0.1:1/test",
                             "redis://127.0.0.1:1/0", "pymongo"))
    assert not app.middleware  # none of the app's own
    assert isinstance(app.asgi_handler, ExceptionHandlerMiddleware) and app.asgi_handler.app is app.asgi_router

    async def answers():
        calls = [await _asgi_call(app, method, path) for method, path in (("GET", "/nowhere"), ("POST", "/json"))]
        app.asgi_handler = app.asgi_router  # without it, the router's exceptions leave the app
        with pytest.raises(Exception, match="Not Found"):
            await _asgi_call(app, "GET", "/nowhere")
        return calls

    (missing, missing_body), (post, post_body) = asyncio.run(answers())
    assert (missing, post) == (404, 405)
    assert json.loads(missing_body) == {"error": contract.NOT_FOUND}
    assert json.loads(post_body) == {"error": contract.METHOD_NOT_ALLOWED}


# Django is configured once per process (settings.configure): each mode runs in a child process.
_DJANGO_PROBE = r'''
import asyncio, json, sys, threading
from wsgiref.util import setup_testing_defaults

from django.middleware.security import SecurityMiddleware

from servers.core.options import Options

hooks = []
process_request = SecurityMiddleware.process_request


def spy(self, request):
    hooks.append(threading.current_thread().name)
    return process_request(self, request)


SecurityMiddleware.process_request = spy

responses = []  # each middleware's process_response, in the order they run


def response_spy(cls):
    real = cls.process_response

    def process_response(self, request, response):
        responses.append(cls.__name__)
        return real(self, request, response)
    cls.process_response = process_response


from django.middleware.clickjacking import XFrameOptionsMiddleware
from django.middleware.common import CommonMiddleware

from servers.apps.django_project import ContractErrorsMiddleware

for cls in (SecurityMiddleware, CommonMiddleware, XFrameOptionsMiddleware, ContractErrorsMiddleware):
    response_spy(cls)
options = Options("lesson", "127.0.0.1", 8000, 1, "mongodb://127.0.0.1:1/test", "redis://127.0.0.1:1/0", "pymongo")


async def asgi_get(app):
    started, sent = asyncio.Event(), []
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
             "path": "/", "raw_path": b"/", "query_string": b"", "root_path": "", "client": ("127.0.0.1", 1),
             "headers": [(b"host", b"127.0.0.1:8000")], "server": ("127.0.0.1", 8000)}

    async def receive():
        if not started.is_set():
            started.set()
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.Event().wait()  # the client never disconnects

    async def send(message):
        sent.append(message)

    await app(scope, receive, send)
    return sent[0]["status"], [name.decode().lower() for name, _ in sent[0]["headers"]]


def wsgi_get(app):
    environ, out = {}, {}
    setup_testing_defaults(environ)
    environ.update(PATH_INFO="/", HTTP_HOST="127.0.0.1:8000")
    b"".join(app(environ, lambda status, headers, exc=None: out.update(status=status, headers=headers)))
    return int(out["status"].split()[0]), [name.lower() for name, _ in out["headers"]]


if sys.argv[1] == "asgi":
    from servers.apps.django_asgi_app import create_app
    app = create_app(options)

    async def three():
        return [await asgi_get(app) for _ in range(3)]
    answers = asyncio.run(three())
else:
    from servers.apps.django_app import create_app
    app = create_app(options)
    answers = [wsgi_get(app) for _ in range(3)]
print(json.dumps({"caller": threading.current_thread().name, "hooks": hooks, "answers": answers,
                  "responses": responses}))
'''


@needs_django
@pytest.mark.parametrize("mode", ["wsgi", "asgi"])
def test_django_runs_its_middleware_hooks_in_a_new_thread_per_request_under_asgi(mode):
    """docs/frameworks/django.md: under ASGI, MiddlewareMixin runs process_request through
    sync_to_async, and each request's ThreadSensitiveContext gets an executor (a thread) of its own;
    under WSGI the hooks run in the server's thread. Django adds no Date and no Server header.
    django.md's way back out: process_response runs innermost first, the app's own, then
    XFrameOptionsMiddleware, CommonMiddleware (Content-Length), SecurityMiddleware."""
    done = subprocess.run([sys.executable, "-c", _DJANGO_PROBE, mode], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout)
    assert [status for status, _ in seen["answers"]] == [200, 200, 200]
    for _, names in seen["answers"]:
        assert "date" not in names and "server" not in names, names
    assert len(seen["hooks"]) == 3
    assert seen["responses"] == 3 * ["ContractErrorsMiddleware", "XFrameOptionsMiddleware", "CommonMiddleware",
                                     "SecurityMiddleware"], seen["responses"]
    if mode == "wsgi":
        assert set(seen["hooks"]) == {seen["caller"]}
    else:
        assert seen["caller"] not in seen["hooks"] and len(set(seen["hooks"])) == 3, seen["hooks"]


@needs("fastapi")
def test_fastapi_neither_validates_nor_serializes_with_pydantic_a_route_without_a_response_model(monkeypatch):
    """starlette-fastapi.md: the app's routes declare no response_model and no return annotation, so
    FastAPI gives them no response field: serialize_response validates nothing and hands the returned dict to
    jsonable_encoder (FastAPI's own walk of it), and JSONResponse's json.dumps writes the body; pydantic
    validates the path parameter only."""
    import fastapi.routing
    from fastapi.routing import APIRoute

    from servers.apps.fastapi_app import create_app
    from servers.core.options import Options

    app = create_app(Options("lesson", "127.0.0.1", 8000, 1, "mongodb://127.0.0.1:1/test",
                             "redis://127.0.0.1:1/0", "pymongo"))
    routes = [route for route in app.routes if isinstance(route, APIRoute)]
    assert routes and all(route.response_field is None for route in routes), [r.path for r in routes if r.response_field]
    encoded = []
    encoder = fastapi.routing.jsonable_encoder
    monkeypatch.setattr(fastapi.routing, "jsonable_encoder", lambda value, **kw: encoded.append(value) or encoder(value, **kw))
    status, body = asyncio.run(_asgi_call(app, "GET", "/json"))
    assert (status, body) == (200, b'{"message":"Hello, World!"}')
    assert encoded == [{"message": "Hello, World!"}]


@needs("falcon")
def test_falcon_compiles_its_routing_function_at_the_first_request_not_at_start_up():
    """falcon.md: CompiledRouter generates and compiles its routing function from the route templates when it
    first finds a route (add_route leaves _compile_and_find in its place, unless told compile=True); every
    later request runs the compiled function."""
    from wsgiref.util import setup_testing_defaults

    from servers.apps.falcon_app import create_app
    from servers.core.options import Options

    app = create_app(Options("lesson", "127.0.0.1", 8000, 1, "mongodb://127.0.0.1:1/test",
                             "redis://127.0.0.1:1/0", "pymongo"))
    router = app._router
    assert router._find == router._compile_and_find  # built, routes added: nothing compiled yet
    environ = {"PATH_INFO": "/json"}
    setup_testing_defaults(environ)
    body = b"".join(app(environ, lambda status, headers: None))
    assert body == b'{"message":"Hello, World!"}'
    compiled = router._find
    assert compiled != router._compile_and_find and compiled.__name__ == "find"  # Falcon's generated source
    app(dict(environ), lambda status, headers: None)
    assert router._find is compiled
