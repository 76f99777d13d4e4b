"""What the pages of the servers built on the stdlib's socketserver (werkzeug's dev server, wsgiref, http.server)
say about stopping and about their accept queue, shown on the installed versions."""
from __future__ import annotations

import signal
import socket
import time

import pytest

from lessontools import connect, needs, read_response
from serverproc import ServerProcess


@pytest.mark.parametrize("name, args, answered", [
    pytest.param("flask_dev", [], True, marks=needs("flask")),
    pytest.param("flask_processes", ["--workers", "2"], True, marks=needs("flask")),
    pytest.param("flask_threaded", [], False, marks=needs("flask")),
    pytest.param("bare_wsgiref", [], True),
    pytest.param("stdlib", [], True),
    pytest.param("stdlib_threaded", [], False),
])
def test_at_sigterm_a_socketserver_finishes_its_request_in_hand_unless_its_threads_are_daemons(name, args, answered):
    """werkzeug-dev.md, wsgiref.md, http-server.md: at SIGTERM the entry stops serve_forever and calls
    server_close. A single-threaded server finishes the request its one thread is on first; werkzeug's forking
    server's server_close waits for its children (socketserver's ForkingMixIn.block_on_close); the threaded
    servers' connection threads are daemon threads (daemon_threads = True in werkzeug's ThreadedWSGIServer and
    http.server's ThreadingHTTPServer), never joined, so their requests in flight die with the process. Shown
    with a head completed 1.5 s after the signal (the entry's exit deadline is 4 s)."""
    server = ServerProcess(name, args).start()
    try:
        sock = connect(server.port, timeout=6)
        sock.sendall(b"GET / HTTP/1.1\r\nHost: lesson\r\n")  # a request in progress: its head not ended yet
        time.sleep(0.5)  # read by a thread, a child or the one loop
        server.proc.send_signal(signal.SIGTERM)
        time.sleep(1.5)
        try:
            sock.sendall(b"\r\n")
            answer = read_response(sock)
        except (ConnectionError, socket.timeout):
            answer = b""
        sock.close()
        assert answer.startswith(b"HTTP/1.") == answered, answer
        server.proc.wait(10)
    finally:
        server.stop()


def test_a_backlog_of_5_queues_6_connections_and_drops_the_next_syns_refusing_none():
    """wsgiref.md, http-server.md: socketserver listens with request_queue_size 5; Linux counts a queue full
    past its backlog, so 6 completed connections wait in it, and with tcp_abort_on_overflow off (the default)
    the SYNs of the next ones are dropped: their connect() waits and retries, nothing is refused."""
    if open("/proc/sys/net/ipv4/tcp_abort_on_overflow").read().strip() != "0":
        pytest.skip("tcp_abort_on_overflow is set here: a full queue resets instead")
    server = ServerProcess("stdlib", []).start()
    held = []
    try:
        held.append(connect(server.port))  # accepted: the one thread reads it, and waits
        time.sleep(0.3)
        outcomes = []
        for _ in range(10):
            sock = socket.socket()
            sock.settimeout(1.0)
            held.append(sock)
            try:
                sock.connect(("127.0.0.1", server.port))
                outcomes.append("connected")
            except socket.timeout:
                outcomes.append("waiting")
            except ConnectionRefusedError:
                outcomes.append("refused")
        assert outcomes == ["connected"] * 6 + ["waiting"] * 4, outcomes
    finally:
        for sock in held:
            sock.close()
        server.stop()
