"""A raw HTTP/2 connection for the attack probes: loopback only, TLS with ALPN h2 or cleartext prior
knowledge, frames serialized by hyperframe and header blocks by hpack (python-hyper's, what Hypercorn and
Twisted parse with), so a probe can send what no well-behaved client would.

What the server sends back is read without blocking and parsed only as far as the frame headers plus a
GOAWAY's error code and debug data: the probes count what the server answered, never act on it.
"""
from __future__ import annotations

import ipaddress
import select
import socket
import ssl
from collections import Counter
from dataclasses import dataclass, field

import hpack
from hyperframe.frame import Frame, GoAwayFrame, HeadersFrame, RstStreamFrame, SettingsFrame

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
FRAME_HEADER = 9
MAX_READ = 1 << 20  # per read call


class Closed(ConnectionError):
    """The server closed or reset the connection."""


def require_loopback(host: str) -> None:
    """The probes attack loopback only (a typo must not aim them at another machine)."""
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = host == "localhost"
    if not loopback:
        raise ValueError(f"{host} is not a loopback address: the HTTP/2 probes run on 127.0.0.1 or ::1 only")


@dataclass
class Received:
    """What the server sent on one connection: frames by type, GOAWAY error codes, how it ended."""

    frames: Counter = field(default_factory=Counter)
    rst_codes: Counter = field(default_factory=Counter)
    goaway: str = ""  # the error code's name (and debug data) of the first GOAWAY, "" without one
    bytes: int = 0


def error_name(code: int) -> str:
    try:
        from h2.errors import ErrorCodes
        return ErrorCodes(code).name
    except ValueError:
        return f"0x{code:x}"


class RawConnection:
    """One HTTP/2 connection: preface and SETTINGS sent by start(), then whatever the probe sends."""

    def __init__(self, host: str, port: int, tls: bool, ca_file: str = "", timeout: float = 5.0):
        require_loopback(host)
        self.host, self.port, self.tls = host, port, tls
        sock = socket.create_connection((host, port), timeout=timeout)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if tls:
            context = ssl.create_default_context(cafile=ca_file or None)
            context.set_alpn_protocols(["h2"])
            sock = context.wrap_socket(sock, server_hostname=host)
            if sock.selected_alpn_protocol() != "h2":
                sock.close()
                raise ConnectionError(f"{host}:{port} did not select h2 by ALPN ({sock.selected_alpn_protocol()})")
        self.sock = sock
        self.received = Received()
        self._buffer = bytearray()
        self.encoder = hpack.Encoder()
        self.next_stream_id = 1
        self.state: dict = {}  # an attack's own per-connection state (its opening sets it)

    @property
    def authority(self) -> str:
        return f"{self.host}:{self.port}"

    def start(self, settings: dict[int, int] | None = None) -> None:
        self.send(PREFACE + SettingsFrame(0, settings=settings or {}).serialize())

    def stream_id(self) -> int:
        """The next client stream id (odd, increasing)."""
        sid = self.next_stream_id
        self.next_stream_id += 2
        return sid

    def request_headers(self, path: str = "/", method: str = "GET", extra: list[tuple[str, str]] | None = None) -> list:
        return [(":method", method), (":scheme", "https" if self.tls else "http"), (":path", path),
                (":authority", self.authority), *(extra or [])]

    def header_block(self, headers: list) -> bytes:
        """Headers encoded with this connection's HPACK state (a block must be sent, in order, once encoded)."""
        return self.encoder.encode(headers)

    def headers(self, sid: int, block: bytes, end_stream: bool = True, end_headers: bool = True) -> bytes:
        flags = (["END_STREAM"] if end_stream else []) + (["END_HEADERS"] if end_headers else [])
        return HeadersFrame(sid, block, flags=flags).serialize()

    def send(self, data: bytes) -> None:
        try:
            self.sock.sendall(data)
        except (OSError, ssl.SSLError) as exc:
            raise Closed(f"send: {exc.__class__.__name__}") from None

    def hung_up(self) -> bool:
        """Whether the server has ended the connection (its FIN or a reset), seen without reading what it sent."""
        poller = select.poll()
        poller.register(self.sock.fileno(), select.POLLRDHUP | select.POLLHUP | select.POLLERR)
        return bool(poller.poll(0))

    def read_available(self, limit: int = 16 * MAX_READ, wait: float = 0.0) -> None:
        """Read what the server has sent (up to limit bytes; waiting up to `wait` s for the first), count its frames.
        Raises Closed at its end of stream or a reset."""
        self.sock.settimeout(wait if wait > 0 else 0.0)
        total = 0
        try:
            while total < limit:
                data = self.sock.recv(MAX_READ)
                if not data:
                    raise Closed("eof")
                total += len(data)
                self._take(data)
                self.sock.settimeout(0.0)
        except (BlockingIOError, ssl.SSLWantReadError, TimeoutError, socket.timeout):
            pass
        except (OSError, ssl.SSLError) as exc:
            raise Closed(f"recv: {exc.__class__.__name__}") from None
        finally:
            self.sock.settimeout(5.0)

    def _take(self, data: bytes) -> None:
        self.received.bytes += len(data)
        self._buffer += data
        while len(self._buffer) >= FRAME_HEADER:
            frame, length = Frame.parse_frame_header(memoryview(self._buffer[:FRAME_HEADER]))
            if len(self._buffer) < FRAME_HEADER + length:
                break
            name = type(frame).__name__.removesuffix("Frame").upper()
            self.received.frames[name] += 1
            if isinstance(frame, (GoAwayFrame, RstStreamFrame)):
                frame.parse_body(memoryview(self._buffer[FRAME_HEADER:FRAME_HEADER + length]))
                if isinstance(frame, GoAwayFrame) and not self.received.goaway:
                    debug = frame.additional_data.decode("latin-1")[:60]
                    self.received.goaway = error_name(frame.error_code) + (f" ({debug})" if debug else "")
                elif isinstance(frame, RstStreamFrame):
                    self.received.rst_codes[error_name(frame.error_code)] += 1
            del self._buffer[:FRAME_HEADER + length]

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass
