"""The WebSocket routes of docs/websockets.md as Starlette writes them (its WebSockets docs): WebSocketRoute
endpoints that accept, then receive each message and send it back with send_text or send_bytes; /ws/broadcast
keeps the worker's open sockets in a set and sends each message to every one in turn (granian's benchmark
app). The framing, the size limit (uvicorn's --ws-max-size), pings and the 1009 close are the server's: the app
sees whole messages only.

Not yet a catalog entry (the catalog's operations ws-echo and ws-broadcast come with issue 47's next part):
tests/test_ws_contract.py serves it with uvicorn's command line, as uvicorn's docs run an app, with each of
uvicorn's WebSocket implementations (--ws websockets, websockets-sansio, wsproto).
"""
from __future__ import annotations

from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

_clients: set[WebSocket] = set()  # /ws/broadcast's sockets in this worker


async def _messages(websocket: WebSocket):
    """Each message as ASGI gives it (text or bytes), until the client goes."""
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return
        yield message


async def _send(websocket: WebSocket, message: dict) -> None:
    if message.get("text") is not None:
        await websocket.send_text(message["text"])
    else:
        await websocket.send_bytes(message.get("bytes") or b"")


async def echo(websocket: WebSocket) -> None:
    await websocket.accept()
    async for message in _messages(websocket):
        await _send(websocket, message)


async def broadcast(websocket: WebSocket) -> None:
    await websocket.accept()
    _clients.add(websocket)
    try:
        async for message in _messages(websocket):
            for client in list(_clients):
                try:
                    await _send(client, message)
                except (WebSocketDisconnect, RuntimeError):
                    _clients.discard(client)  # gone meanwhile; its own loop ends too
    finally:
        _clients.discard(websocket)


app = Starlette(routes=[WebSocketRoute("/ws/echo", echo), WebSocketRoute("/ws/broadcast", broadcast)])
