"""HTTPS on every server that terminates TLS (its spec's Tls; one entry per server and interpreter), with the suite's own CA
(harness.tls): the ready line says https, hello and json byte for byte, a backend route and
keep-alive over one verified connection, plain HTTP on that port gets no route's answer; the servers
that cannot terminate TLS refuse --certfile/--keyfile with one line and exit 2.

One start per entry (with --workers 1: what is checked does not depend on their number).
"""
from __future__ import annotations

import http.client
import json
import shutil
import socket
import ssl
import subprocess

import pytest

from backends.seed import REDIS_VALUE
from harness import tls
from servers.core import catalog
from servers.core.command import command
from serverproc import ServerProcess, backend_args



def _one_per_server(entries: list[catalog.Entry]) -> list[str]:
    """TLS is its server's (the adapter hands the pair to the server's own setting; the app never sees it):
    one entry per server and interpreter shows it, one that serves a backend route where there is one."""
    chosen: dict[tuple[str, str], catalog.Entry] = {}
    for entry in entries:
        key = (entry.server, entry.interpreter)
        if key not in chosen or (entry.serves(catalog.REDIS_OPS) and not chosen[key].serves(catalog.REDIS_OPS)):
            chosen[key] = entry
    return [entry.name for entry in chosen.values()]


TLS_ENTRIES = _one_per_server([e for e in catalog.ENTRIES if e.tls.terminates])
NO_TLS_ENTRIES = _one_per_server([e for e in catalog.ENTRIES if not e.tls.terminates])
TEXT_TYPES = ("text/plain", "text/plain; charset=utf-8")
JSON_TYPES = ("application/json", "application/json; charset=utf-8")


@pytest.fixture(scope="session")
def pair() -> tls.Pair:
    return tls.ensure()


@pytest.fixture
def https_server(backends, pair):
    """start(name) -> the entry serving HTTPS with the suite's pair, stopped after the test."""
    started: list[ServerProcess] = []

    def start(name: str) -> ServerProcess:
        server = ServerProcess(name, [*backend_args(backends), "--workers", "1", *pair.server_flags()])
        started.append(server)
        return server.start()

    yield start
    for server in started:
        server.stop()


def _get(conn: http.client.HTTPSConnection, path: str) -> tuple[http.client.HTTPResponse, bytes]:
    conn.request("GET", path)
    response = conn.getresponse()
    return response, response.read()


def _backend_route(entry: catalog.Entry, backends) -> str | None:
    """A backend route the entry serves (Redis where it can: the lighter backend), its backend running."""
    for ops, backend, path in ((catalog.REDIS_OPS, "redis", "/redis/pooled"), (catalog.MONGO_OPS, "mongo", "/mongo/pooled/1")):
        if entry.serves(ops):
            ensure = getattr(backends, "ensure", None)  # lazily started backends (issue 36); else already up
            if ensure is not None:
                ensure(backend)
            return path
    return None


def _plain_http_answer(port: int) -> bytes:
    """What a plain HTTP request to the port gets within 2 s (b"" when nothing)."""
    received = b""
    with socket.create_connection(("127.0.0.1", port), timeout=2) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        try:
            while chunk := sock.recv(4096):
                received += chunk
        except (TimeoutError, ConnectionError):
            pass
    return received


@pytest.mark.parametrize("name", TLS_ENTRIES)
def test_serves_the_contract_over_https(name, https_server, pair, backends):
    entry = catalog.get(name)
    server = https_server(name)
    assert server.ready.url == f"https://127.0.0.1:{server.port}", server.ready.line
    conn = http.client.HTTPSConnection("127.0.0.1", server.port, context=pair.client_context(), timeout=10)
    try:
        conn.connect()  # verifies the chain to the suite's CA and the name 127.0.0.1
        first_socket = conn.sock
        assert conn.sock.version() in ("TLSv1.2", "TLSv1.3"), conn.sock.version()
        response, body = _get(conn, "/")
        assert (response.status, body) == (200, b"Hello, World!")
        assert response.getheader("Content-Type") in TEXT_TYPES
        response, body = _get(conn, "/json")  # a keep-alive server answers on the same connection
        assert (response.status, body) == (200, b'{"message":"Hello, World!"}')
        assert response.getheader("Content-Type") in JSON_TYPES
        if entry.keepalive:
            assert conn.sock is first_socket and not response.will_close, \
                f"{name} closed the TLS connection after an answer: it is catalogued with keep-alive"
        else:
            assert response.will_close, f"{name} kept the TLS connection: it is catalogued without keep-alive"
        path = _backend_route(entry, backends)
        if path is not None:
            response, body = _get(conn, path)
            assert response.status == 200, (path, body)
            assert response.getheader("Content-Type") in JSON_TYPES
            value = json.loads(body)
            assert value.get("name") == REDIS_VALUE if "redis" in path else value.get("id") == 1, body
    finally:
        conn.close()
    assert b"Hello, World!" not in _plain_http_answer(server.port), f"{name} answered plain HTTP on its HTTPS port"
    assert server.alive(), server.stderr_tail()


