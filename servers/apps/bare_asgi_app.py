"""The bare ASGI app: a plain ASGI application callable, no framework, for the server-alone rows.

Written as the ASGI specification writes an application: `async def app(scope, receive, send)`,
answering the lifespan protocol's startup and shutdown, and an HTTP request with one
`http.response.start` and one `http.response.body` message. It answers the hello part of the route
contract (`/`, `/json`, 404, 405 with Allow; JSON is json.dumps, compact, inside each request), and,
as the ASGI servers' parser owner, `/reflect` (any method) with what the server handed it
(servers/apps/reflection.py): the body is every `http.request` message's body until `more_body` is
false, the target `raw_path` (`path` encoded, where the server gives no raw_path) with `?` and
`query_string`, the headers the scope's raw (name, value) pairs. A HEAD answer carries the GET
answer's headers and no body.

The WebSocket routes (docs/websockets.md) as the ASGI specification writes a websocket scope: `websocket.accept`,
then each `websocket.receive` event sent back as a `websocket.send` with its text or bytes; /ws/broadcast sends
each to every `send` of the worker's open sockets (granian's benchmark app). The framing, the size limit, pings
and the 1009 close are the server's: the app sees whole messages only, so these stacks stand for the server's
WebSockets (catalog.ws_owner). Any other path closes the handshake (a 403 from the server).
"""
from __future__ import annotations

import json
from typing import Any, Awaitable, Callable

from servers.apps import contract, reflection
from servers.core.options import Options

Receive = Callable[[], Awaitable[dict]]
Send = Callable[[dict], Awaitable[None]]

_ALLOW = ", ".join(contract.ALLOWED_METHODS).encode()


def _json(value: dict) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


async def app(scope: dict, receive: Receive, send: Send) -> None:
    if scope["type"] == "lifespan":
        await lifespan(receive, send)
    elif scope["type"] == "http":
        await http(scope, receive, send)
    elif scope["type"] == "websocket":
        await websocket(scope, receive, send)


_BROADCAST: set[Send] = set()  # /ws/broadcast's open sockets in this worker, by their send callable


async def websocket(scope: dict, receive: Receive, send: Send) -> None:
    path = scope["path"]
    if (await receive())["type"] != "websocket.connect" or path not in (contract.WS_ECHO, contract.WS_BROADCAST):
        await send({"type": "websocket.close", "code": 1000})  # before accept: the server refuses the handshake
        return
    await send({"type": "websocket.accept"})
    peers = _BROADCAST if path == contract.WS_BROADCAST else {send}
    peers.add(send)
    try:
        while (message := await receive())["type"] == "websocket.receive":
            out = {"type": "websocket.send", **({"text": message["text"]} if message.get("text") is not None
                                                 else {"bytes": message.get("bytes") or b""})}
            for peer in list(peers):
                try:
                    await peer(out)
                except Exception:  # that peer went meanwhile (each server raises its own kind): its loop ends too
                    peers.discard(peer)
    finally:
        peers.discard(send)


async def lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


async def http(scope: dict, receive: Receive, send: Send) -> None:
    path, method = scope["path"], scope["method"]
    if reflection.is_reflect(path):
        return await reflect(scope, receive, send)
    headers: list[tuple[bytes, bytes]] = []
    if path == "/":
        status, content_type, body = 200, contract.TEXT, contract.HELLO.encode()
    elif path == "/json":
        status, content_type, body = 200, contract.JSON, _json({"message": contract.HELLO})
    else:
        status, content_type, body = 404, contract.JSON, _json({"error": contract.NOT_FOUND})
    if status == 200 and method not in contract.ALLOWED_METHODS:
        status, content_type = 405, contract.JSON
        body = _json({"error": contract.METHOD_NOT_ALLOWED})
        headers.append((b"allow", _ALLOW))
    await respond(send, method, status, [(b"content-type", content_type.encode()), *headers], body)


async def reflect(scope: dict, receive: Receive, send: Send) -> None:
    """The reflection route: the body read message by message, as the server hands it over."""
    body = bytearray()
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return  # the client is gone: nothing to answer
        body += message.get("body", b"")
        if not message.get("more_body", False):
            break
    target, target_from = scope.get("raw_path"), "raw_path"
    if target is None:  # optional in ASGI: the decoded path, quoted back
        target, target_from = reflection.quoted(scope["path"].encode("utf-8")).encode(), "path"
    if scope.get("query_string"):
        target, target_from = target + b"?" + scope["query_string"], target_from + "+query_string"
    x_reflect, answer = reflection.answer("asgi", scope["method"], target, scope.get("http_version"),
                                          scope["headers"], bytes(body), target_from)
    await respond(send, scope["method"], 200,
                  [(b"content-type", contract.JSON.encode()), (reflection.HEADER.lower().encode(),
                                                               x_reflect.encode("latin-1"))], answer)


async def respond(send: Send, method: str, status: int, headers: list[tuple[bytes, bytes]], body: bytes) -> None:
    headers.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": b"" if method == "HEAD" else body})


def create_app(options: Options) -> Any:
    """The same callable for any options: it touches no backend."""
    return app
