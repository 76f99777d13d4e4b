"""A small HTTP/2 client on python-hyper's h2 (the same state machine Hypercorn, gunicorn and twisted serve with,
here on the client side): every request of a list sent on one connection before any answer is read, so the
server holds them as concurrent streams, over TLS by ALPN, in cleartext by prior knowledge or by an HTTP/1.1
`Upgrade: h2c`. httpx (with h2) is the tests' everyday client; this one is for what httpx does not do: the
upgrade, and choosing when each frame goes out.
"""
from __future__ import annotations

import socket
import ssl
from dataclasses import dataclass, field

import h2.config
import h2.connection
import h2.events
import h2.exceptions

PREFACE_TIMEOUT = 10.0


@dataclass
class Answer:
    """One stream's response."""

    stream_id: int
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    ended: bool = False
    reset: int | None = None  # the error code of a RST_STREAM

    @property
    def status(self) -> int:
        return int(self.headers.get(":status", "0"))


class H2Connection:
    """One client connection: open() it, then get(paths) as concurrent streams."""

    def __init__(self, port: int, tls_context: ssl.SSLContext | None = None, host: str = "127.0.0.1",
                 timeout: float = PREFACE_TIMEOUT):
        self.port, self.host, self.timeout = port, host, timeout
        self.tls_context = tls_context
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        self.sock: socket.socket | None = None
        self.alpn: str | None = None
        self.answers: dict[int, Answer] = {}
        self.ended: list[int] = []  # the streams in the order their answers ended
        self.settings_seen = False
        # the server's GOAWAY (error code, last stream id); with keep_goaway it is kept here instead of raised
        self.goaway: tuple[int, int] | None = None
        self.goaways: list[tuple[int, int]] = []  # every GOAWAY, in order
        self.keep_goaway = False

    def _dial(self) -> socket.socket:
        sock = socket.create_connection((self.host, self.port), timeout=self.timeout)
        if self.tls_context is None:
            return sock
        self.tls_context.set_alpn_protocols(["h2", "http/1.1"])
        tls = self.tls_context.wrap_socket(sock, server_hostname=self.host)  # verifies the chain and the name
        self.alpn = tls.selected_alpn_protocol()
        return tls

    def negotiate(self) -> str | None:
        """Dial over TLS offering h2 and http/1.1, and hang up: the protocol the server's ALPN chose."""
        self._dial().close()
        return self.alpn

    def open(self) -> "H2Connection":
        """Dial and send the client preface and SETTINGS (h2 over TLS if ALPN chose it, else prior knowledge)."""
        self.sock = self._dial()
        self.conn.initiate_connection()
        self.sock.sendall(self.conn.data_to_send())
        return self

    def upgrade(self, path: str = "/") -> Answer:
        """Dial in cleartext and ask for h2c with an HTTP/1.1 GET of path; once the server answered 101, the
        answer to that GET arrives on stream 1 over HTTP/2. Raises AssertionError with what came back when the
        server does not switch."""
        self.sock = self._dial()
        settings = self.conn.initiate_upgrade_connection()
        self.sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
                          f"Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n"
                          f"HTTP2-Settings: {settings.decode()}\r\n\r\n".encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(65536)
            if not chunk:
                break
            head += chunk
        status_line = head.split(b"\r\n", 1)[0]
        assert status_line.startswith(b"HTTP/1.1 101"), f"no switch to h2c: {head[:300]!r}"
        rest = head.split(b"\r\n\r\n", 1)[1]
        self.sock.sendall(self.conn.data_to_send())  # the preface and SETTINGS, after the 101
        self.answers[1] = Answer(1)
        if rest:
            self._receive(rest)
        self._read_until({1})
        return self.answers[1]

    def ping(self) -> None:
        """A PING frame: traffic on an otherwise idle connection (its ACK is left unread)."""
        self.conn.ping(b"refsuite")
        self.sock.sendall(self.conn.data_to_send())

    def send(self, paths: list[str]) -> list[int]:
        """Every path a GET on a stream of its own, sent and not waited for; the streams' ids."""
        ids = []
        for path in paths:
            stream_id = self.conn.get_next_available_stream_id()
            authority = f"{self.host}:{self.port}"
            scheme = "https" if self.tls_context is not None else "http"
            self.conn.send_headers(stream_id, [(":method", "GET"), (":path", path), (":scheme", scheme),
                                               (":authority", authority)], end_stream=True)
            self.answers[stream_id] = Answer(stream_id)
            ids.append(stream_id)
        self.sock.sendall(self.conn.data_to_send())
        return ids

    def answered(self, ids: list[int], within: float) -> bool:
        """Whether every stream of ids ended within `within` seconds of reading."""
        self.sock.settimeout(within)
        try:
            self._read_until(set(ids))
        except (TimeoutError, socket.timeout):
            return False
        return True

    def soak(self, path: str, total: int, concurrency: int, linger: float = 3.0) -> int:
        """GETs of path kept `concurrency` at a time on this connection until `total` were sent and answered, or
        until the server sent GOAWAY; then, sending nothing more, read on until the server closes (or `linger`
        seconds), so every GOAWAY it sends is in self.goaways. The number answered."""
        self.keep_goaway = True
        sent = 0
        while self.goaway is None:
            open_streams = [a for a in self.answers.values() if not a.ended and a.reset is None]
            if sent >= total and not open_streams:
                return sum(1 for a in self.answers.values() if a.ended)
            while sent < total and len(open_streams) < concurrency:
                self.send([path])
                sent += 1
                open_streams.append(None)
            data = self.sock.recv(65536)
            if not data:
                break
            self._receive(data)
        self.sock.settimeout(linger)
        try:
            while data := self.sock.recv(65536):
                self._receive(data)
        except (TimeoutError, socket.timeout, ConnectionError):
            pass
        return sum(1 for a in self.answers.values() if a.ended)

    def get(self, paths: list[str]) -> list[Answer]:
        """Every path a GET on a stream of its own, all sent before anything is read; their answers."""
        ids = self.send(paths)
        self._read_until(set(ids))
        return [self.answers[i] for i in ids]

    def _read_until(self, ids: set[int]) -> None:
        while not all(self.answers[i].ended or self.answers[i].reset is not None for i in ids):
            data = self.sock.recv(65536)
            if not data:
                raise ConnectionError(f"the server closed the connection with streams open: "
                                      f"{[a for a in self.answers.values() if not a.ended]}")
            self._receive(data)

    def _receive(self, data: bytes) -> None:
        for event in self.conn.receive_data(data):
            if isinstance(event, h2.events.ResponseReceived):
                self.answers[event.stream_id].headers.update(dict(event.headers))
            elif isinstance(event, h2.events.DataReceived):
                self.answers[event.stream_id].body += event.data
                self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2.events.StreamEnded):
                self.answers[event.stream_id].ended = True
                self.ended.append(event.stream_id)
            elif isinstance(event, h2.events.StreamReset):
                self.answers[event.stream_id].reset = event.error_code
            elif isinstance(event, h2.events.RemoteSettingsChanged):
                self.settings_seen = True
            elif isinstance(event, h2.events.ConnectionTerminated):
                self.goaway = (int(event.error_code), event.last_stream_id or 0)
                self.goaways.append(self.goaway)
                if not self.keep_goaway:
                    raise ConnectionError(f"GOAWAY from the server: {event}")
                return
        pending = self.conn.data_to_send()
        if pending:
            self.sock.sendall(pending)

    @property
    def max_concurrent_streams(self) -> int:
        """What the server's SETTINGS allow (h2's default, unlimited, until they arrived)."""
        return self.conn.remote_settings.max_concurrent_streams

    def close(self) -> None:
        if self.sock is not None:
            try:
                self.conn.close_connection()
                self.sock.sendall(self.conn.data_to_send())
            except (OSError, h2.exceptions.ProtocolError):
                pass
            self.sock.close()
