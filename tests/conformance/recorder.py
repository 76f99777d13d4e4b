"""A tiny recording upstream: what a front forwards, byte for byte, and how the front framed it.

Recorder listens on a free loopback port and keeps every byte each connection brings. It answers
every complete request it reads (200, a 2-byte body, keep-alive) so a front goes on to forward the
next one. Its reader, messages(), takes only what a front is expected to emit (a request line,
field lines, then a Content-Length body, a chunked body or none) and stops at anything else: what
it cannot frame is left as the rest, which is a finding of its own (the front forwarded bytes
whose framing even a strict reader cannot settle).
"""
from __future__ import annotations

import re
import socket
import threading
from dataclasses import dataclass

from processes.ports import free_port

ANSWER = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n\r\nok"
_SIZE = re.compile(rb"([0-9A-Fa-f]{1,16})(;[^\r\n]*)?")


@dataclass
class Message:
    head: bytes  # request line and field lines, without the blank line
    body: bytes  # the body as framed on the wire (chunked: the chunks, terminator and trailers included)

    def fields(self, name: bytes) -> list[bytes]:
        lines = self.head.split(b"\r\n")[1:]
        return [line.partition(b":")[2].strip() for line in lines if line.partition(b":")[0].lower() == name]


def messages(data: bytes) -> tuple[list[Message], bytes]:
    """The complete requests at the start of data, as a strict reader frames them, and the rest."""
    found: list[Message] = []
    pos = 0
    while pos < len(data):
        end = data.find(b"\r\n\r\n", pos)
        if end < 0:
            break
        message = Message(data[pos:end], b"")
        start = end + 4
        coding, length = message.fields(b"transfer-encoding"), message.fields(b"content-length")
        if coding:
            if [c.lower() for c in coding] != [b"chunked"] or length:
                break
            stop = _chunked_end(data, start)
            if stop < 0:
                break
        elif length:
            if len(length) != 1 or not length[0].isdigit():
                break
            stop = start + int(length[0])
            if stop > len(data):
                break
        else:
            stop = start
        message.body = data[start:stop]
        found.append(message)
        pos = stop
    return found, data[pos:]


def _chunked_end(data: bytes, pos: int) -> int:
    while True:
        end = data.find(b"\r\n", pos)
        size = _SIZE.fullmatch(data[pos:end]) if end >= 0 else None
        if size is None:
            return -1
        pos = end + 2
        if int(size.group(1), 16) == 0:
            end = data.find(b"\r\n\r\n", pos - 2)
            return end + 4 if end >= 0 else -1
        pos += int(size.group(1), 16)
        if data[pos:pos + 2] != b"\r\n":
            return -1
        pos += 2


class Recorder:
    """start() -> listening on self.port; self.connections: the bytes of each accepted connection."""

    def __init__(self):
        self.port = free_port()
        self.connections: list[bytearray] = []
        self._sock = socket.create_server(("127.0.0.1", self.port))
        self._lock = threading.Lock()

    def start(self) -> "Recorder":
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def clear(self) -> None:
        """Forget what was recorded so far (a front keeps its upstream connections open across cases)."""
        with self._lock:
            for kept in self.connections:
                kept.clear()

    def forwarded(self) -> list[bytes]:
        with self._lock:
            return [bytes(c) for c in self.connections if c]

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            with self._lock:
                self.connections.append(bytearray())
                kept = self.connections[-1]
            threading.Thread(target=self._serve, args=(conn, kept), daemon=True).start()

    def _serve(self, conn: socket.socket, kept: bytearray) -> None:
        pending = b""  # what this connection sent that is not answered yet
        with conn:
            conn.settimeout(5.0)
            while True:
                try:
                    block = conn.recv(65536)
                except OSError:
                    return
                if not block:
                    return
                with self._lock:
                    kept.extend(block)
                done, rest = messages(pending + block)
                pending = rest
                try:
                    conn.sendall(ANSWER * len(done))
                except OSError:
                    return

    def stop(self) -> None:
        self._sock.close()
