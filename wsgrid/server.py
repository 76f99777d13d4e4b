"""The probe bed's own WebSocket server (docs/websockets.md): /ws/echo on asyncio with the framing by hand,
started correct or faulty, so that every attack probe is first shown to tell a bounded server from an
unbounded one.

correct: a message is at most LIMIT bytes, checked against each frame's declared length before its payload
is read, and after inflating (permessage-deflate, inflated with a cap): over it, close 1009; a message of more
than MAX_FRAGMENTS frames is closed 1009 too; every write (pongs included) waits for the transport to drain,
so a peer that does not read stops being read; the loop yields after each frame.

faulty (each defect one the issue's probes look for): reads whatever length a header declares, reassembles
fragments without a limit or a count (keeping a record of every frame until the message ends), inflates
without a cap, answers every ping without waiting for the peer to read the pongs, and never yields while
frames are buffered.

`python -m wsgrid.server --mode faulty --port N` prints `listening on http://127.0.0.1:N (wsgrid-faulty)`.
"""
from __future__ import annotations

import argparse
import asyncio
import base64
import hashlib
import struct
import zlib
from dataclasses import dataclass

from wsgrid.frames import BINARY, CLOSE, CONTINUATION, GUID, PING, PONG, TEXT

LIMIT = 16 << 20
MAX_FRAGMENTS = 1024
MODES = ("correct", "faulty")
DEFLATE_TAIL = b"\x00\x00\xff\xff"  # RFC 7692, 7.2.2: the tail a sender strips from each message


class Refused(Exception):
    def __init__(self, code: int):
        self.code = code


def unmask(payload: bytes, key: bytes) -> bytes:
    if not payload:
        return payload
    n = len(payload)
    stream = (key * (n // 4 + 1))[:n]
    return (int.from_bytes(payload, "little") ^ int.from_bytes(stream, "little")).to_bytes(n, "little")


def frame(opcode: int, payload: bytes) -> bytes:
    n = len(payload)
    if n < 126:
        head = struct.pack("!BB", 0x80 | opcode, n)
    elif n < 1 << 16:
        head = struct.pack("!BBH", 0x80 | opcode, 126, n)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 127, n)
    return head + payload


@dataclass
class Fragment:
    """What the faulty server keeps of each frame of a message until it ends."""

    fin: bool
    opcode: int
    rsv1: bool
    payload: bytes


class Connection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, correct: bool, deflate: bool):
        self.reader, self.writer, self.correct, self.deflate = reader, writer, correct, deflate

    async def send(self, data: bytes) -> None:
        self.writer.write(data)
        if self.correct:
            await self.writer.drain()

    async def serve(self) -> None:
        opcode, parts, size, compressed = None, [], 0, False
        while True:
            b1, b2 = await self.reader.readexactly(2)
            fin, rsv1, op, length = bool(b1 & 0x80), bool(b1 & 0x40), b1 & 0x0F, b2 & 0x7F
            if length == 126:
                length = struct.unpack("!H", await self.reader.readexactly(2))[0]
            elif length == 127:
                length = struct.unpack("!Q", await self.reader.readexactly(8))[0]
            if not b2 & 0x80:
                raise Refused(1002)  # a client frame must be masked
            key = await self.reader.readexactly(4)
            if op >= 0x8:
                if length > 125 or not fin:
                    raise Refused(1002)
                payload = unmask(await self.reader.readexactly(length), key)
                if op == PING:
                    await self.send(frame(PONG, payload))
                elif op == CLOSE:
                    await self.send(frame(CLOSE, payload[:2]))
                    return
                continue
            if op not in (TEXT, BINARY, CONTINUATION) or (op == CONTINUATION) != (opcode is not None):
                raise Refused(1002)
            if self.correct:
                if size + length > LIMIT or len(parts) >= MAX_FRAGMENTS:
                    raise Refused(1009)
            if opcode is None:
                opcode, compressed = op, rsv1 and self.deflate
            payload = unmask(await self.reader.readexactly(length), key)
            parts.append(payload if self.correct else Fragment(fin, op, rsv1, payload))
            size += length
            if self.correct:
                await asyncio.sleep(0)  # a peer with frames buffered does not keep the loop
            if not fin:
                continue
            message = b"".join(parts if self.correct else (f.payload for f in parts))
            if compressed:
                message = self.inflate(message)
            await self.send(frame(opcode, message))
            opcode, parts, size, compressed = None, [], 0, False

    def inflate(self, data: bytes) -> bytes:
        if not self.correct:
            return zlib.decompressobj(-15).decompress(data + DEFLATE_TAIL)  # no max_length: no cap
        inflater = zlib.decompressobj(-15)
        out = inflater.decompress(data + DEFLATE_TAIL, LIMIT + 1)
        if len(out) > LIMIT or inflater.unconsumed_tail:
            raise Refused(1009)
        return out


def accept_key(key: str) -> str:
    return base64.b64encode(hashlib.sha1(key.encode() + GUID).digest()).decode()


async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, correct: bool) -> None:
    try:
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
        request_line, *lines = head.split("\r\n")
        headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines if line)}
        path = request_line.split(" ")[1] if request_line.count(" ") >= 2 else ""
        if path != "/ws/echo":
            writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            return
        if headers.get("upgrade", "").lower() != "websocket" or "sec-websocket-key" not in headers:
            writer.write(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            return
        if headers.get("sec-websocket-version") != "13":
            writer.write(b"HTTP/1.1 426 Upgrade Required\r\nSec-WebSocket-Version: 13\r\nContent-Length: 0\r\n"
                         b"Connection: close\r\n\r\n")
            return
        deflate = "permessage-deflate" in headers.get("sec-websocket-extensions", "")
        answer = ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Accept: {accept_key(headers['sec-websocket-key'])}\r\n")
        if deflate:
            answer += ("Sec-WebSocket-Extensions: permessage-deflate; client_no_context_takeover; "
                       "server_no_context_takeover\r\n")
        writer.write((answer + "\r\n").encode())
        connection = Connection(reader, writer, correct, deflate)
        try:
            await connection.serve()
        except Refused as refused:
            writer.write(frame(CLOSE, struct.pack("!H", refused.code)))
            await writer.drain()
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError, ValueError, IndexError):
        pass
    finally:
        writer.close()


async def serve(port: int, mode: str) -> None:
    correct = mode == "correct"
    server = await asyncio.start_server(lambda r, w: handle(r, w, correct), "127.0.0.1", port)
    print(f"listening on http://127.0.0.1:{port} (wsgrid-{mode})", flush=True)
    async with server:
        await server.serve_forever()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m wsgrid.server", description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=MODES, default="correct")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args(argv)
    try:
        asyncio.run(serve(args.port, args.mode))
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
