"""The legitimate client of a probe: GET / over HTTP/2 (python-hyper's h2), one request at a time on one
connection, paced at INTERVAL_S, each request's latency counted from the time it was due (so a stalled
server delays every request that should have gone out meanwhile: no coordinated omission). A request
that fails or takes longer than REQUEST_TIMEOUT_S is an error; the next request opens a new connection.
"""
from __future__ import annotations

import socket
import ssl
import threading
import time
from dataclasses import dataclass

import h2.config
import h2.connection
import h2.events
import h2.exceptions

from h2grid.wire import require_loopback

INTERVAL_S = 0.05  # 20 requests a second
REQUEST_TIMEOUT_S = 5.0
EXPECTED = (200, b"Hello, World!")


@dataclass(frozen=True)
class Sample:
    due: float  # time.monotonic() the request was due
    latency: float  # seconds from due to the end of the answer (or to the error)
    error: str = ""  # "" when answered 200 "Hello, World!"; else what went wrong


class LegitClient:
    """start(), then stop() -> the samples; runs on a thread of its own."""

    def __init__(self, host: str, port: int, tls: bool, ca_file: str = "", interval: float = INTERVAL_S,
                 timeout: float = REQUEST_TIMEOUT_S):
        require_loopback(host)
        self.host, self.port, self.tls, self.ca_file = host, port, tls, ca_file
        self.interval, self.timeout = interval, timeout
        self.samples: list[Sample] = []
        self.connections = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="legit-client", daemon=True)
        self._sock: socket.socket | None = None
        self._conn: h2.connection.H2Connection | None = None

    def start(self) -> "LegitClient":
        self._thread.start()
        return self

    def stop(self) -> list[Sample]:
        self._stop.set()
        self._thread.join(self.timeout + 2)
        self._close()
        return list(self.samples)

    def _run(self) -> None:
        due = time.monotonic()
        while not self._stop.is_set():
            wait = due - time.monotonic()
            if wait > 0 and self._stop.wait(wait):
                break
            error = self._request(due)
            self.samples.append(Sample(due, time.monotonic() - due, error))
            due += self.interval

    def _connect(self, deadline: float) -> None:
        sock = socket.create_connection((self.host, self.port), timeout=max(0.01, deadline - time.monotonic()))
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if self.tls:
            context = ssl.create_default_context(cafile=self.ca_file or None)
            context.set_alpn_protocols(["h2"])
            sock = context.wrap_socket(sock, server_hostname=self.host)
            if sock.selected_alpn_protocol() != "h2":
                raise ConnectionError(f"ALPN selected {sock.selected_alpn_protocol()}, not h2")
        conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding=None))
        conn.initiate_connection()
        sock.sendall(conn.data_to_send())
        self._sock, self._conn = sock, conn
        self.connections += 1

    def _close(self) -> None:
        if self._sock is not None:
            try:
                self._sock.close()
            except OSError:
                pass
        self._sock = self._conn = None

    def _request(self, due: float) -> str:
        deadline = due + self.timeout
        try:
            if self._conn is None:
                self._connect(deadline)
            return self._exchange(deadline)
        except (TimeoutError, socket.timeout):
            error = "timeout"
        except ssl.SSLError as exc:
            error = f"tls: {exc.reason or exc.__class__.__name__}"
        except ConnectionRefusedError:
            error = "refused"
        except (ConnectionResetError, BrokenPipeError):
            error = "reset"
        except (OSError, h2.exceptions.ProtocolError) as exc:
            error = exc.__class__.__name__
        self._close()
        return error

    def _exchange(self, deadline: float) -> str:
        conn, sock = self._conn, self._sock
        sid = conn.get_next_available_stream_id()
        conn.send_headers(sid, [(":method", "GET"), (":scheme", "https" if self.tls else "http"), (":path", "/"),
                                (":authority", f"{self.host}:{self.port}")], end_stream=True)
        sock.sendall(conn.data_to_send())
        status, body = None, b""
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            sock.settimeout(remaining)
            data = sock.recv(65536)
            if not data:
                self._close()
                return "closed"
            for event in conn.receive_data(data):
                if isinstance(event, h2.events.ResponseReceived) and event.stream_id == sid:
                    status = int(dict(event.headers)[b":status"])
                elif isinstance(event, h2.events.DataReceived) and event.stream_id == sid:
                    body += event.data
                    conn.acknowledge_received_data(event.flow_controlled_length, sid)
                elif isinstance(event, h2.events.StreamReset) and event.stream_id == sid:
                    sock.sendall(conn.data_to_send())
                    return f"stream reset ({event.error_code!s})"
                elif isinstance(event, h2.events.ConnectionTerminated):
                    self._close()
                    return f"goaway ({event.error_code!s})"
                elif isinstance(event, h2.events.StreamEnded) and event.stream_id == sid:
                    sock.sendall(conn.data_to_send())
                    return "" if (status, body) == EXPECTED else f"answer {status} {body[:40]!r}"
            outgoing = conn.data_to_send()
            if outgoing:
                sock.sendall(outgoing)
