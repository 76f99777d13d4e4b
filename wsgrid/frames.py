"""RFC 6455 frames written and read by hand, for the probes and the contract tests: a probe must be able to
say what no well-behaved client says (a length of 2^63-1, a message that never ends), so no library here.

Client frames are masked (RFC 6455, 5.3); `declared` sets the header's length apart from the payload sent.
"""
from __future__ import annotations

import base64
import os
import socket
import struct
import threading
from dataclasses import dataclass

CONTINUATION, TEXT, BINARY, CLOSE, PING, PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA
GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def header(opcode: int, length: int, fin: bool = True, mask: bytes | None = b"\0\0\0\0", rsv1: bool = False) -> bytes:
    """A frame's header declaring `length` payload bytes (masked with `mask`, or unmasked when None)."""
    first = (0x80 if fin else 0) | (0x40 if rsv1 else 0) | opcode
    masked = 0x80 if mask is not None else 0
    if length < 126:
        head = struct.pack("!BB", first, masked | length)
    elif length < 1 << 16:
        head = struct.pack("!BBH", first, masked | 126, length)
    else:
        head = struct.pack("!BBQ", first, masked | 127, length)
    return head + (mask or b"")


def frame(opcode: int, payload: bytes = b"", fin: bool = True, rsv1: bool = False) -> bytes:
    """A whole client frame, masked with a zero key (the payload goes as is: XOR with zeros)."""
    return header(opcode, len(payload), fin, rsv1=rsv1) + payload


def close_payload(code: int, reason: bytes = b"") -> bytes:
    return struct.pack("!H", code) + reason


def handshake(host: str, port: int, path: str, extra: list[tuple[str, str]] = ()) -> bytes:
    key = base64.b64encode(os.urandom(16)).decode()
    lines = [f"GET {path} HTTP/1.1", f"Host: {host}:{port}", "Upgrade: websocket", "Connection: Upgrade",
             f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13", *(f"{k}: {v}" for k, v in extra)]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


class Closed(Exception):
    """The peer closed the TCP connection (or reset it) before a whole frame came."""


@dataclass
class Frame:
    fin: bool
    opcode: int
    payload: bytes

    @property
    def close_code(self) -> int | None:
        if self.opcode != CLOSE:
            return None
        return struct.unpack("!H", self.payload[:2])[0] if len(self.payload) >= 2 else 1005


class RawClient:
    """One TCP connection upgraded by hand; `status` is the handshake's answer status."""

    def __init__(self, host: str, port: int, path: str, timeout: float = 5.0,
                 extra: list[tuple[str, str]] = ()):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.buffer = b""
        self.sock.sendall(handshake(host, port, path, extra))
        head = self._until(b"\r\n\r\n")
        self.response_head = head.decode("latin-1")
        self.status = int(self.response_head.split(" ", 2)[1])

    def _fill(self) -> None:
        data = self.sock.recv(65536)
        if not data:
            raise Closed("connection closed")
        self.buffer += data

    def _until(self, marker: bytes) -> bytes:
        while marker not in self.buffer:
            self._fill()
        head, self.buffer = self.buffer.split(marker, 1)
        return head

    def _take(self, n: int) -> bytes:
        while len(self.buffer) < n:
            self._fill()
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def read_frame(self) -> Frame:
        try:
            first, second = self._take(2)
            length = second & 0x7F
            if length == 126:
                length = struct.unpack("!H", self._take(2))[0]
            elif length == 127:
                length = struct.unpack("!Q", self._take(8))[0]
            if second & 0x80:
                self._take(4)  # a server must not mask; read past it anyway
            return Frame(bool(first & 0x80), first & 0x0F, self._take(length))
        except (ConnectionResetError, BrokenPipeError) as exc:
            raise Closed(str(exc)) from exc

    def read_message(self) -> tuple[int, bytes]:
        """The next data message (pings answered, pongs skipped), reassembled; a close frame raises."""
        opcode, parts = None, []
        while True:
            f = self.read_frame()
            if f.opcode == PING:
                self.send(frame(PONG, f.payload))
                continue
            if f.opcode == PONG:
                continue
            if f.opcode == CLOSE:
                raise Closed(f"close {f.close_code}")
            opcode = f.opcode if opcode is None else opcode
            parts.append(f.payload)
            if f.fin:
                return opcode, b"".join(parts)

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass


def close_code_after(client: RawClient, timeout: float) -> int | None:
    """The code of the close frame the server sends next, skipping data and control frames; None if the
    connection ends without one or nothing comes within timeout."""
    client.sock.settimeout(timeout)
    try:
        while True:
            f = client.read_frame()
            if f.opcode == CLOSE:
                return f.close_code
    except (Closed, OSError):
        return None


def oversized_close_code(port: int, path: str, declared: int, timeout: float = 20.0,
                         host: str = "127.0.0.1") -> int | None:
    """Send one binary frame declaring `declared` bytes and then its payload, while a reader waits for the
    server's close frame: its code, or None. A server that refuses at the header and closes at once may reset
    the connection while the payload is still going; the reader has the close frame by then."""
    client = RawClient(host, port, path)
    if client.status != 101:
        client.close()
        raise Closed(f"the upgrade was answered {client.status}")
    seen: dict[str, int | None] = {}
    reader = threading.Thread(target=lambda: seen.update(code=close_code_after(client, timeout)))
    reader.start()
    try:
        client.send(header(BINARY, declared))
        left, chunk = declared, b"a" * (1 << 16)
        while left > 0:
            client.send(chunk[:left])
            left -= len(chunk)
    except OSError:
        pass
    reader.join(timeout + 5)
    client.close()
    return seen.get("code")
