"""/json is serialized inside each request, by every Python app on each interpreter (TechEmpower's JSON rule).

How it is shown: the entry runs as a real process (its real server, workers and framework) with
tests/json_spy on PYTHONPATH. That directory's sitecustomize wraps json.dumps, ujson.dumps and
orjson.dumps, which every Python app's JSON machinery ends in (Flask's provider, Falcon's JSONHandler,
Sanic's default dumps, BlackSheep's json settings, Emmett's serializer (orjson),
tornado's, twisted's, http.server's and the bare app's json.dumps), and counts the
calls that serialize {"message": "Hello, World!"} in a file shared by all the server's processes.
N requests must make exactly N such calls: a body built once at import (or cached) makes fewer,
at most one per worker. The wrapper passes every call through unchanged, so the servers run the
code path they run without it; no server code knows about the spy.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from servers.core import catalog
from serverproc import ServerProcess, backend_args

SPY_DIR = Path(__file__).resolve().parent / "json_spy"
HELLO_JSON = b'{"message":"Hello, World!"}'
REQUESTS = 12


# The fact lives in the app (its framework's JSON machinery), on each interpreter it runs on: one entry per
# app and interpreter shows it (the servers hand the app's bytes on; none builds a body itself).
ONE_PER_APP = list({(e.app, e.interpreter): e.name for e in reversed(catalog.python_entries()) if "json" in e.ops}.values())[::-1]


@pytest.mark.parametrize("name", ONE_PER_APP)
def test_json_is_serialized_once_per_request(name, backends, tmp_path):
    calls = tmp_path / "json-calls"
    pythonpath = os.pathsep.join(filter(None, [str(SPY_DIR), os.environ.get("PYTHONPATH")]))
    server = ServerProcess(name, backend_args(backends), env={"PYTHONPATH": pythonpath,
                                                              "REFSUITE_JSON_SPY": str(calls)})
    server.start()
    try:
        assert calls.exists(), "tests/json_spy/sitecustomize.py was not imported by the server"
        before = calls.stat().st_size
        assert before == 0, f"{name} serialized the /json value {before} times before any request"
        for _ in range(REQUESTS):
            response, body = server.request("/json")
            assert (response.status, body) == (200, HELLO_JSON)
        assert calls.read_bytes() == b"." * REQUESTS, f"{name}: {REQUESTS} requests to /json"
    finally:
        server.stop()
