"""What the Hypercorn page says, shown on the installed version: h2c on the HTTP/1.1 port, the
supervisor that stops every worker, and exits 0, when one is killed, and its drain at SIGTERM."""
from __future__ import annotations

import base64
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("h2", reason="the hypercorn extra is not installed: pip install -e '.[hypercorn]'")

import h2.config  # noqa: E402
import h2.connection  # noqa: E402
import h2.events  # noqa: E402
import psutil  # noqa: E402

from lessontools import connect, read_response  # noqa: E402
from serverproc import ServerProcess, free_port  # noqa: E402

REQUEST = [(":method", "GET"), (":path", "/"), (":scheme", "http"), (":authority", "lesson")]


def _h2_answer(sock, client: h2.connection.H2Connection, stream_id: int = 1) -> tuple[str, bytes]:
    """Read frames until the stream ends: its :status and body."""
    status, body = "", b""
    while True:
        data = sock.recv(65536)
        assert data, "the server closed the connection before the stream ended"
        for event in client.receive_data(data):
            if isinstance(event, h2.events.ResponseReceived) and event.stream_id == stream_id:
                status = dict(event.headers)[b":status"].decode()
            elif isinstance(event, h2.events.DataReceived) and event.stream_id == stream_id:
                body += event.data
                client.acknowledge_received_data(event.flow_controlled_length, stream_id)
            elif isinstance(event, h2.events.StreamEnded) and event.stream_id == stream_id:
                return status, body
        sock.sendall(client.data_to_send())


@pytest.fixture(scope="module")
def hypercorn_server():
    server = ServerProcess("starlette_hypercorn", ["--workers", "1"]).start()
    yield server
    server.stop()


def test_hypercorn_serves_h2c_by_prior_knowledge_and_by_upgrade_on_the_same_port(hypercorn_server):
    port = hypercorn_server.port
    # Prior knowledge: the connection opens with HTTP/2's preface.
    client = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    client.initiate_connection()
    client.send_headers(1, REQUEST, end_stream=True)
    with connect(port) as sock:
        sock.sendall(client.data_to_send())
        assert _h2_answer(sock, client) == ("200", b"Hello, World!")

    # Upgrade: an HTTP/1.1 request without a body asks for h2c; 101, then its answer is HTTP/2's stream 1.
    client = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    settings = client.initiate_upgrade_connection()
    with connect(port) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: lesson\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n"
                     b"HTTP2-Settings: " + settings + b"\r\n\r\n")
        head = b""
        while b"\r\n\r\n" not in head:
            head += sock.recv(1)
        assert head.startswith(b"HTTP/1.1 101 "), head
        sock.sendall(client.data_to_send())
        assert _h2_answer(sock, client) == ("200", b"Hello, World!")

    # The same upgrade with a body: Hypercorn ignores it and answers in HTTP/1.1 (405: / is GET only).
    with connect(port) as sock:
        sock.sendall(b"POST / HTTP/1.1\r\nHost: lesson\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n"
                     b"HTTP2-Settings: " + base64.urlsafe_b64encode(b"").rstrip(b"=") + b"\r\n"
                     b"Content-Length: 2\r\n\r\n{}")
        assert read_response(sock).startswith(b"HTTP/1.1 405 ")


ASGI_APP = '''
async def app(scope, receive, send):
    if scope["type"] == "http":
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})
'''


def test_hypercorn_stops_every_worker_and_exits_0_when_one_is_killed(tmp_path):
    """`hypercorn --workers 2` as its docs run it, on a bare ASGI app: SIGKILL one worker."""
    (tmp_path / "bare_asgi.py").write_text(ASGI_APP)
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "hypercorn", "--workers", "2", "--bind", f"127.0.0.1:{port}",
                             "bare_asgi:app"], cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        workers: list[psutil.Process] = []
        while len(workers) < 2:
            assert time.monotonic() < deadline and proc.poll() is None, "hypercorn did not start two workers"
            workers = [p for p in psutil.Process(proc.pid).children() if "spawn_main" in " ".join(p.cmdline())]
            time.sleep(0.1)
        os.kill(workers[0].pid, signal.SIGKILL)
        assert proc.wait(timeout=15) == 0  # the whole server is gone, and says it ended well
        assert not workers[1].is_running() or workers[1].status() == psutil.STATUS_ZOMBIE
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


