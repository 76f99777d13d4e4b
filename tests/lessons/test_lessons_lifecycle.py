"""The lifecycle facts the server pages state (keep-alive and idle timeouts, connection limits), shown on
the installed versions: the default read from the installed source, and the behaviour on the entry, or
at a shortened setting when the default is too long for the default suite."""
from __future__ import annotations

import inspect
import signal
import socket
import subprocess
import sys
import textwrap
import time

import pytest

from lessontools import HELLO, connect, headers, needs, read_response
from serverproc import ServerProcess


def idle_until_closed(port: int, timeout: float) -> float:
    """Seconds from the end of one keep-alive response until the server closes the idle connection."""
    sock = connect(port, timeout=timeout)
    try:
        sock.sendall(HELLO)
        assert read_response(sock).startswith(b"HTTP/1.1 200")
        idle = time.monotonic()
        assert sock.recv(10) == b""  # the server closed it (a timeout raises: it kept it open)
        return time.monotonic() - idle
    finally:
        sock.close()


@needs("uvicorn", "fastapi")
def test_uvicorn_closes_an_idle_keep_alive_connection_after_5_seconds():
    """uvicorn.md: `timeout_keep_alive` 5 s (the adapter leaves uvicorn's default)."""
    import uvicorn

    default = inspect.signature(uvicorn.Config).parameters["timeout_keep_alive"].default
    assert default == 5
    server = ServerProcess("fastapi_uvicorn", ["--workers", "1"]).start()
    try:
        idle = idle_until_closed(server.port, timeout=default + 5)
        assert default - 0.5 <= idle <= default + 1.5, idle  # closed by its timer, not by a later sweep
    finally:
        server.stop()


@needs("sanic")
def test_sanic_keeps_an_idle_connection_for_keep_alive_timeout():
    """sanic.md: `KEEP_ALIVE_TIMEOUT` 120 s by default; shown at 2 s (Sanic reads SANIC_* settings from
    the environment), the connection is closed once that much idle time has passed, not before."""
    import sanic.config

    assert sanic.config.DEFAULT_CONFIG["KEEP_ALIVE_TIMEOUT"] == 120
    server = ServerProcess("sanic", ["--workers", "1"], env={"SANIC_KEEP_ALIVE_TIMEOUT": "2"}).start()
    try:
        assert idle_until_closed(server.port, timeout=8) >= 1.5
    finally:
        server.stop()


@needs("waitress", "flask")
def test_waitress_stops_accepting_at_connection_limit_100_counting_its_own_two_sockets():
    """waitress.md: past `connection_limit` (100) waitress stops accepting: the next connection waits in
    the kernel's accept queue, unserved, until one closes. The limit counts every socket of its loop's
    map, the listener and the trigger (its wake-up pipe) included: 98 clients reach it."""
    import waitress.adjustments

    limit = waitress.adjustments.Adjustments().connection_limit
    assert limit == 100
    server = ServerProcess("flask_waitress").start()
    held = []
    try:
        for _ in range(limit - 2):
            sock = connect(server.port)
            sock.sendall(HELLO)
            assert read_response(sock).startswith(b"HTTP/1.1 200")  # accepted and kept alive
            held.append(sock)
        extra = connect(server.port, timeout=1.5)  # the kernel completes the handshake
        extra.sendall(HELLO)
        with pytest.raises(socket.timeout):
            extra.recv(100)  # not accepted: nobody reads it
        held.pop().close()
        extra.settimeout(10)
        assert read_response(extra).startswith(b"HTTP/1.1 200")  # a slot freed: accepted and served
        extra.close()
    finally:
        for sock in held:
            sock.close()
        server.stop()


WAITRESS_SHORT = textwrap.dedent("""
    import sys, waitress
    def app(environ, start_response):
        start_response("200 OK", [("Content-Length", "2")])
        return [b"ok"]
    server = waitress.create_server(app, host="127.0.0.1", port=0, channel_timeout=1, cleanup_interval=1)
    print(server.effective_port, flush=True)
    server.run()
""")


