"""What docs/servers/cheroot.md says, shown on the installed cheroot: its keep-alive cap, the pool thread a
silent connection holds, the adapter's accept on the shared socket, and the page's reproduction of
cheroot's HTTP/1.1 defects, run as the page prints it."""
from __future__ import annotations

import inspect
import re
import socket
import subprocess
import sys
import textwrap
import time

from lessontools import HELLO, connect, dump, headers, needs, read_response
from serverproc import ServerProcess
from servers.core.lessons import DOCS

PAGE = DOCS / "servers" / "cheroot.md"


@needs("cheroot")
def test_the_reproduction_prints_what_this_page_says():
    """cheroot.md's "Defects, reproduced for upstream": its script, run on the installed cheroot, prints
    the block below it. A release that fixes a defect changes a line: the page and the caveats follow."""
    section = PAGE.read_text(encoding="utf-8").split("## Defects, reproduced for upstream", 1)[1]
    script = re.search(r"```python\n(.*?)```", section, re.S)[1]
    printed = re.search(r"```text\n(.*?)```", section, re.S)[1]
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout == printed
    assert "UnboundLocalError" in run.stderr  # the 500's cause, as the page says


@needs("cheroot")
def test_cheroot_keeps_at_most_10_idle_keep_alive_connections():
    """cheroot.md: a response keeps its connection only while fewer than keep_alive_conn_limit (10)
    connections wait in the selector; the 11th kept-alive client gets `Connection: close`, closed."""
    from cheroot.server import HTTPServer

    assert HTTPServer.keep_alive_conn_limit == 10
    server = ServerProcess("bare_cheroot", ["--workers", "1"]).start()  # one process: one selector
    held = []
    try:
        for number in range(1, 13):
            sock = connect(server.port)
            held.append(sock)
            sock.sendall(HELLO)
            response = read_response(sock)
            assert response.startswith(b"HTTP/1.1 200")
            closing = headers(response).get("connection") == "close"
            assert closing == (number > 10), (number, response)
            if closing:
                assert sock.recv(10) == b""  # and cheroot closed it
            time.sleep(0.1)  # the pool thread hands the connection back to the selector after it writes
    finally:
        for sock in held:
            sock.close()
        server.stop()


SILENT_SHORT = textwrap.dedent("""
    import threading
    from cheroot import wsgi
    def app(environ, start_response):
        start_response("200 OK", [("Content-Length", "2")])
        return [b"ok"]
    server = wsgi.Server(("127.0.0.1", 0), app, numthreads=2, timeout=1)
    server.prepare()
    print(server.bind_addr[1], flush=True)
    server.serve()
""")


@needs("cheroot")
def test_cheroot_holds_a_pool_thread_for_each_silent_connection_until_its_timeout():
    """cheroot.md: a new connection goes to a pool thread at once, which waits up to `timeout` (10 s) for
    its request; as many silent connections as threads stall the next client until they time out.
    Shown with 2 threads and a 1 s timeout: the GET is answered only once the silent ones get their 408."""
    from cheroot import wsgi
    from cheroot.server import HTTPServer

    assert HTTPServer.timeout == 10 and inspect.signature(wsgi.Server).parameters["numthreads"].default == 10
    proc = subprocess.Popen([sys.executable, "-c", SILENT_SHORT], stdout=subprocess.PIPE, text=True)
    silent = []
    try:
        port = int(proc.stdout.readline())
        silent = [connect(port) for _ in range(2)]
        time.sleep(0.1)  # both taken by the pool's two threads
        started = time.monotonic()
        client = connect(port)
        client.sendall(HELLO)
        assert read_response(client).startswith(b"HTTP/1.1 200")
        waited = time.monotonic() - started
        assert waited >= 0.7, waited  # it waited for a thread: the silent ones' 1 s timeout
        assert silent[0].recv(100).startswith(b"HTTP/1.1 408")  # and they were answered 408
        client.close()
    finally:
        for sock in silent:
            sock.close()
        proc.kill()
        proc.wait(10)


def _round_trip(sock: socket.socket) -> float:
    started = time.monotonic()
    sock.sendall(HELLO)
    assert read_response(sock).startswith(b"HTTP/1.1 200")
    return time.monotonic() - started


@needs("cheroot")
def test_cheroot_workers_sharing_a_socket_do_not_stall_after_a_lost_accept():
    """cheroot.md (the adapter): every worker's selector wakes for a new connection on the shared socket;
    with cheroot's 1 s accept timeout a worker that lost the race waited in accept() with its kept-alive
    connections (1.0 s stalls, 4 of 20 rounds here). The adapter makes the socket non-blocking."""
    server = ServerProcess("bare_cheroot", ["--workers", "2"]).start()
    kept = []
    try:
        kept = [connect(server.port) for _ in range(8)]  # spread over both workers by the kernel
        for sock in kept:
            _round_trip(sock)
        worst = []
        for _ in range(20):
            time.sleep(0.2)
            fresh = connect(server.port)
            _round_trip(fresh)
            fresh.close()
            worst.append(max(_round_trip(sock) for sock in kept))
        assert max(worst) < 0.9, [round(w, 2) for w in worst]
    finally:
        for sock in kept:
            sock.close()
        server.stop()


@needs("cheroot")
def test_a_cheroot_worker_runs_18_threads_the_selector_16_pool_threads_and_the_unservicable_one():
    """cheroot.md: a worker runs the main thread's selector loop, the 16 pool threads (started at once) and an
    18th, the thread HTTPServer.serve starts for _serve_unservicable (the connections it answers 503 when
    the pool's queue is full), idle on its queue: 18 in all, from the first request on."""
    import cheroot.server

    assert "threading.Thread(target=self._serve_unservicable).start()" in inspect.getsource(
        cheroot.server.HTTPServer.serve)
    server = ServerProcess("bare_cheroot", ["--workers", "1"]).start()
    try:
        server.request("/")
        stacks = dump(server.proc.pid)
        threads = re.findall(r"^Thread \S+ \(", stacks, re.M)
        assert len(threads) == 18, stacks
        assert len(re.findall(r'^Thread \S+ \([^)]*\): "Thread-\d+ \(_serve_unservicable\)"', stacks, re.M)) == 1, stacks
        assert "HTTPServer._serve_unservicable (cheroot/server.py" in stacks, stacks
        assert len(re.findall(r'^Thread \S+ \([^)]*\): "CP Server Thread-\d+"', stacks, re.M)) == 16, stacks
    finally:
        server.stop()
