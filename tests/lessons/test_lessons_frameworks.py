"""What the framework pages say each step does, shown on the installed frameworks."""
from __future__ import annotations

import flask
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