SLOW_ASGI_APP = '''
import asyncio

async def app(scope, receive, send):
    if scope["type"] == "http":
        if scope["path"] == "/slow":
            await asyncio.sleep(1.5)
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
        await send({"type": "http.response.body", "body": b"ok"})
'''


class Hypercorn:
    """`hypercorn --workers N --graceful-timeout 3` (the adapter's timeout) on an app with a 1.5 s route."""

    def __init__(self, folder: Path, count: int):
        (folder / "slow_asgi.py").write_text(SLOW_ASGI_APP)
        self.port = free_port()
        self.proc = subprocess.Popen([sys.executable, "-m", "hypercorn", "--workers", str(count), "--graceful-timeout",
                                      "3", "--bind", f"127.0.0.1:{self.port}", "slow_asgi:app"], cwd=folder,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while len(self.workers()) < count or not self.answers():
            assert time.monotonic() < deadline and self.proc.poll() is None, "hypercorn did not start"
            time.sleep(0.1)

    def workers(self) -> list[psutil.Process]:
        return [p for p in psutil.Process(self.proc.pid).children() if "spawn_main" in " ".join(p.cmdline())]

    def answers(self) -> bool:
        try:
            with connect(self.port, timeout=2) as sock:
                sock.sendall(b"GET / HTTP/1.1\r\nHost: lesson\r\n\r\n")
                return read_response(sock).startswith(b"HTTP/1.1 200")
        except OSError:
            return False

    def slow_request(self):
        sock = connect(self.port, timeout=10)
        sock.sendall(b"GET /slow HTTP/1.1\r\nHost: lesson\r\n\r\n")
        time.sleep(0.3)  # the app is sleeping in it
        return sock

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def _answer(sock) -> bytes:
    """The response, b"" when the server closed without one, b"reset" on a reset."""
    try:
        return read_response(sock)
    except ConnectionResetError:
        return b"reset"
    finally:
        sock.close()


def test_hypercorn_drain_with_one_worker_finishes_the_request_and_resets_new_connections(tmp_path):
    """hypercorn.md: at SIGTERM the worker stops accepting and gives its requests in flight up to
    graceful_timeout: the 1.5 s request is answered. The supervisor keeps its listening socket open
    until the workers are gone (run.py closes its sockets last): a connection made during the drain
    completes its handshake, is never accepted, and is reset when that socket closes."""
    server = Hypercorn(tmp_path, 1)
    try:
        slow = server.slow_request()
        signalled = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        time.sleep(0.3)
        late = connect(server.port, timeout=10)  # not refused: the supervisor's socket still listens
        late.sendall(b"GET / HTTP/1.1\r\nHost: lesson\r\n\r\n")
        assert _answer(slow).endswith(b"\r\n\r\nok")  # drained: answered after its 1.5 s
        assert _answer(late) == b"reset"  # queued unaccepted, reset when the supervisor closed the socket
        assert server.proc.wait(10) == 0
        assert time.monotonic() - signalled < 3.0
    finally:
        server.stop()


def test_hypercorn_drain_ends_when_the_first_worker_exits_and_the_others_are_terminated(tmp_path):
    """hypercorn.md: with several workers the supervisor waits only until one worker exits
    (run.py 96: wait() on every worker's sentinel returns at the first), then terminate()s the rest
    (run.py 103-104), whose SIGTERM (no handler of theirs) ends them at once: the worker without
    requests exits at once, and the one with a 1.5 s request in flight is killed before it answers."""
    server = Hypercorn(tmp_path, 2)
    try:
        slow = server.slow_request()
        signalled = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        assert _answer(slow) in (b"", b"reset")  # dropped unanswered, not drained
        assert server.proc.wait(10) == 0
        assert time.monotonic() - signalled < 1.2  # well before the request's 1.5 s
    finally:
        server.stop()
