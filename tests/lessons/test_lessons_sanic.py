"""What the Sanic server page says about its timeouts, its threads, an unread body and a dead worker, shown on
the installed Sanic (and the uvloop under it)."""
from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time

import psutil

from lessontools import connect, needs, read_response, threads_of
from serverproc import ServerProcess, free_port


def _listening_children(pid: int, port: int) -> set[int]:
    """The children of pid that listen on port: Sanic's workers (not its manager process nor the
    resource tracker)."""
    found = set()
    for child in psutil.Process(pid).children():
        try:
            if any(c.status == psutil.CONN_LISTEN and c.laddr.port == port for c in child.net_connections("tcp")):
                found.add(child.pid)
        except psutil.NoSuchProcess:
            pass
    return found


def _until(condition, within: float):
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        got = condition()
        if got:
            return got
        time.sleep(0.05)
    return None


@needs("sanic")
def test_sanic_times_a_silent_connection_by_keep_alive_and_a_request_by_the_silence_between_its_reads():
    """sanic.md: a new connection waits for its first byte in Stage.IDLE, so KEEP_ALIVE_TIMEOUT (120 s), not
    REQUEST_TIMEOUT (60 s), closes one that sends nothing; once bytes come the stage is REQUEST and every read
    restarts the clock (HttpProtocol.data_received), so REQUEST_TIMEOUT bounds the silence between reads, not
    the request: a head sent in pieces over 4 s is answered with REQUEST_TIMEOUT at 1 s, and a head that
    stops gets a 408 a second after its last byte. The timeouts are checked every half of the smallest one
    (30 s by default). Shown at REQUEST_TIMEOUT 1 s and KEEP_ALIVE_TIMEOUT 4 s (SANIC_* in the environment)."""
    import inspect

    import sanic.config
    from sanic.server.protocols.http_protocol import HttpProtocol

    defaults = sanic.config.DEFAULT_CONFIG
    assert (defaults["KEEP_ALIVE_TIMEOUT"], defaults["REQUEST_TIMEOUT"], defaults["RESPONSE_TIMEOUT"]) == (120, 60, 60)
    assert re.search(r"min\(\s*self\.keep_alive_timeout,\s*self\.request_timeout,\s*self\.response_timeout,?\s*\)\s*/ 2",
                     inspect.getsource(HttpProtocol.check_timeouts))
    server = ServerProcess("sanic", ["--workers", "1"],
                           env={"SANIC_REQUEST_TIMEOUT": "1", "SANIC_KEEP_ALIVE_TIMEOUT": "4"}).start()
    silent: dict[str, object] = {}

    def wait_silent():
        sock = connect(server.port, timeout=15)
        opened = time.monotonic()
        silent["answer"] = sock.recv(100)
        silent["after"] = time.monotonic() - opened
        sock.close()

    try:
        waiting = threading.Thread(target=wait_silent)
        waiting.start()
        slow = connect(server.port, timeout=10)
        for piece in (b"GET / HTTP/1.1\r\n", b"Host: le", b"sson\r\n", b"X-A: 1\r\n", b"X-B: 2\r\n", b"X-C: 3\r\n"):
            slow.sendall(piece)
            time.sleep(0.7)  # under REQUEST_TIMEOUT each time; 4.2 s in all
        slow.sendall(b"\r\n")
        assert read_response(slow).startswith(b"HTTP/1.1 200")
        slow.close()
        stalled = connect(server.port, timeout=10)
        stalled.sendall(b"GET / HTTP/1.1\r\nHost: lesson\r\n")
        stopped = time.monotonic()
        assert stalled.recv(100).startswith(b"HTTP/1.1 408")
        assert time.monotonic() - stopped < 3.0  # REQUEST_TIMEOUT, checked every 0.5 s (late when busy)
        stalled.close()
        waiting.join(15)
        assert silent["answer"] == b"" and silent["after"] >= 3.5, silent  # KEEP_ALIVE_TIMEOUT, no 408
    finally:
        server.stop()


