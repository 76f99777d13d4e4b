"""What the daphne page says, shown on the installed version: one process and no workers of its own, the
`--fd` and `-u` sockets a process manager hands it, SIGTERM cancelling the requests in flight without a drain,
and idle connections kept until twisted.web's 60 s timeout."""
from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

pytest.importorskip("daphne", reason="the daphne extra is not installed: pip install -e '.[daphne]'")

from lessontools import connect, read_response  # noqa: E402
from serverproc import ServerProcess, free_port  # noqa: E402

# The slow route's length: a drain would hold the process this long after SIGTERM; the test's bound is half of it,
# so a slow machine's exit is never read as a drain.
SLOW_S = 10
# An ASGI app with a slow route that notes in a file whether it was cancelled, and the pid that answers.
SLOW_ASGI_APP = '''
import asyncio, os, sys

async def app(scope, receive, send):
    if scope["type"] != "http":
        return
    if scope["path"] == "/slow":
        try:
            await asyncio.sleep(SLOW_S)
        except asyncio.CancelledError:
            with open(os.environ["NOTE"], "a") as note:
                note.write("cancelled\\n")
            raise
    body = str(os.getpid()).encode()
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
'''


class Daphne:
    """`daphne ARGS slow_asgi:app`, as a process manager starts it, on the app above."""

    def __init__(self, folder: Path, *args: str, pass_fds: tuple[int, ...] = ()):
        (folder / "slow_asgi.py").write_text(SLOW_ASGI_APP.replace("SLOW_S", repr(SLOW_S)))
        self.note = folder / "note.txt"
        self.proc = subprocess.Popen([sys.executable, "-m", "daphne", *args, "slow_asgi:app"], cwd=folder,
                                     env={**os.environ, "NOTE": str(self.note)}, pass_fds=pass_fds,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def _wait_for(answer, timeout: float = 30.0) -> bytes:
    deadline = time.monotonic() + timeout
    while True:
        try:
            return answer()
        except OSError:
            assert time.monotonic() < deadline, "daphne did not answer"
            time.sleep(0.2)


def _get(port: int, path: str = "/") -> bytes:
    with connect(port, timeout=5) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: lesson\r\n\r\n".encode())
        return read_response(sock)


def test_daphne_runs_one_process_and_no_workers():
    """daphne.md: the entry is one process (no child) and refuses --workers 2; daphne has no option for workers."""
    refused = subprocess.run([sys.executable, "-m", "servers.bare_asgi_daphne", "--workers", "2",
                              "--port", str(free_port())], capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and "workers" in refused.stderr
    assert "--workers" not in subprocess.run([sys.executable, "-m", "daphne", "--help"], capture_output=True,
                                             text=True, timeout=60).stdout
    server = ServerProcess("bare_asgi_daphne").start()
    try:
        assert server.request("/")[0].status == 200
        assert psutil.Process(server.proc.pid).children(recursive=True) == []
    finally:
        server.stop()


def test_daphne_serves_a_socket_a_process_manager_hands_it_with_fd_and_a_unix_socket_with_u(tmp_path):
    """daphne.md: `--fd N` serves a listening socket the process manager made and passed on (two daphnes share
    it, and the kernel hands each connection to one of them); `-u PATH` binds a Unix socket."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    fd = listener.fileno()
    daphnes = [Daphne(tmp_path, "--fd", str(fd), pass_fds=(fd,)) for _ in range(2)]
    try:
        listener.close()  # the daphnes hold it now
        pids = {int(_wait_for(lambda: _get(port)).rpartition(b"\r\n\r\n")[2]) for _ in range(40)}
        assert pids <= {d.proc.pid for d in daphnes} and pids
        path = tmp_path / "daphne.sock"
        unix = Daphne(tmp_path, "-u", str(path))
        daphnes.append(unix)

        def over_unix() -> bytes:
            with socket.socket(socket.AF_UNIX) as sock:
                sock.settimeout(5)
                sock.connect(str(path))
                sock.sendall(b"GET / HTTP/1.1\r\nHost: lesson\r\n\r\n")
                return read_response(sock)

        assert _wait_for(over_unix).endswith(str(unix.proc.pid).encode())
    finally:
        for daphne in daphnes:
            daphne.stop()


def test_daphne_sigterm_cancels_the_request_in_flight_without_an_answer(tmp_path):
    """daphne.md: SIGTERM stops twisted's reactor; before it shuts down, Server.kill_all_applications cancels every
    app instance still running: the slow request gets no answer (the connection closes), its app sees
    CancelledError, and the process is gone well before the request would have ended, exit code 0."""
    port = free_port()
    daphne = Daphne(tmp_path, "-b", "127.0.0.1", "-p", str(port))
    try:
        _wait_for(lambda: _get(port))
        slow = connect(port, timeout=SLOW_S + 5)
        slow.sendall(b"GET /slow HTTP/1.1\r\nHost: lesson\r\n\r\n")
        time.sleep(0.5)  # the app is sleeping in it
        signalled = time.monotonic()
        daphne.proc.send_signal(signal.SIGTERM)
        try:
            answer = read_response(slow)
        except ConnectionResetError:
            answer = b"reset"
        assert answer in (b"", b"reset"), answer
        assert daphne.proc.wait(SLOW_S) == 0
        assert time.monotonic() - signalled < SLOW_S / 2  # well before the request's end: nothing drained
        assert daphne.note.read_text() == "cancelled\n"
    finally:
        daphne.stop()


@pytest.mark.reliability
def test_daphne_keeps_an_idle_connection_until_twisteds_60_s_timeout():
    """daphne.md: daphne's HTTPFactory leaves twisted.web.http.HTTPFactory's timeout at its default, 60 s (daphne's
    own http_timeout, None, bounds a response, not an idle connection): a kept-alive connection still answers
    after 45 s idle, and is closed by the server about 60 s after its last byte."""
    server = ServerProcess("bare_asgi_daphne").start()
    try:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=90)
        conn.request("GET", "/")
        assert conn.getresponse().read() == b"Hello, World!"
        time.sleep(45)
        conn.request("GET", "/")
        assert conn.getresponse().read() == b"Hello, World!"
        last = time.monotonic()
        assert conn.sock.recv(1) == b""  # the server's FIN
        assert 55 < time.monotonic() - last < 70
    finally:
        server.stop()
