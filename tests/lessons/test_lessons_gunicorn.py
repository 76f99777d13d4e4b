"""What the gunicorn pages (sync, gthread, gevent) say each step does, shown on the installed gunicorn."""
from __future__ import annotations

import os
import select
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time

import pytest

pytest.importorskip("gunicorn", reason="the gunicorn extra is not installed")  # every test here is gunicorn's

from gunicorn import util  # noqa: E402
from gunicorn.arbiter import Arbiter  # noqa: E402
from gunicorn.config import Config  # noqa: E402
from gunicorn.workers.sync import SyncWorker  # noqa: E402
from gunicorn.workers.workertmp import WorkerTmp  # noqa: E402

from lessontools import HELLO, connect, dump, needs, read_response, workers  # noqa: E402
from serverproc import ServerProcess, free_port  # noqa: E402


def _pair() -> tuple[socket.socket, socket.socket]:
    """A connected loopback TCP pair: (the server's end, the client's end)."""
    listener = socket.create_server(("127.0.0.1", 0))
    client = socket.create_connection(listener.getsockname())
    server, _ = listener.accept()
    listener.close()
    return server, client


def test_close_graceful_shuts_the_write_side_then_reads_until_the_client_closes():
    server, client = _pair()
    done = threading.Event()
    closer = threading.Thread(target=lambda: (util.close_graceful(server), done.set()))
    closer.start()
    client.settimeout(5)
    assert client.recv(10) == b""  # FIN: the server's write side is shut down at once
    assert not done.wait(0.5)  # ...but the socket is not closed: it lingers, reading
    client.sendall(b"x" * 1000)  # what the client still sends is drained, and the linger goes on
    assert not done.wait(0.3)
    client.close()  # the client's FIN ends the linger
    assert done.wait(5)
    closer.join()


def test_close_graceful_lingers_at_most_its_timeout_and_its_drain_cap():
    server, client = _pair()
    started = time.monotonic()
    util.close_graceful(server, timeout=0.5)  # a client that never closes: the timeout ends it
    assert time.monotonic() - started >= 0.5
    server, client2 = _pair()
    client2.sendall(b"y" * 70000)  # more than max_drain (64 KiB) pending: closes without waiting
    util.close_graceful(server, timeout=30)
    client.close(), client2.close()


def test_a_sync_worker_is_held_until_its_client_closes():
    """One worker: after the response, a client that keeps its socket open holds the worker, so a
    second client waits; closing the first frees the worker for the second."""
    with_server = ServerProcess("bare_gunicorn", ["--workers", "1"]).start()
    try:
        first = connect(with_server.port)
        first.sendall(HELLO)
        assert read_response(first).startswith(b"HTTP/1.1 200")
        assert first.recv(10) == b""  # the server shut its write side (FIN)...
        second = connect(with_server.port)
        second.sendall(HELLO)
        readable, _, _ = select.select([second], [], [], 0.8)
        assert not readable, "the worker answered another client while the first one still held it"
        first.close()  # ...and lingers until we close: then it takes the next connection
        assert read_response(second).startswith(b"HTTP/1.1 200")
        second.close()
    finally:
        with_server.stop()


def test_sync_worker_accept_makes_the_client_socket_blocking():
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)  # as SyncWorker.run leaves it
    client = socket.create_connection(listener.getsockname())
    seen = {}
    worker = SyncWorker.__new__(SyncWorker)
    worker.handle = lambda listener, sock, addr: seen.update(timeout=sock.gettimeout(), sock=sock)
    worker.accept(listener)
    assert seen["timeout"] is None  # blocking: recv() in the parser waits for the client
    seen["sock"].close(), client.close(), listener.close()


