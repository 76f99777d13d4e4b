"""The WebSocket contract (docs/websockets.md) on the Go stacks and on Starlette under uvicorn, driven by a real
client (Python's websockets) and, for what no client library sends, frames written by hand (wsgrid/frames.py):
each message echoed with its opcode, fragments reassembled, pings answered, 16 MiB echoed and one byte more closed
1009, a plain GET answered 4xx, each broadcast message delivered to every client of the worker, the sender
included; and what each library does by default with a bad version and a cross-site Origin.

net/http serves the routes with coder/websocket, Echo and Gin with gorilla/websocket, fasthttp with
fasthttp/websocket (servers/go/internal/wsroutes, cmd/fasthttp/ws.go). Starlette's app
(servers/apps/starlette_ws_app.py) is not a catalog entry yet: it is served here by uvicorn's command line with each
of uvicorn's WebSocket implementations and --ws-max-size at the contract's 16 MiB (uvicorn's default too).
Clients offer no compression, as the contract's clients.
"""
from __future__ import annotations

import http.client
import socket
import subprocess
import sys
import time
from contextlib import ExitStack

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from processes.ports import free_port
from processes.tree import stop
from serverproc import ROOT
from wsgrid import frames

# The WebSocket library each Go stack serves with (until the specs declare it: issue 47's catalog work), and
# uvicorn's --ws implementations; the library, not the stack, is what the expectations below are about.
GO_LIBRARIES = {"coder/websocket": ("nethttp",), "gorilla/websocket": ("echo", "gin"),
                "fasthttp/websocket": ("fasthttp",)}
GO_STACKS = tuple(stack for stacks in GO_LIBRARIES.values() for stack in stacks)
UVICORN_WS = ("websockets", "websockets-sansio", "wsproto")  # uvicorn --ws


def library(stack: str) -> str:
    """The WebSocket implementation a stack of this module serves with."""
    if stack.startswith("starlette_uvicorn_"):
        return "uvicorn --ws " + stack.removeprefix("starlette_uvicorn_")
    return next(name for name, stacks in GO_LIBRARIES.items() if stack in stacks)
LIMIT = 16 << 20


def ws_url(server, path: str) -> str:
    return f"ws://127.0.0.1:{server.port}{path}"


class Uvicorn:
    """Starlette's WebSocket app under uvicorn's command line, one --ws implementation."""

    def __init__(self, ws: str):
        self.port = free_port()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "servers.apps.starlette_ws_app:app", "--port", str(self.port),
             "--ws", ws, "--ws-max-size", str(LIMIT), "--no-access-log", "--log-level", "warning"],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and self.proc.poll() is None:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.1)
        stop(self.proc)
        raise RuntimeError(f"uvicorn --ws {ws} did not start: {self.proc.stderr.read()[-1000:]}")


@pytest.fixture(scope="module")
def uvicorns():
    started: dict[str, Uvicorn] = {}
    yield lambda ws: started.get(ws) or started.setdefault(ws, Uvicorn(ws))
    for server in started.values():
        stop(server.proc)


@pytest.fixture(params=[*GO_STACKS, *(f"starlette_uvicorn_{ws}" for ws in UVICORN_WS)])
def server(request, running, uvicorns):
    if request.param.startswith("starlette_uvicorn_"):
        return uvicorns(request.param.removeprefix("starlette_uvicorn_"))
    return running(request.param)


def test_echo_keeps_opcode_and_bytes(server):
    with connect(ws_url(server, "/ws/echo"), compression=None) as ws:
        for message in ("héllo, wörld", "", b"\x00\xff\x00binary", b""):
            ws.send(message)
            answer = ws.recv(timeout=5)
            assert answer == message and type(answer) is type(message), (message, answer)


