"""What the HTTP/2 sections of the server pages say of one connection's streams, shown on the installed servers:
gunicorn's gthread worker keeps a pool thread for each open HTTP/2 connection and answers its streams one after
another; gunicorn's ASGI worker runs them at the same time (tests/h2client.py on python-hyper's h2)."""
from __future__ import annotations


import pytest

from h2client import H2Connection
from servers.core import catalog
from servers.adapters.sizing import THREADS_PER_WORKER


def _mongo(backends) -> None:
    ensure = getattr(backends, "ensure", None)  # lazily started backends (issue 36); else already up
    if ensure is not None:
        ensure("mongo")


@pytest.mark.parametrize("name, together", [("flask_gunicorn_gthread", False), ("flask_gunicorn_gevent", False),
                                            ("starlette_gunicorn_asgi", True), ("starlette_hypercorn", True),
                                            ("starlette_uvicorn", True), ("flask_twisted", True)])
def test_one_connections_streams_are_answered_in_turn_or_together(name, together, start_server, backends):
    """Stream 1 asks for /mongo/per-request/1 (a new Mongo connection: tens of ms), stream 3 for /json, both sent
    before either is answered: gthread and gevent answer stream 1 first, in turn; the ASGI servers and twisted's
    WSGI pool answer /json while stream 1 still waits on Mongo (twisted over TLS: it has no h2c)."""
    from harness import tls

    _mongo(backends)
    over_tls = not catalog.get(name).http2.cleartext
    pair = tls.ensure()
    server = start_server(name, ["--workers", "1", "--http2", *(pair.server_flags() if over_tls else [])])
    conn = H2Connection(server.port, pair.client_context() if over_tls else None).open()
    try:
        slow, fast = conn.get(["/mongo/per-request/1", "/json"])
    finally:
        conn.close()
    assert slow.status == fast.status == 200, (slow, fast)
    assert conn.ended == ([fast.stream_id, slow.stream_id] if together else [slow.stream_id, fast.stream_id])


def test_gthread_holds_a_pool_thread_for_each_open_http2_connection(start_server):
    """gunicorn-gthread.md: while THREADS_PER_WORKER HTTP/2 connections are open and not idle (a PING now and then),
    one more connection's request is not answered; once they fall idle, each is closed after keepalive (2 s) and
    the waiting one is served."""
    server = start_server("flask_gunicorn_gthread", ["--workers", "1", "--http2"])
    held = [H2Connection(server.port).open() for _ in range(THREADS_PER_WORKER)]
    late = H2Connection(server.port)
    try:
        for conn in held:
            conn.get(["/"])  # each now served by a pool thread
        late.open()
        (stream,) = late.send(["/json"])
        waited = 0.0
        while waited < 3.0:  # the held connections kept busy: no thread for the late one
            for conn in held:
                conn.ping()
            assert not late.answered([stream], within=0.3), "answered while every pool thread held a connection"
            waited += 0.3
        assert late.answered([stream], within=15.0), "not answered once the held connections fell idle"
        assert late.answers[stream].status == 200
    finally:
        late.close()
        for conn in held:
            conn.close()
