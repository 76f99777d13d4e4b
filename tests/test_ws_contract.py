"""The WebSocket contract (docs/websockets.md) on every catalog stack that serves it (Entry.ws_ops), driven by a real
client (Python's websockets) and, for what no client library sends, frames written by hand (wsgrid/frames.py).

On every stack: each message echoed with its opcode and bytes, a plain GET answered 4xx, each broadcast message
delivered to every client of the worker, the sender included. On each framing owner only (catalog.ws_owner: the
bare ASGI app on each ASGI server, a Go app with its library, Sanic and tornado on their own servers), since an ASGI
server frames, reassembles and limits every message before a framework sees it: fragments reassembled, pings
answered, the largest message the spec declares echoed and one byte more closed 1009 (in one frame and in
fragments), and what its spec says of permessage-deflate; what each library does with a bad version and a
cross-site Origin is recorded here (each library's default, not judged by the contract).

Each stack runs with one worker, so that every client of a broadcast meets the same set of sockets. Clients offer no
compression, as the contract's clients. A stack whose spec declares a caveat about these tests (the catalog's
caveats: daphne's and granian's) has them as expected failures (tests/caveats.py).
"""
from __future__ import annotations

import http.client
from contextlib import ExitStack

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from backends import redis_clients
from serverproc import ServerProcess
from servers.core import catalog
from wsgrid import frames

# One stack per app and server: the Mongo-driver and Redis-client variants run the same app on the same framing.
WS_STACKS = [e.name for e in catalog.ENTRIES if e.ws_ops and not e.free_threaded
             and e.mongo_driver == e.app_spec.mongo_driver and e.redis_client == redis_clients.DEFAULT]
OWNERS = [name for name in WS_STACKS if catalog.ws_owner(catalog.get(name)).name == name]


@pytest.fixture(params=WS_STACKS)
def stack(request, running_one_worker) -> ServerProcess:
    return running_one_worker(request.param)


@pytest.fixture(params=OWNERS)
def owner(request, running_one_worker) -> ServerProcess:
    return running_one_worker(request.param)


def ws_url(server: ServerProcess, path: str) -> str:
    return f"ws://127.0.0.1:{server.port}{path}"


def framing(server: ServerProcess):
    """The stack's WebSocket facts, as its spec declares them (servers/core/specs.py WebSocket)."""
    return catalog.get(server.name).websocket


def plain_get(server: ServerProcess, path: str, headers: dict | None = None) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    try:
        conn.request("GET", path, headers=headers or {})
        response = conn.getresponse()
        response.read()
        return response
    finally:
        conn.close()


# ------------------------------------------------------------------ every stack


def test_echo_keeps_opcode_and_bytes(stack):
    with connect(ws_url(stack, catalog.WS_OPERATIONS["ws-echo"]), compression=None) as ws:
        for message in ("héllo, wörld", b"\x00\xff\x00binary", "", b""):
            ws.send(message)
            try:
                answer = ws.recv(timeout=5)
            except TimeoutError:
                pytest.fail(f"{message!r} was never echoed")
            assert answer == message and type(answer) is type(message), (message, answer)


@pytest.mark.parametrize("operation", catalog.WS_OPS)
def test_a_plain_get_is_answered_4xx(stack, operation):
    status = plain_get(stack, catalog.WS_OPERATIONS[operation]).status
    assert 400 <= status < 500, status


def test_broadcast_reaches_every_client_the_sender_included(stack):
    with ExitStack() as clients_open:
        clients = [clients_open.enter_context(connect(ws_url(stack, catalog.WS_OPERATIONS["ws-broadcast"]),
                                                      compression=None)) for _ in range(3)]
        # The server joins a client once its upgrade is done; a first message from each client, delivered to
        # itself, says it has joined.
        for i, ws in enumerate(clients):
            hello = f"join {i}".encode()
            ws.send(hello)
            while ws.recv(timeout=5) != hello:
                pass
        for sender, message in ((0, b"from 0"), (2, "from 2")):
            clients[sender].send(message)
            for ws in clients:
                while (answer := ws.recv(timeout=5)) != message:
                    assert isinstance(answer, bytes) and answer.startswith(b"join"), answer  # joins may come first
                assert type(answer) is type(message)