@needs("waitress")
def test_waitress_closes_a_connection_idle_past_channel_timeout():
    """waitress.md: `channel_timeout` 120 s for an inactive connection; shown at 1 s (with the sweep,
    `cleanup_interval`, at 1 s too): the idle connection is closed by the first sweep that finds it idle
    past the timeout: after 1 s, before 2 s (and the slack of a busy machine)."""
    import waitress.adjustments

    defaults = waitress.adjustments.Adjustments()
    assert (defaults.channel_timeout, defaults.cleanup_interval) == (120, 30)
    proc = subprocess.Popen([sys.executable, "-c", WAITRESS_SHORT], stdout=subprocess.PIPE, text=True)
    try:
        port = int(proc.stdout.readline())
        idle = idle_until_closed(port, timeout=8)
        assert 0.9 <= idle <= 2.8, idle  # closed by the sweep once idle past the timeout
    finally:
        proc.kill()
        proc.wait(10)


TWISTED_SHORT = textwrap.dedent("""
    from twisted.internet import reactor
    from twisted.web import resource, server
    class Hello(resource.Resource):
        isLeaf = True
        def render_GET(self, request):
            return b"Hello, World!"
    port = reactor.listenTCP(0, server.Site(Hello(), timeout=1), interface="127.0.0.1")
    print(port.getHost().port, flush=True)
    reactor.run()
""")


@needs("twisted")
def test_twisted_closes_a_connection_idle_for_its_timeout():
    """twisted.md: `HTTPFactory` closes a connection idle for 60 s (`_REQUEST_TIMEOUT`, which `Site`
    passes on; the adapter gives none); shown at 1 s."""
    import twisted.web.http

    assert twisted.web.http._REQUEST_TIMEOUT == 60
    assert inspect.signature(twisted.web.http.HTTPFactory).parameters["timeout"].default == 60
    proc = subprocess.Popen([sys.executable, "-c", TWISTED_SHORT], stdout=subprocess.PIPE, text=True)
    try:
        port = int(proc.stdout.readline())
        assert idle_until_closed(port, timeout=8) >= 0.9
    finally:
        proc.kill()
        proc.wait(10)


WAITRESS_RUN_RETURNS = textwrap.dedent("""
    import os, signal, socket, sys, threading, waitress
    def app(environ, start_response):
        start_response("200 OK", [("Content-Length", "2")])
        return [b"ok"]
    def stop(signum, frame):
        raise KeyboardInterrupt  # what the entry's SIGTERM handler raises in the loop
    signal.signal(signal.SIGTERM, stop)
    listen = "127.0.0.1:0 127.0.0.1:0" if sys.argv[1] == "two" else "127.0.0.1:0"
    server = waitress.create_server(app, listen=listen)
    ports = [port for _, port in server.effective_listen] if sys.argv[1] == "two" else [server.effective_port]
    threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGTERM)).start()
    server.run()  # returns once the KeyboardInterrupt has reached it
    def listening(port):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return "listening"
        except ConnectionRefusedError:
            return "closed"
    print(type(server).__name__, *[listening(port) for port in ports])
""")


@needs("waitress")
@pytest.mark.parametrize("listen, after_run", [("one", "TcpWSGIServer listening"),
                                                ("two", "MultiSocketServer closed closed")])
def test_waitress_run_closes_its_sockets_only_with_several_listeners(listen, after_run):
    """waitress.md: the entry's SIGTERM raises KeyboardInterrupt in waitress's loop; with one listening
    socket (the entry's) create_server returns a TcpWSGIServer, whose run() only shuts the task dispatcher
    down on it (server.py 323-331) and leaves its socket listening until the process exits; only
    MultiSocketServer.run() (several listeners) also closes its sockets (server.py 164-176)."""
    out = subprocess.run([sys.executable, "-c", WAITRESS_RUN_RETURNS, listen], capture_output=True, text=True,
                         timeout=20)
    assert out.stdout.strip() == after_run, out.stderr