@pytest.mark.parametrize("name", NO_TLS_ENTRIES)
def test_refuses_tls_flags_it_cannot_serve(name, pair):
    entry = catalog.get(name)
    done = subprocess.run(command(name, ["--port", "1", *pair.server_flags()]), capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2, done.stderr
    assert done.stdout == "" and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith(f"error: {name} cannot serve HTTPS") and entry.tls.cannot in done.stderr, done.stderr


def test_a_client_with_another_ca_refuses_the_certificate(https_server, pair, tmp_path):
    """The certificate served is the suite's: a client that trusts another CA refuses it."""
    other = tls.ensure(tmp_path / "other")
    server = https_server("nethttp")
    with pytest.raises(ssl.SSLCertVerificationError):
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
            other.client_context().wrap_socket(sock, server_hostname="127.0.0.1")


@pytest.mark.parametrize("name", ["flask_gunicorn_gthread", "nethttp"])
@pytest.mark.parametrize("flags, says", [
    (["--certfile", "CERT"], "--certfile and --keyfile go together"),
    (["--certfile", "CA", "--keyfile", "KEY"], "do not load"),
    (["--certfile", "MISSING", "--keyfile", "KEY"], ""),
])
def test_bad_tls_flags_are_one_line_and_exit_2(name, flags, says, pair, tmp_path):
    paths = {"CERT": str(pair.cert), "KEY": str(pair.key), "CA": str(pair.ca), "MISSING": str(tmp_path / "missing.pem")}
    done = subprocess.run(command(name, ["--port", "1", *(paths.get(f, f) for f in flags)]), capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == "", (done.returncode, done.stdout, done.stderr)
    assert done.stderr.startswith("error: ") and done.stderr.count("\n") == 1 and says in done.stderr, done.stderr


# -- the anatomy's tls layer ------------------------------------------------------------------------

def test_the_tls_librarys_frames_are_the_tls_layer():
    from anatomy import layers

    gthread = layers.rules_for("gunicorn-gthread", "flask")
    assert layers.layer_of_stack(["TConn.init (gunicorn/workers/gthread.py:90)",
                                  "SSLSocket.do_handshake (/usr/lib/python3.11/ssl.py:1346)"], gthread) == layers.TLS
    assert layers.layer_of_stack(["TConn.init (gunicorn/workers/gthread.py:90)",
                                  "socket.recv (/usr/lib/python3.11/socket.py:1)"], gthread) == layers.SERVER
    gevent = layers.rules_for("gevent", "flask")
    assert layers.layer_of_frame("SSLSocket.read (site-packages/gevent/ssl.py:500)", gevent) == layers.TLS
    go = layers.rules_for("net/http", "nethttp")
    assert layers.layer_of_stack(["net/http.(*conn).serve", "crypto/tls.(*Conn).Write",
                                  "crypto/internal/fips140/aes/gcm.seal"], go) == layers.TLS
    assert layers.layer_of_stack(["net/http.(*conn).serve", "crypto/tls.(*Conn).Write",
                                  "internal/poll.(*FD).Write"], go) == layers.SERVER  # the write, not the crypto


def test_perfs_native_share_moves_to_the_tls_layer_and_keeps_the_total():
    from collections import Counter

    from anatomy import layers, perfdso

    shares = perfdso.parse("    76.95%  libpython3.11.so.1.0\n     2.88%  libcrypto.so.3\n     1.73%  libssl.so.3\n"
                           "     0.58%  _ssl.cpython-311-x86_64-linux-gnu.so\n")
    assert perfdso.share(shares, catalog.get("flask_gunicorn_gthread").tls.native) == pytest.approx(5.19)
    before = layers.Attribution(Counter({layers.SERVER: 6.0, layers.FRAMEWORK: 4.0}),
                                Counter({("f", layers.SERVER): 6.0, ("g", layers.FRAMEWORK): 4.0}))
    after = layers.with_native_share(before, layers.TLS, 0.1, "OpenSSL")
    assert after.active == pytest.approx(10.0)
    assert after.shares() == pytest.approx({layers.SERVER: 54.0, layers.TLS: 10.0, layers.FRAMEWORK: 36.0})


@pytest.mark.skipif(shutil.which("wrk") is None, reason="wrk is not installed (apt-get install wrk)")
def test_the_anatomy_over_tls_measures_the_tls_layer(tmp_path):
    from anatomy import perfdso, pyspy, session

    if pyspy.unavailable() or perfdso.unavailable():
        pytest.skip(pyspy.unavailable() or perfdso.unavailable())
    result = session.run(session.Settings(name="falcon_gunicorn_gthread", seconds=4.0, connections=8, workers=1,
                                          workdir=tmp_path, protocol="h1-tls"))
    assert result["protocol"] == "h1-tls" and result["load"]["requests"], result["load"]
    cpu = result["cpu"]
    assert cpu["tls_native_pct"] and cpu["tls_native_pct"] > 0, cpu.get("tls_native_why")
    assert cpu["layers"].get("tls", 0) >= cpu["tls_native_pct"] * 0.9


@pytest.mark.parametrize("name", ["flask_threaded", "stdlib_threaded", "flask_cheroot"])
def test_a_silent_connection_stalls_the_accepting_threads_handshakes(name, https_server, pair):
    """werkzeug's and http.server's TLS wraps the listening socket: the accepting thread handshakes each
    connection (ssl.SSLSocket.accept) before its own thread starts, with no timeout; cheroot's selector thread
    wraps each accepted socket before a pool thread gets it (10 s timeout). So one client that connects and
    sends nothing holds every other (the specs' Tls.where; a handshake moved into the connection's thread
    would fail this)."""
    server = https_server(name)
    with socket.create_connection(("127.0.0.1", server.port)):  # silent: no ClientHello
        conn = http.client.HTTPSConnection("127.0.0.1", server.port, context=pair.client_context(), timeout=2)
        with pytest.raises((TimeoutError, socket.timeout)):
            conn.request("GET", "/")
            conn.getresponse().read()
        conn.close()
    conn = http.client.HTTPSConnection("127.0.0.1", server.port, context=pair.client_context(), timeout=10)
    conn.request("GET", "/")  # the silent client gone, the accepting thread serves again
    assert conn.getresponse().read() == b"Hello, World!"
    conn.close()