def test_fragments_are_reassembled_and_pings_answered(server):
    with connect(ws_url(server, "/ws/echo"), compression=None) as ws:
        ws.send(["frag", "ment", "ed"])  # one text message in three frames
        assert ws.recv(timeout=5) == "fragmented"
        ws.send([b"\x01", b"\x02"])
        assert ws.recv(timeout=5) == b"\x01\x02"
        assert ws.ping(b"are you there").wait(5)


def test_a_message_of_the_limit_is_echoed(server):
    with connect(ws_url(server, "/ws/echo"), max_size=None, max_queue=None, compression=None) as ws:
        message = bytes(range(256)) * (LIMIT // 256)
        ws.send(message)
        assert ws.recv(timeout=30) == message


def test_a_message_over_the_limit_is_closed_1009(server):
    assert frames.oversized_close_code(server.port, "/ws/echo", LIMIT + 1) == 1009


def test_a_fragmented_message_over_the_limit_is_closed_1009(server):
    with connect(ws_url(server, "/ws/echo"), max_size=None, compression=None) as ws:
        half = b"x" * (LIMIT // 2)
        try:
            ws.send([half, half, b"!"])
            ws.recv(timeout=20)
        except ConnectionClosed as closed:
            assert closed.rcvd is not None and closed.rcvd.code == 1009, closed
        else:
            pytest.fail("a message of 16 MiB + 1 in three fragments was echoed")


@pytest.mark.parametrize("path", ["/ws/echo", "/ws/broadcast"])
def test_a_plain_get_is_answered_4xx(server, path):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
    finally:
        conn.close()
    assert 400 <= response.status < 500, response.status


# What docs/websockets.md says of a bad Sec-WebSocket-Version: RFC 6455's 426 with the version the server speaks
# from uvicorn's wsproto alone; 400 with it from coder/websocket and gorilla/websocket; 400 without from
# fasthttp/websocket and uvicorn's websockets implementations.
BAD_VERSION = {"coder/websocket": (400, "13"), "gorilla/websocket": (400, "13"), "fasthttp/websocket": (400, None),
               "uvicorn --ws websockets": (400, None), "uvicorn --ws websockets-sansio": (400, None),
               "uvicorn --ws wsproto": (426, "13")}


def test_a_bad_version_is_refused(server, request):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    try:
        conn.request("GET", "/ws/echo", headers={"Upgrade": "websocket", "Connection": "Upgrade",
                                                 "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
                                                 "Sec-WebSocket-Version": "12"})
        response = conn.getresponse()
        response.read()
    finally:
        conn.close()
    stack = request.node.callspec.params["server"]
    assert (response.status, response.getheader("Sec-WebSocket-Version")) == BAD_VERSION[library(stack)]


# A cross-site Origin: the Go libraries refuse it by default (403), uvicorn's implementations and Starlette's app
# check nothing (101). Recorded, not judged: the contract keeps each library's default.
CROSS_ORIGIN = {"coder/websocket": 403, "gorilla/websocket": 403, "fasthttp/websocket": 403}


def test_a_cross_site_origin_as_each_library_defaults(server, request):
    client = frames.RawClient("127.0.0.1", server.port, "/ws/echo", extra=[("Origin", "http://elsewhere.example")])
    client.close()
    assert client.status == CROSS_ORIGIN.get(library(request.node.callspec.params["server"]), 101), client.response_head


def test_broadcast_reaches_every_client_the_sender_included(server):
    with ExitStack() as stack:
        clients = [stack.enter_context(connect(ws_url(server, "/ws/broadcast"), compression=None)) for _ in range(3)]
        # The server joins a client once its upgrade is done; a first message from each client, delivered to
        # itself, says it has joined.
        for i, ws in enumerate(clients):
            hello = f"join {i}".encode()
            ws.send(hello)
            while ws.recv(timeout=5) != hello:
                pass
        for sender in (0, 2):
            message = f"from {sender}".encode()
            clients[sender].send(message)
            for ws in clients:
                while (answer := ws.recv(timeout=5)) != message:
                    assert answer.startswith(b"join"), answer  # only the join messages may come first
