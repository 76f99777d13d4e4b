"""The hello part of the route contract, byte for byte, on every catalog entry (real processes)."""
from __future__ import annotations

import http.client
import socket
import subprocess
import time
from datetime import datetime
from email.utils import parsedate_to_datetime

import pytest

from servers.core import catalog
from servers.core.command import command
from machine import MachineShare
from serverproc import ServerProcess

TEXT_TYPES = ("text/plain", "text/plain; charset=utf-8")
JSON_TYPES = ("application/json", "application/json; charset=utf-8")
HELLO = b"Hello, World!"
HELLO_JSON = b'{"message":"Hello, World!"}'
NOT_FOUND = b'{"error":"not found"}'
METHOD_NOT_ALLOWED = b'{"error":"method not allowed"}'
ENTRY_NAMES = [e.name for e in catalog.ENTRIES]
STOP_S = 5.0  # the contract: SIGTERM stops an entry, workers included, within 5 s
STOP_WAIT_MOST_S = 25.0  # how long a busy machine may stretch it
# A bad flag and a port in use are refused before an app or a server is imported (servers/core/launch.py;
# Go: servers/go/internal/cli), by one mechanism per language: one entry per server and interpreter shows it.
ONE_PER_SERVER = list({(e.server, e.interpreter): e.name for e in reversed(catalog.ENTRIES)}.values())[::-1]


def date_of(response: http.client.HTTPResponse, name: str) -> datetime:
    """The response's Date, or a failure that says the server sent none or a malformed one (the adapter contract:
    docs/contributing.md, step 1; servers/adapters/wsgi_headers.py and asgi_headers.py add what a server leaves out)."""
    value = response.getheader("Date")
    assert value, (f"{name}: the server sent no Date header; the contract asks for one (an ASGI server that sends none: "
                   "wrap the app in servers.adapters.asgi_headers.with_default_headers; WSGI: wsgi_headers)")
    try:
        return parsedate_to_datetime(value)
    except (TypeError, ValueError):
        raise AssertionError(f"{name}: its Date header {value!r} is not an HTTP date (RFC 9110 5.6.7)") from None


# Per server process: when its first answer was read and the Date it carried (test_date_changes).
FIRST_DATES: dict[int, tuple[float, datetime]] = {}


@pytest.fixture(params=ENTRY_NAMES)
def server(request, running) -> ServerProcess:
    server = running(request.param)
    if server.proc.pid not in FIRST_DATES:
        first, _ = server.request("/")
        FIRST_DATES[server.proc.pid] = (time.monotonic(), date_of(first, server.name))
    return server


def assert_framing(response: http.client.HTTPResponse, body: bytes) -> None:
    length = response.getheader("Content-Length")
    if length is not None:
        assert int(length) == len(body)
    else:
        assert response.getheader("Transfer-Encoding", "").lower() == "chunked"
    assert response.getheader("Server"), "every response names its Server"
    assert date_of(response, "the server").tzinfo is not None


def test_ready_line(server):
    ready = server.ready
    entry = catalog.get(server.name)
    assert ready.name == server.name and ready.port == server.port and ready.host == "127.0.0.1"
    assert ready.workers == entry.default_workers()


def test_plaintext(server):
    response, body = server.request("/")
    assert response.status == 200
    assert response.getheader("Content-Type") in TEXT_TYPES
    assert body == HELLO
    assert_framing(response, body)


def test_json(server):
    response, body = server.request("/json")
    assert response.status == 200
    assert response.getheader("Content-Type") in JSON_TYPES
    assert body == HELLO_JSON
    assert_framing(response, body)


def test_keep_alive(server):
    entry = catalog.get(server.name)
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        conn.request("GET", "/")
        first = conn.getresponse()
        assert first.read() == HELLO
        if not entry.keepalive:
            assert first.will_close, f"{server.name} is catalogued without keep-alive"
            return
        assert not first.will_close, f"{server.name} closed a keep-alive connection"
        sock = conn.sock
        conn.request("GET", "/json")
        second = conn.getresponse()
        assert second.read() == HELLO_JSON
        assert conn.sock is sock, "the second request went over the same connection"
    finally:
        conn.close()