# ------------------------------------------------------------------ each framing owner


def test_fragments_are_reassembled_and_pings_answered(owner):
    with connect(ws_url(owner, "/ws/echo"), compression=None) as ws:
        ws.send(["frag", "ment", "ed"])  # one text message in three frames
        assert ws.recv(timeout=5) == "fragmented"
        ws.send([b"\x01", b"\x02"])
        assert ws.recv(timeout=5) == b"\x01\x02"
        assert ws.ping(b"are you there").wait(5)


def _pieces(size: int, frame: int | None) -> list[bytes]:
    """A message of `size` bytes in frames no larger than `frame` (None: one frame)."""
    message = bytes(range(256)) * (size // 256) + b"\x00" * (size % 256)
    step = frame or size
    return [message[i:i + step] for i in range(0, size, step)]


def test_the_largest_message_is_echoed(owner):
    facts = framing(owner)
    pieces = _pieces(facts.max_message, facts.max_frame)
    with connect(ws_url(owner, "/ws/echo"), max_size=None, max_queue=None, compression=None) as ws:
        ws.send(pieces if len(pieces) > 1 else pieces[0])
        assert ws.recv(timeout=60) == b"".join(pieces)


def test_a_message_over_the_limit_is_closed_1009(owner):
    assert frames.oversized_close_code(owner.port, "/ws/echo", framing(owner).max_message + 1) == 1009


def test_a_fragmented_message_over_the_limit_is_closed_1009(owner):
    facts = framing(owner)
    with connect(ws_url(owner, "/ws/echo"), max_size=None, compression=None) as ws:
        try:
            ws.send(_pieces(facts.max_message, min(facts.max_frame or facts.max_message, facts.max_message // 2))
                    + [b"!"])
            ws.recv(timeout=30)
        except ConnectionClosed as closed:
            assert closed.rcvd is not None and closed.rcvd.code == 1009, closed
        else:
            pytest.fail(f"a message of {facts.max_message} + 1 bytes in fragments was echoed")


def test_permessage_deflate_as_the_spec_says(owner):
    client = frames.RawClient("127.0.0.1", owner.port, "/ws/echo",
                              extra=[("Sec-WebSocket-Extensions", "permessage-deflate")])
    client.close()
    accepted = "permessage-deflate" in client.response_head.lower().partition("sec-websocket-extensions:")[2]
    assert client.status == 101 and accepted == framing(owner).deflate, client.response_head


# What each framing answers a bad Sec-WebSocket-Version and a cross-site Origin with, as its spec records it
# (each library's default: the contract keeps it, docs/websockets.md's table shows it).


def test_a_bad_version_is_refused_as_the_spec_says(owner):
    response = plain_get(owner, "/ws/echo", {"Upgrade": "websocket", "Connection": "Upgrade",
                                             "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
                                             "Sec-WebSocket-Version": "12"})
    assert (response.status, response.getheader("Sec-WebSocket-Version")) == framing(owner).bad_version


def test_a_cross_site_origin_as_the_spec_says(owner):
    client = frames.RawClient("127.0.0.1", owner.port, "/ws/echo", extra=[("Origin", "http://elsewhere.example")])
    client.close()
    assert client.status == (403 if framing(owner).checks_origin else 101), client.response_head


def test_every_stack_that_serves_websockets_has_an_owner_that_is_tested():
    """The owners stand for the stacks on their framing: each stack's owner is among them (no network)."""
    assert {catalog.ws_owner(catalog.get(name)).name for name in WS_STACKS} <= set(OWNERS)
    assert {"bare_asgi_uvicorn", "bare_asgi_granian", "sanic", "tornado", "nethttp", "echo"} <= set(OWNERS)
