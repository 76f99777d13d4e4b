"""What the tornado, twisted, werkzeug, sanic, gevent and Go pages say, shown on the installed versions."""
from __future__ import annotations

import asyncio
import re
import signal
import socket
import time

import psutil
import pytest

from lessontools import HELLO, connect, dump, headers, needs, read_response, strace, workers
from serverproc import ServerProcess


@needs("tornado")
def test_tornado_accepts_at_most_128_connections_per_readable_event_handing_each_on_at_once():
    """tornado.md: add_accept_handler's loop is bounded by _DEFAULT_BACKLOG, not by the listen backlog, and
    it calls the connection callback (TCPServer._handle_connection) right after each accept, inside the
    same loop (netutil.py 287-301), not after going back to the event loop."""
    import tornado.netutil
    from tornado.ioloop import IOLoop

    events: list[str] = []

    class Listener(socket.socket):
        def accept(self):
            accepted = super().accept()
            events.append("accept")
            return accepted

    assert tornado.netutil._DEFAULT_BACKLOG == 128
    listener = Listener(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(512)
    listener.setblocking(False)
    clients = [socket.create_connection(listener.getsockname()) for _ in range(300)]
    accepted, handlers = [], []

    def handed_on(conn, addr):
        events.append("callback")
        accepted.append(conn)

    async def main():
        loop = IOLoop.current()
        real_add = loop.add_handler
        loop.add_handler = lambda fd, handler, events: (handlers.append(handler), real_add(fd, handler, events))
        remove = tornado.netutil.add_accept_handler(listener, handed_on)
        handlers[0](listener.fileno(), IOLoop.READ)  # what the loop runs once per readable event
        first = len(accepted)
        handlers[0](listener.fileno(), IOLoop.READ)
        remove()
        return first, len(accepted)

    try:
        assert asyncio.run(main()) == (128, 256)
        assert events[:6] == ["accept", "callback"] * 3  # each connection handed on before the next accept
        assert events == ["accept", "callback"] * 256
    finally:
        for sock in accepted + clients:
            sock.close()
        listener.close()


def _tornado_head(port: int, head: bytes, wait: float) -> bytes:
    """What tornado answers within `wait` seconds to a request head whose body never comes."""
    sock = connect(port, timeout=wait)
    try:
        sock.sendall(head)
        try:
            return sock.recv(100)
        except socket.timeout:
            return b"(no answer)"
    finally:
        sock.close()


@needs("tornado")
def test_tornado_body_limit_is_100_mib():
    """tornado.md: `max_buffer_size` is 104857600 bytes (100 MiB, not 100 MB) per connection, and the
    request body limit (HTTP1Connection._max_body_size) defaults to it: a Content-Length one byte past
    100 MiB is refused at once (400), one byte past 100 MB is not (the server waits for the body)."""
    from tornado.iostream import IOStream

    ours, peer = socket.socketpair()
    try:
        assert IOStream(ours).max_buffer_size == 100 * 1024 * 1024
    finally:
        peer.close()
    server = ServerProcess("tornado", ["--workers", "1"]).start()
    try:
        post = b"POST / HTTP/1.1\r\nHost: lesson\r\nContent-Length: %d\r\n\r\n"
        assert _tornado_head(server.port, post % (100 * 1024 * 1024 + 1), 5).startswith(b"HTTP/1.1 400 ")
        assert _tornado_head(server.port, post % (100_000_000 + 1), 1) == b"(no answer)"
    finally:
        server.stop()


@needs("tornado")
def test_tornado_sigterm_drops_a_request_in_flight_and_drains_none():
    """tornado.md: at SIGTERM the entry stops the HTTPServer and awaits close_all_connections, which
    closes each connection's stream at once (HTTP1ServerConnection.close) and only then waits for its
    coroutine: a request whose body is still arriving is dropped unanswered, even when the rest of the
    body comes right after; the process is gone well before GRACE_SECONDS (3 s)."""
    server = ServerProcess("tornado", ["--workers", "1"]).start()
    try:
        sock = connect(server.port, timeout=5)
        sock.sendall(b"POST / HTTP/1.1\r\nHost: lesson\r\nContent-Length: 10\r\n\r\n12345")
        time.sleep(0.3)  # the head is parsed, the request is in flight, waiting for its body
        signalled = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        time.sleep(0.3)
        try:
            sock.sendall(b"67890")  # the rest of the body: a draining server would answer now
            answer = sock.recv(100)
        except ConnectionResetError:
            answer = b""
        sock.close()
        assert answer == b"", answer  # closed without a response
        server.proc.wait(5)
        assert time.monotonic() - signalled < 2.0  # not a 3 s drain
    finally:
        server.stop()


@needs("tornado")
def test_tornado_iostream_write_sends_at_once_and_only_the_leftover_waits():
    from tornado.iostream import IOStream

    async def main():
        ours, peer = socket.socketpair()
        ours.setblocking(False)
        stream = IOStream(ours)
        stream.write(b"hello")  # no await, no loop turn: already in the kernel
        peer.setblocking(False)
        assert peer.recv(100) == b"hello"
        big = b"x" * (16 << 20)  # more than the socket buffer takes: the rest waits for writability
        future = stream.write(big)
        assert not future.done() and stream.writing()
        received = 0
        while not future.done():
            try:
                received += len(peer.recv(1 << 20))
            except BlockingIOError:
                pass
            await asyncio.sleep(0)
        stream.close()
        peer.close()

    asyncio.run(main())


@needs("twisted")
@pytest.mark.parametrize("name, reactor", [("twisted", "asyncioreactor"), ("bare_twisted", "epollreactor")])
def test_twisted_runs_asyncio_for_native_resources_and_epoll_for_wsgi(name, reactor):
    server = ServerProcess(name).start()
    try:
        # the main thread runs the reactor once it has printed its ready line: a dump taken at once may still
        # find it in that print, so look again until the reactor's frame shows (5 s at most)
        deadline = time.monotonic() + 5
        while True:
            main = dump(server.proc.pid).split("\nThread ")[1]
            if f"twisted/internet/{reactor}.py" in main or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert f"twisted/internet/{reactor}.py" in main, main
    finally:
        server.stop()


@needs("twisted")
def test_twisted_wsgi_runs_the_app_on_the_reactor_thread_pool():
    server = ServerProcess("bare_twisted").start()
    try:
        assert '"PoolThread-twisted.internet.reactor' not in dump(server.proc.pid)  # started on first use
        server.request("/")
        assert '"PoolThread-twisted.internet.reactor-0"' in dump(server.proc.pid)  # the request ran there
    finally:
        server.stop()


@needs("flask")
@pytest.mark.parametrize("name, version", [("flask_dev", "HTTP/1.0"), ("flask_threaded", "HTTP/1.1"),
                                           ("flask_processes", "HTTP/1.1")])
def test_werkzeug_closes_every_connection_in_every_mode(name, version):
    """The single-threaded server answers HTTP/1.0, the threaded and forking ones HTTP/1.1; each
    sends Connection: close and closes."""
    server = ServerProcess(name).start()
    try:
        sock = connect(server.port)
        sock.sendall(HELLO)
        response = read_response(sock)
        assert response.startswith(f"{version} 200".encode())
        assert headers(response)["connection"] == "close"
        assert sock.recv(10) == b""
        sock.close()
    finally:
        server.stop()


@needs("sanic")
def test_sanic_sends_a_small_response_head_and_body_in_one_write():
    """http1_response_header appends the body to the head and sends once: one syscall."""
    server = ServerProcess("sanic", ["--workers", "1"]).start()
    try:
        pids = [server.proc.pid, *(p.pid for p in workers(server))]
        client = connect(server.port)
        client.sendall(HELLO)  # a first request: the worker's lazy setup is not in the trace

        def one():
            client.sendall(HELLO)
            assert read_response(client).endswith(b"Hello, World!")

        read_response(client)
        lines = [call.line for call in strace(pids, "write,writev,sendto,sendmsg", one)
                 if "Hello, World!" in call.line or "HTTP/1.1" in call.line]
        client.close()
        assert len(lines) == 1 and "HTTP/1.1 200" in lines[0] and "Hello, World!" in lines[0], lines
    finally:
        server.stop()


@needs("gevent")
def test_gevent_prefork_server_has_no_pool_and_keeps_accepting_past_a_thousand():
    """gevent's WSGIServer is given no pool here: unlike gunicorn's gevent worker (a pool of 1000,
    then it stops accepting) every connection gets a greenlet."""
    server = ServerProcess("bare_gevent", ["--workers", "1"]).start()
    clients = []
    try:
        worker = psutil.Process(server.proc.pid)  # one worker: served in the entry's process, no fork
        clients = [connect(server.port) for _ in range(1100)]
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            established = [c for c in worker.net_connections("tcp") if c.status == psutil.CONN_ESTABLISHED]
            if len(established) >= 1100:
                break
            time.sleep(0.2)
        assert len(established) >= 1100
        clients[-1].sendall(HELLO)  # and it still serves
        assert read_response(clients[-1]).startswith(b"HTTP/1.1 200")
    finally:
        for sock in clients:
            sock.close()
        server.stop()


@pytest.mark.parametrize("name", ["nethttp"])  # a Go name in the id: conftest builds the Go binaries first
def test_go_runs_more_threads_than_gomaxprocs(name):
    """GOMAXPROCS caps the threads running Go code at once, not the process's threads."""
    server = ServerProcess(name, ["--workers", "1"]).start()
    try:
        assert "1 workers" in server.stdout_lines[-1]  # GOMAXPROCS 1
        for _ in range(20):
            server.request("/")
        assert psutil.Process(server.proc.pid).num_threads() > 1
    finally:
        server.stop()


POOL_THREADS = {"flask_tornado": "ThreadPoolExecutor-", "flask_twisted": "PoolThread-",
                "flask_gunicorn_gthread": "ThreadPoolExecutor-", "flask_waitress": "waitress-"}


@pytest.mark.parametrize("name, started", [pytest.param("flask_tornado", "some", marks=needs("tornado", "flask")),
                                           pytest.param("flask_twisted", "some", marks=needs("twisted", "flask")),
                                           pytest.param("flask_gunicorn_gthread", "some",
                                                        marks=needs("gunicorn", "flask")),
                                           pytest.param("flask_waitress", "all", marks=needs("waitress", "flask"))])
def test_a_pool_of_16_threads_is_started_as_requests_need_it_except_waitress(name, started):
    """tornado.md, twisted.md, gunicorn-gthread.md: tornado's executor and gthread's pool
    (concurrent.futures.ThreadPoolExecutor, _adjust_thread_count) and twisted's reactor pool (a Team
    that grows a worker when work waits and none is idle) hold up to 16 threads, started as requests need
    them: after five requests one at a time, a few exist, not 16. waitress.md: its ThreadedTaskDispatcher
    starts all 16 at once (set_thread_count)."""
    server = ServerProcess(name, ["--workers", "1"]).start()
    try:
        for _ in range(5):
            server.request("/")
        pid = workers(server)[0].pid if name == "flask_gunicorn_gthread" else server.proc.pid
        names = [n for n in re.findall(r'^Thread \S+ \([^)]*\): "([^"]+)"', dump(pid), re.M)
                 if n.startswith(POOL_THREADS[name])]
        assert (1 <= len(names) < 16) if started == "some" else len(names) == 16, names
    finally:
        server.stop()


@needs("flask")
def test_werkzeug_forking_server_waits_past_its_children_it_refuses_nothing():
    """werkzeug-dev.md: ForkingWSGIServer sets max_children to `processes` (--workers); past it the parent
    blocks in socketserver's ForkingMixIn.collect_children (waitpid) until a child exits: the next
    connection is not refused, it waits in the accept queue and is served once a child is done."""
    server = ServerProcess("flask_processes", ["--workers", "2"]).start()
    silent = []
    try:
        silent = [connect(server.port) for _ in range(2)]  # each holds a child, reading with no timeout
        time.sleep(0.5)
        extra = connect(server.port, timeout=1.5)  # not refused: the kernel completes the handshake
        extra.sendall(HELLO)
        with pytest.raises(socket.timeout):
            extra.recv(100)  # not accepted: the parent waits for a child to exit
        silent.pop().close()  # that child reads EOF and exits
        extra.settimeout(10)
        assert read_response(extra).startswith(b"HTTP/1.1 200")
        extra.close()
    finally:
        for sock in silent:
            sock.close()
        server.stop()