def test_date_changes(server):
    """Date moves on; servers may cache it for a second (uvicorn refreshes it on its main loop's
    tick, late when the machine is busy), so a stale one gets up to 3 s more to change. Compared with
    the server's first answer, read when its first test began: by now more than a second has passed
    (the earlier tests ran meanwhile), so no test sleeps for it."""
    read_at, before = FIRST_DATES[server.proc.pid]
    time.sleep(max(0.0, read_at + 1.05 - time.monotonic()))
    deadline = time.monotonic() + 3.0
    while True:
        second, _ = server.request("/")
        after = date_of(second, server.name)
        if after > before or time.monotonic() > deadline:
            break
        time.sleep(0.25)
    assert after > before


@pytest.mark.parametrize("path", ["/nope", "/json/extra", "/mongo", "/redis", "/mongo/pooled/"])
def test_unknown_route_is_404(server, path):
    response, body = server.request(path)
    assert (response.status, body) == (404, NOT_FOUND)
    assert response.getheader("Content-Type") in JSON_TYPES
    assert_framing(response, body)


@pytest.mark.parametrize("method,path", [("POST", "/"), ("PUT", "/json"), ("DELETE", "/")])
def test_wrong_method_is_405(server, method, path):
    response, body = server.request(path, method)
    assert (response.status, body) == (405, METHOD_NOT_ALLOWED)
    assert response.getheader("Content-Type") in JSON_TYPES
    allowed = {m.strip() for m in response.getheader("Allow", "").split(",")}
    assert "GET" in allowed and method not in allowed, f"Allow: {response.getheader('Allow')!r}"
    assert_framing(response, body)


@pytest.mark.parametrize("name", ONE_PER_SERVER)
def test_port_in_use_exits_2_with_one_line(name, tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(command(name, ["--port", str(port)]), capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and str(port) in lines[0] and "in use" in lines[0], done.stderr


@pytest.mark.parametrize("name", ONE_PER_SERVER)
def test_bad_flag_exits_2_with_one_line(name):
    done = subprocess.run(command(name, ["--port", "notaport"]), capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


@pytest.mark.parametrize("host", ["x:abc", "127:.0.0.1", "x:"])
def test_host_with_a_bad_port_is_answered_not_hung(server, host):
    """tornado's WSGIContainer once left such a request unanswered and the connection open."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=3) as sock:
        sock.sendall(f"GET /json HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)  # a hang raises TimeoutError
            if not chunk:
                break  # closing is an answer too
            data += chunk
    assert b"Traceback" not in data
    if data:
        status = int(data.split(b" ", 2)[1])
        assert 200 <= status < 500, data[:200]


@pytest.mark.stops_server
def test_sigterm_stops_within_5s(server):
    """The stack's own server, after every other test of it has run (`stops_server`: tests/conftest.py puts
    it last): what stops is a server that has served."""
    assert server.request("/")[0].status == 200
    machine = MachineShare(server)
    code, elapsed, survivors = server.terminate(timeout=STOP_WAIT_MOST_S)
    busy = machine.over()
    # 5 s on a quiet machine; a stop starved by other processes gets that much longer (tests/machine.py)
    allowed = machine.allowance(STOP_S, busy["foreign_cpu_pct"], most=STOP_WAIT_MOST_S)
    waited = (f"waited {elapsed:.1f} s of the {allowed:.1f} s allowed ({STOP_S:g} s, the machine's other "
              f"processes took {busy['foreign_cpu_pct']}% of its CPU meanwhile, steal {busy['steal_pct']}%)")
    assert code == 0, f"exit code {code} after SIGTERM; {waited}; stderr:\n{server.stderr_text()}"
    assert elapsed <= allowed, waited
    assert not survivors, f"workers left behind: {survivors}"
