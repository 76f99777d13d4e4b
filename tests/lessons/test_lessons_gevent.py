"""What the gevent-prefork page says about stopping, sending and accepting, shown on the installed gevent."""
from __future__ import annotations

import inspect
import signal
import subprocess
import sys
import textwrap
import time

from lessontools import HELLO, connect, needs, read_response, strace
from serverproc import ServerProcess


@needs("gevent")
def test_gevent_prefork_stop_drops_a_request_in_flight_at_once_since_the_server_has_no_pool():
    """gevent-prefork.md: BaseServer.stop waits for the handlers (and kills the rest after its timeout)
    only when the server has a pool; the adapter gives WSGIServer none, so stop(timeout=3) only closes the
    listener, serve_forever returns and the worker exits: a request whose body is still arriving is dropped
    unanswered, though the rest of its body comes 0.5 s after the signal, well inside the 3 s."""
    from gevent.baseserver import BaseServer
    from gevent.pywsgi import WSGIServer

    assert "if self.pool:" in inspect.getsource(BaseServer.stop)  # the join and the kill are under it
    assert WSGIServer(("127.0.0.1", 0), lambda environ, start_response: []).pool is None  # no spawn given
    server = ServerProcess("bare_gevent", ["--workers", "1"]).start()
    try:
        sock = connect(server.port, timeout=5)
        sock.sendall(b"POST /reflect HTTP/1.1\r\nHost: lesson\r\nContent-Length: 10\r\n\r\n12345")
        time.sleep(0.3)  # the app runs, reading the body
        signalled = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        time.sleep(0.5)
        try:
            sock.sendall(b"67890")  # the rest of the body: a server that drains for 3 s answers it
            answer = sock.recv(100)
        except ConnectionResetError:
            answer = b""
        sock.close()
        assert answer == b"", answer
        server.proc.wait(10)
        assert time.monotonic() - signalled < 2.0  # gone without waiting out the 3 s
    finally:
        server.stop()


@needs("gevent")
def test_gevent_reads_so_sndbuf_on_every_sendall_two_per_response():
    """gevent-prefork.md: gevent's _sendall asks getsockopt(SO_SNDBUF) to size its chunks on every call,
    and pywsgi sends the head and the body in two sendall calls: two getsockopt and two sendto a response."""
    server = ServerProcess("bare_gevent", ["--workers", "1"]).start()
    try:
        client = connect(server.port)
        client.sendall(HELLO)
        read_response(client)  # a first request: lazy setup is not in the trace

        def one():
            client.sendall(HELLO)
            assert read_response(client).startswith(b"HTTP/1.1 200")

        calls = [call.line for call in strace([server.proc.pid], "getsockopt,sendto,sendmsg,write,writev", one)]
        client.close()
        sndbuf = [line for line in calls if line.startswith("getsockopt(") and "SO_SNDBUF" in line]
        sends = [line for line in calls if line.startswith("sendto(")]
        assert len(sends) == 2 and "HTTP/1.1 200" in sends[0] and "Hello, World!" in sends[1], calls
        assert len(sndbuf) == 2, calls
    finally:
        server.stop()


ACCEPTS_PER_WAKEUP = textwrap.dedent("""
    import json, socket, sys
    import gevent
    from gevent.pywsgi import WSGIServer

    listener = socket.create_server(("127.0.0.1", 0), backlog=64)
    clients = [socket.create_connection(listener.getsockname()) for _ in range(20)]  # queued before start
    environ = json.loads(sys.argv[1])

    class Counting(WSGIServer):
        wakeups = []

        def _do_read(self):  # what the loop runs once per readable event of the listening socket
            before = len(self.accepted)
            super()._do_read()
            self.wakeups.append(len(self.accepted) - before)

        def do_read(self):
            got = super().do_read()
            if got:
                self.accepted.append(got[0])
            return got

    server = Counting(gevent.socket.socket(fileno=listener.detach()), lambda e, s: [], environ=environ)
    server.accepted = []
    server.start()
    while len(server.accepted) < 20:
        gevent.sleep(0.01)
    print(json.dumps({"multiprocess": server.environ["wsgi.multiprocess"], "max_accept": server.max_accept,
                      "first_wakeup": server.wakeups[0]}))
""")


@needs("gevent", "gunicorn")
def test_gevent_says_wsgi_multiprocess_false_so_a_worker_accepts_up_to_100_connections_per_wakeup():
    """gevent-prefork.md: WSGIServer's environ says `wsgi.multiprocess: False` unless told otherwise, and only
    a multiprocess environ lowers max_accept to 1 (set_max_accept); the adapter passes none, so a pre-forked
    worker keeps max_accept 100 and accepts every waiting connection in one wake-up (20 here), where
    gunicorn's gevent worker, which says its worker count, takes one per wake-up."""
    import gunicorn.workers.ggevent

    def run(environ: str) -> dict:
        import json

        out = subprocess.run([sys.executable, "-c", ACCEPTS_PER_WAKEUP, environ], capture_output=True, text=True,
                             timeout=60, check=True)
        return json.loads(out.stdout)

    assert run("{}") == {"multiprocess": False, "max_accept": 100, "first_wakeup": 20}
    assert run('{"wsgi.multiprocess": true}') == {"multiprocess": True, "max_accept": 1, "first_wakeup": 1}
    assert "server.max_accept = 1" in inspect.getsource(gunicorn.workers.ggevent.GeventWorker.run)