@needs("sanic")
def test_sanic_entry_gives_a_request_in_progress_3_seconds_at_sigterm_not_15():
    """sanic.md: Sanic's GRACEFUL_SHUTDOWN_TIMEOUT is 15 s, but the app sets it to GRACE_SECONDS (3 s):
    at SIGTERM the worker closes idle connections (close_if_idle), waits up to that long for the others
    (runners.py, _cleanup), then aborts them: a client midway through its head sees the reset after
    about 3 s, and the entry is gone well before 15 s."""
    import sanic.config

    from servers.adapters.shutdown import GRACE_SECONDS

    assert sanic.config.DEFAULT_CONFIG["GRACEFUL_SHUTDOWN_TIMEOUT"] == 15.0
    server = ServerProcess("sanic", ["--workers", "1"]).start()
    try:
        sock = connect(server.port, timeout=10)
        sock.sendall(b"GET / HTTP/1.1\r\nHost: lesson\r\n")  # a request in progress: its head never ends
        time.sleep(0.3)
        signalled = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        try:
            assert sock.recv(100) == b""
        except ConnectionResetError:
            pass
        closed = time.monotonic() - signalled
        sock.close()
        # Sanic counts its grace in 0.1 s sleeps of its loop: on a busy machine it runs late, never short
        assert GRACE_SECONDS - 0.5 <= closed <= GRACE_SECONDS + 4.0, closed
        server.proc.wait(15)
        assert time.monotonic() - signalled < 10.0  # far from Sanic's own 15 s
    finally:
        server.stop()


@needs("uvicorn")
def test_uvicorn_closes_idle_and_half_sent_connections_at_once_on_sigterm_and_lets_a_request_in_flight_finish():
    """uvicorn.md: at SIGTERM Server.shutdown calls shutdown() on every connection, and HttpToolsProtocol.shutdown
    closes at once one with no request in progress or its response complete (an idle keep-alive connection,
    one whose head is still arriving); one whose app runs is only told to close after its response, which
    it gets within timeout_graceful_shutdown (3 s here)."""
    server = ServerProcess("bare_asgi_uvicorn", ["--workers", "1"]).start()
    try:
        idle = connect(server.port, timeout=10)
        idle.sendall(HELLO)
        assert read_response(idle).startswith(b"HTTP/1.1 200")
        partial = connect(server.port, timeout=10)
        partial.sendall(b"GET / HTTP/1.1\r\nHost: lesson\r\n")  # its head never ends
        running = connect(server.port, timeout=10)
        running.sendall(b"POST /reflect HTTP/1.1\r\nHost: lesson\r\nContent-Length: 10\r\n\r\n12345")
        time.sleep(0.3)  # the app runs, waiting for the rest of the body
        signalled = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        assert idle.recv(100) == b""
        assert partial.recv(100) == b""
        closed = time.monotonic() - signalled
        assert closed < 1.0, closed  # at once: the 3 s of grace are not waited out for them
        running.sendall(b"67890")
        answer = read_response(running)
        assert answer.startswith(b"HTTP/1.1 200") and headers(answer).get("connection") == "close", answer
        for sock in (idle, partial, running):
            sock.close()
    finally:
        server.stop()


@needs("uvicorn", "zttp")
def test_uvicorn_with_http2_closes_a_silent_cleartext_connection_after_timeout_keep_alive():
    """uvicorn.md: with --http2 a cleartext connection is AutoZttpProtocol's until its first bytes tell the
    HTTP/2 preface from HTTP/1.1, and connection_made arms a timer of timeout_keep_alive (5 s) that closes
    it: a connection that sends nothing is closed after 5 s, where httptools' protocol (without --http2)
    keeps it open (the page's wire trace: not closed within 40 s)."""
    server = ServerProcess("bare_asgi_uvicorn", ["--workers", "1", "--http2"]).start()
    try:
        sock = connect(server.port, timeout=15)
        opened = time.monotonic()
        assert sock.recv(100) == b""
        after = time.monotonic() - opened
        sock.close()
        assert 4.5 <= after <= 7.0, after
    finally:
        server.stop()