@needs("sanic", "uvloop")
def test_a_sanic_worker_runs_one_thread_and_uvloop_starts_no_io_uring_poller():
    """sanic.md's reading: each worker is one thread (the loop, its I/O and the app) after serving requests;
    uvloop's libuv starts io_uring submission-queue polling threads (`iou-sqp-PID`) only when a loop is set up
    to ask for them, which uvloop does not."""
    server = ServerProcess("sanic", ["--workers", "1"]).start()
    try:
        for _ in range(20):
            server.request("/")
        (worker,) = _listening_children(server.proc.pid, server.port)
        names = threads_of(worker)
        assert len(names) == 1 and not any(name.startswith("iou-sqp") for name in names.values()), names
    finally:
        server.stop()


SMUGGLED = b"GET /smuggled HTTP/1.1\r\nHost: lesson\r\n\r\n"  # answered 404 if read as a request


@needs("sanic")
def test_sanic_reads_a_body_the_handler_left_unread_before_the_next_request():
    """sanic.md: after the handler, Http.http1 reads whatever is left of the request body (the 405 of a POST
    to / reads none of it), so the body's bytes are never taken for the next request, with a Content-Length
    or chunked (cheroot does not: its page's first defect)."""
    server = ServerProcess("sanic", ["--workers", "1"]).start()
    try:
        for framing in (b"Content-Length: %d\r\n\r\n%s" % (len(SMUGGLED), SMUGGLED),
                        b"Transfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n" % (len(SMUGGLED), SMUGGLED)):
            sock = connect(server.port, timeout=5)
            sock.sendall(b"POST / HTTP/1.1\r\nHost: lesson\r\n" + framing
                         + b"GET / HTTP/1.1\r\nHost: lesson\r\nConnection: close\r\n\r\n")
            data = b""
            while chunk := sock.recv(65536):
                data += chunk
            sock.close()
            assert re.findall(rb"HTTP/1\.1 (\d{3}) ", data) == [b"405", b"200"], data
    finally:
        server.stop()


SANIC_ALONE = textwrap.dedent("""
    import sys
    from sanic import Sanic, text

    app = Sanic("lesson")

    @app.get("/")
    async def hello(request):
        return text("Hello, World!")

    @app.main_process_ready
    def watch(app, _):
        manager = app.manager  # print each state change the manager's syncs make, and change nothing
        sync_states, seen = manager._sync_states, {}

        def sync_and_say():
            sync_states()
            for process in manager.processes:
                if seen.get(process.pid) != process.state.name:
                    seen[process.pid] = process.state.name
                    print(process.pid, process.state.name, flush=True)

        manager._sync_states = sync_and_say

    if __name__ == "__main__":
        app.run(host="127.0.0.1", port=int(sys.argv[1]), workers=2, access_log=False, motd=False)
""")


@needs("sanic")
def test_sanic_alone_marks_a_dead_worker_failed_and_starts_no_other(tmp_path):
    """sanic.md: Sanic 25.12's manager finds a killed worker dead at its next state sync and marks it FAILED
    (WorkerManager._sync_states); nothing starts another, so Sanic alone goes on with one worker of two
    (the suite's adapter restarts it: tests/test_worker_kill.py)."""
    (tmp_path / "alone.py").write_text(SANIC_ALONE)
    port = free_port()
    root = subprocess.Popen([sys.executable, "alone.py", str(port)], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, start_new_session=True)
    said: list[str] = []
    threading.Thread(target=lambda: said.extend(root.stdout), daemon=True).start()
    try:
        first = _until(lambda: got if len(got := _listening_children(root.pid, port)) == 2 else None, 30)
        assert first, "Sanic alone did not start its 2 workers"
        # killed only once the manager has them acknowledged (a worker that dies before it acks is another story)
        assert _until(lambda: all(f"{pid} ACKED\n" in said for pid in first), 30), said
        victim = min(first)
        os.kill(victim, signal.SIGKILL)
        assert _until(lambda: f"{victim} FAILED\n" in said, 10), said
        time.sleep(5)  # the adapter's restart comes within one sync; none here
        assert _listening_children(root.pid, port) == first - {victim}, said
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:  # the other still serves
            sock.sendall(b"GET / HTTP/1.1\r\nHost: lesson\r\n\r\n")
            assert read_response(sock).startswith(b"HTTP/1.1 200")
    finally:
        os.killpg(root.pid, signal.SIGKILL)  # its own session: the manager and the resource tracker too
        root.wait(10)