def test_the_arbiter_aborts_then_kills_a_worker_whose_heartbeat_is_older_than_the_timeout(tmp_path):
    """murder_workers: SIGABRT first (the worker may log its stack), SIGKILL on the next pass."""
    assert Config().timeout == 30  # the worker timeout these entries leave as gunicorn ships it
    child = subprocess.Popen([sys.executable, "-c", textwrap.dedent("""
        import signal, sys, time
        signal.signal(signal.SIGABRT, lambda *a: print("aborted", flush=True))
        print("ready", flush=True)
        time.sleep(60)
    """)], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "ready"
        cfg = Config()
        cfg.set("timeout", 1)

        class Worker:
            aborted = False
            tmp = WorkerTmp(cfg)

        arbiter = Arbiter.__new__(Arbiter)
        arbiter.timeout, arbiter.WORKERS, arbiter._stats = 1, {child.pid: Worker()}, {"workers_killed": 0}
        arbiter.log = type("Log", (), {"critical": lambda *a: None})()
        Worker.tmp.notify()
        arbiter.murder_workers()
        assert child.poll() is None  # a fresh heartbeat: nothing happens
        time.sleep(1.3)
        arbiter.murder_workers()
        assert child.stdout.readline().strip() == "aborted"  # SIGABRT, which this worker survives
        arbiter.murder_workers()
        assert child.wait(5) == -signal.SIGKILL
    finally:
        child.kill()
        child.wait()


def test_sync_worker_heartbeats_only_between_requests():
    """A sync worker reading a slow request does not notify: its heartbeat file goes stale."""
    server = ServerProcess("bare_gunicorn", ["--workers", "1"]).start()
    try:
        worker = workers(server)[0]
        fds = f"/proc/{worker.pid}/fd"  # the heartbeat file is unlinked: reach it through the worker's fd
        heartbeat = next(f"{fds}/{fd}" for fd in os.listdir(fds) if "wgunicorn" in os.readlink(f"{fds}/{fd}"))
        slow = connect(server.port)
        slow.sendall(b"GET / HTTP/1.1\r\n")  # half a request: the worker blocks in recv()
        time.sleep(0.3)
        before = os.stat(heartbeat).st_mtime
        time.sleep(1.5)  # an idle worker notifies every loop turn (select's timeout is 30 s, but it
        assert os.stat(heartbeat).st_mtime == before  # is also woken by accepts): this one cannot
        slow.sendall(b"Host: x\r\n\r\n")
        assert read_response(slow).startswith(b"HTTP/1.1 200")
        slow.close()
    finally:
        server.stop()


def test_gthread_pool_thread_waits_for_first_bytes_then_hands_the_connection_to_the_selector():
    """gthread: each new connection takes a pool thread that waits up to 5 s for data; then it
    goes back to the selector (finish_request), costing no thread. With 16 threads and 16 silent
    connections a 17th client waits for that hand-back."""
    server = ServerProcess("bare_gunicorn_gthread", ["--workers", "1"]).start()
    silent = []
    try:
        worker = workers(server)[0].pid
        silent = [connect(server.port) for _ in range(16)]
        deadline = time.monotonic() + 10
        while dump(worker).count("wait_for_data") < 16 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert dump(worker).count("wait_for_data") == 16  # every pool thread waits on a silent client
        client = connect(server.port, timeout=20)
        client.sendall(HELLO)
        readable, _, _ = select.select([client], [], [], 1.0)
        assert not readable  # no thread free: queued in the pool's work queue
        assert read_response(client).startswith(b"HTTP/1.1 200")  # after the 5 s hand-back
        deadline = time.monotonic() + 10  # (the last of the 16 may still be finishing its 5 s)
        while "wait_for_data" in dump(worker) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert "wait_for_data" not in dump(worker)  # the silent ones wait in the selector now
        client.sendall(HELLO)  # kept alive: back in the selector and out again for the next request
        assert read_response(client).startswith(b"HTTP/1.1 200")
        client.close()
    finally:
        for sock in silent:
            sock.close()
        server.stop()


GEVENT_ACCEPTS = textwrap.dedent("""
    import socket, sys
    import gevent
    import gevent.socket
    from gevent.server import StreamServer
    from gunicorn.config import Config
    from gunicorn.workers import ggevent

    # What gunicorn's gevent worker sets on its server with 1 and with 2 workers.
    seen = []
    class Stop(Exception): pass
    def start(self): seen.append(self.max_accept); raise Stop
    ggevent.StreamServer.start = start
    for n in (1, 2):
        cfg = Config(); cfg.set("workers", n); cfg.set("worker_class", "gevent")
        worker = ggevent.GeventWorker.__new__(ggevent.GeventWorker)
        worker.cfg, worker.worker_connections, worker.sockets = cfg, 1000, [socket.create_server(("127.0.0.1", 0))]
        worker.server_class = None
        try:
            worker.run()
        except Stop:
            pass
    print(*seen)

    # What max_accept means: connections accepted per turn of the loop with 50 queued.
    del ggevent.StreamServer.start
    for max_accept in (1, 100):
        listener = gevent.socket.socket()  # cooperative, as in a patched worker: accept() never blocks
        listener.bind(("127.0.0.1", 0))
        listener.listen(128)
        clients = [socket.create_connection(listener.getsockname()) for _ in range(50)]
        handled = []
        server = StreamServer(listener, lambda s, a: None)
        server.max_accept = max_accept
        server.do_handle = lambda *args: handled.append(args)
        server.start()
        server._do_read()  # what the loop runs once each time the listener is readable
        print(len(handled))
        server.stop()
""")


@needs("gevent")
def test_gunicorn_gevent_accepts_one_connection_per_loop_turn_with_more_than_one_worker():
    out = subprocess.run([sys.executable, "-c", GEVENT_ACCEPTS], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    max_accepts, one, hundred = out.stdout.split("\n")[:3]
    assert max_accepts.split() == ["100", "1"]  # gevent's default (100) with one worker, 1 with more
    assert int(one) == 1 and int(hundred) == 50


def _heartbeat(worker_pid: int) -> str:
    """The worker's heartbeat file (WorkerTmp, unlinked), as /proc/PID/fd/N: its mtime is the monotonic
    time of the worker's last notify()."""
    folder = f"/proc/{worker_pid}/fd"
    return next(f"{folder}/{fd}" for fd in os.listdir(folder) if "wgunicorn-" in os.readlink(f"{folder}/{fd}"))


def _served(port: int) -> bool:
    try:
        with connect(port, timeout=3) as sock:
            sock.sendall(HELLO)
            return read_response(sock).startswith(b"HTTP/1.1 200")
    except (ConnectionRefusedError, ConnectionResetError):  # reset: queued as the listener closed
        return False


@needs("gevent", "flask")
def test_gunicorn_gevent_worker_accepts_after_sigterm_until_its_next_once_a_second_check():
    """gunicorn-gevent.md: GeventWorker.run notifies, then sleeps a second, then checks `alive`; SIGTERM
    only clears `alive`, so the worker closes its servers at its next check. Whether a connection made
    just after the signal is served depends on where in that second the signal landed: sent right after
    a notify, a connection 0.3 s later is still served, and the listener closes about a second after
    that notify."""
    server = ServerProcess("flask_gunicorn_gevent", ["--workers", "1"]).start()
    try:
        heartbeat = _heartbeat(workers(server)[0].pid)
        last = os.stat(heartbeat).st_mtime
        while os.stat(heartbeat).st_mtime == last:  # wait for a notify: the worker's second starts
            time.sleep(0.005)
        notified = os.stat(heartbeat).st_mtime  # time.monotonic() of the notify
        server.proc.send_signal(signal.SIGTERM)
        time.sleep(max(0.0, notified + 0.3 - time.monotonic()))
        assert _served(server.port)  # 0.3 s after the signal: the worker still sleeps, and serves
        while _served(server.port):
            assert time.monotonic() - notified < 3.0, "the worker still accepts 3 s after its last notify"
            time.sleep(0.02)
        closed = time.monotonic() - notified
        assert 0.8 <= closed <= 2.0, closed  # at its next check, a second after the notify (late when busy)
    finally:
        server.stop()


def test_the_asgi_worker_listens_with_asyncios_backlog_of_100_not_gunicorns(start_server):
    """gunicorn-asgi.md: the arbiter's socket listens with the backlog setting (1024 here), then each ASGI worker
    hands it to loop.create_server(sock=...), which calls listen() again with its own default, 100."""
    from anatomy.connections import listen_queues
    from servers.adapters.sizing import LISTEN_BACKLOG

    sync = start_server("bare_gunicorn", ["--workers", "1"])
    asgi = start_server("bare_asgi_gunicorn_asgi", ["--workers", "1"])
    assert {backlog for _, backlog in listen_queues(sync.port)} == {LISTEN_BACKLOG}
    assert {backlog for _, backlog in listen_queues(asgi.port)} == {100}


ASGI_HELLO = textwrap.dedent("""
    async def app(scope, receive, send):
        if scope["type"] != "http":
            return
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"13")]})
        await send({"type": "http.response.body", "body": b"Hello, World!"})
""")


@needs("uvloop")
def test_the_asgi_worker_never_enforces_worker_connections(tmp_path):
    """gunicorn-asgi.md: ASGIWorker keeps `worker_connections` and counts its connections (nr_conns) but never
    compares the two: with worker_connections 2, one worker holds 10 connections open at once and answers
    a request on each (gunicorn's gevent worker would stop accepting at 2, its pool's size)."""
    from pathlib import Path

    import gunicorn.asgi
    import gunicorn.workers.gasgi

    files = [Path(gunicorn.workers.gasgi.__file__), *Path(gunicorn.asgi.__file__).parent.glob("*.py")]
    uses = [line.strip() for path in files for line in path.read_text().splitlines() if "worker_connections" in line]
    assert uses == ["self.worker_connections = self.cfg.worker_connections",  # kept, never read again
                    '"Use worker_connections instead.")'], uses
    (tmp_path / "hello_asgi.py").write_text(ASGI_HELLO)
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "gunicorn", "-k", "asgi", "--worker-connections", "2",
                               "-w", "1", "-b", f"127.0.0.1:{port}", "hello_asgi:app"], cwd=tmp_path,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    clients = []
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                connect(port, timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        clients = [connect(port, timeout=5) for _ in range(10)]  # all open at once
        for sock in clients:
            sock.sendall(HELLO)
        assert all(read_response(sock).startswith(b"HTTP/1.1 200") for sock in clients)
    finally:
        for sock in clients:
            sock.close()
        server.terminate()
        server.wait(10)
