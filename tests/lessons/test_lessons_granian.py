"""What the granian page says of its sockets and limits, shown on the installed version: one listening
socket per worker and none in the supervisor, the backpressure that stops a worker accepting, and a
blocking-thread pool that grows on demand up to its size."""
from __future__ import annotations

import socket
import subprocess
import sys
import textwrap
import threading
import time

import psutil
import pytest

from lessontools import HELLO, connect, needs, read_response, workers
from serverproc import ServerProcess, free_port
from servers.core import server_options

pytestmark = needs("granian", "flask")


def adapter_server(monkeypatch, serve: str, worker_count: int):
    """granian's Server as the adapter builds it for an entry of worker_count workers (built, not run)."""
    from granian.server import Server

    from servers.adapters import granian_server
    from servers.core.options import Options

    seen = {}

    class Built(Exception):
        pass

    def capture(*args, **kwargs):
        seen.update(kwargs, target=args[0])
        raise Built

    monkeypatch.setattr(granian_server, "Server", capture)
    with pytest.raises(Built):
        getattr(granian_server, serve)("x:y", Options("lesson", "127.0.0.1", 1, worker_count, "", "", "pymongo"),
                                       lambda: None)
    return Server(seen.pop("target"), **seen)


def listening(proc: psutil.Process, port: int) -> int:
    return sum(1 for c in proc.net_connections("tcp") if c.status == psutil.CONN_LISTEN and c.laddr.port == port)


def test_granian_listens_once_per_worker_and_not_in_its_supervisor():
    """granian.md: on Linux the supervisor builds a socket and keeps none (server/common.py,
    _init_shared_socket) and each worker binds its own SO_REUSEPORT socket: with 2 workers, 2 listening
    sockets, none of them the supervisor's."""
    server = ServerProcess("flask_granian", ["--workers", "2"]).start()
    try:
        children = workers(server, 2)
        assert listening(psutil.Process(server.proc.pid), server.port) == 0
        assert [listening(child, server.port) for child in children] == [1, 1]
    finally:
        server.stop()


def test_granian_backpressure_is_backlog_over_workers_connections_held_per_worker(monkeypatch):
    """granian.md: `backpressure` defaults to backlog // workers (1024 // 2 = 512 a worker for two workers);
    each accepted connection holds one of the worker's permits until it closes, idle keep-alive included,
    so past that many connections the worker stops accepting and the next waits in the accept queue.
    Shown at 3 (a setting handed to the entry): the 4th connection is answered only once one closes."""
    assert adapter_server(monkeypatch, "serve_wsgi", 2).backpressure == 1024 // 2
    assert adapter_server(monkeypatch, "serve_asgi", 1).backpressure == 1024
    env = server_options.environment({"backpressure": 3})
    server = ServerProcess("flask_granian", ["--workers", "1"], env=env).start()
    held = []
    try:
        for _ in range(3):
            sock = connect(server.port)
            sock.sendall(HELLO)
            assert read_response(sock).startswith(b"HTTP/1.1 200")  # served, and kept alive
            held.append(sock)
        extra = connect(server.port, timeout=1.5)  # the kernel completes the handshake
        extra.sendall(HELLO)
        with pytest.raises(socket.timeout):
            extra.recv(100)  # not accepted: every permit is held by an idle keep-alive connection
        held.pop().close()
        extra.settimeout(10)
        assert read_response(extra).startswith(b"HTTP/1.1 200")  # a permit freed: accepted and served
        extra.close()
    finally:
        for sock in held:
            sock.close()
        server.stop()


SLOW_APP = textwrap.dedent("""
    import threading, time
    seen = set()
    def app(environ, start_response):
        if environ["PATH_INFO"] == "/slow":
            seen.add(threading.get_ident())
            time.sleep(0.5)
        body = str(len(seen)).encode()  # how many threads have run the app so far
        start_response("200 OK", [("Content-Length", str(len(body)))])
        return [body]
""")


def test_granian_blocking_threads_are_a_maximum_grown_on_demand(monkeypatch, tmp_path):
    """granian.md: the WSGI blocking threads (16 here) are the pool's maximum, not its size: it starts one
    thread and adds one when a request queues with none idle (src/blocking.rs, BlockingRunnerPool.run),
    and a thread idle for blocking_threads_idle_timeout (30 s) exits. Serial requests run on a thread or
    two; 48 concurrent ones of 0.5 s on exactly 16."""
    built = adapter_server(monkeypatch, "serve_wsgi", 1)
    assert (built.blocking_threads, built.blocking_threads_idle_timeout) == (16, 30)
    (tmp_path / "slow.py").write_text(SLOW_APP)
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "granian", "--interface", "wsgi", "--host", "127.0.0.1",
                             "--port", str(port), "--workers", "1", "--blocking-threads", "16", "slow:app"],
                            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def get(path: str) -> bytes:
        with connect(port) as sock:
            sock.sendall(f"GET {path} HTTP/1.1\r\nHost: lesson\r\n\r\n".encode())
            return read_response(sock).partition(b"\r\n\r\n")[2]

    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                get("/")
                break
            except OSError:
                assert time.monotonic() < deadline and proc.poll() is None, "granian did not start"
                time.sleep(0.1)
        worker = psutil.Process(proc.pid).children()[0]
        at_rest = worker.num_threads()
        for _ in range(4):
            get("/slow")
        assert int(get("/")) <= 2  # one at a time: no thread added while one is idle
        peak = [at_rest]
        clients = [threading.Thread(target=get, args=("/slow",)) for _ in range(48)]
        for client in clients:
            client.start()
        while any(client.is_alive() for client in clients):
            peak.append(worker.num_threads())
            time.sleep(0.05)
        assert int(get("/")) == 16  # grown to the maximum, and no further
        assert 0 < max(peak) - at_rest <= 15, (at_rest, max(peak))
    finally:
        proc.terminate()
        proc.wait(10)
