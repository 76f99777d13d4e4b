"""HTTP/2 on every server that speaks it (its spec's Http2; one entry per server: HTTP/2 is the server's, the app
never sees it), in each mode the spec declares: h2 over TLS by ALPN (verified against the suite's CA) and h2c by
prior knowledge, each entry started without --http2 where its server serves the mode by default and with it where
the flag turns it on. On each: the route contract's hello and json byte for byte with TechEmpower's header checks,
a backend route, concurrent streams on one connection, h2c by `Upgrade` exactly where the spec says it is offered,
and HTTP/1.1 still served on the same port. Servers without HTTP/2 refuse --http2 with one line and exit 2, and a
server whose flag adds a mode does not serve it without the flag.

Clients: httpx with h2 (the everyday client) and tests/h2client.py on python-hyper's h2 for what httpx does not do
(every stream sent before any answer is read, the upgrade). The free-threaded entries are left out: .venv-ft has
no h2 package, and --http2 there is refused (servers.core.launch.check_http2).
"""
from __future__ import annotations

import fnmatch
import http.client
import json
import socket
import subprocess
from email.utils import parsedate_to_datetime

import httpx
import pytest

from backends.seed import REDIS_VALUE
from h2client import H2Connection
from harness import tls
from serverproc import ServerProcess, backend_args
from servers.core import catalog
from servers.core.command import command
from servers.core.specs import ALPN, PRIOR_KNOWLEDGE, UPGRADE

HELLO, HELLO_JSON = b"Hello, World!", b'{"message":"Hello, World!"}'
TEXT_TYPES = ("text/plain", "text/plain; charset=utf-8")
JSON_TYPES = ("application/json", "application/json; charset=utf-8")
STREAMS = 12  # concurrent streams on one connection: below every server's SETTINGS_MAX_CONCURRENT_STREAMS (100+)
SOAK = 4_500  # requests on one connection: past Hypercorn's 1,000 a connection and zttp's 4,096 streams


def _one_per_server(entries: list[catalog.Entry]) -> list[catalog.Entry]:
    """One entry per server on the GIL build, one with a Redis route where the server has one."""
    chosen: dict[str, catalog.Entry] = {}
    for entry in entries:
        if entry.free_threaded:
            continue
        if entry.server not in chosen or (entry.serves(catalog.REDIS_OPS)
                                          and not chosen[entry.server].serves(catalog.REDIS_OPS)):
            chosen[entry.server] = entry
    return list(chosen.values())


H2_ENTRIES = _one_per_server([e for e in catalog.ENTRIES if e.http2.speaks])
NO_H2_ENTRIES = _one_per_server([e for e in catalog.ENTRIES if not e.http2.speaks])
# (entry, protocol): h2 where the server speaks it over TLS, h2c where it serves the preface in cleartext
CASES = [(e.name, p) for e in H2_ENTRIES for p, mode in (("h2", ALPN), ("h2c", PRIOR_KNOWLEDGE)) if mode in e.http2.modes]
H2C_CASES = [(n, p) for n, p in CASES if p == "h2c"]


def _cases(cases: list[tuple[str, str]]):
    """Parametrize a test over (entry, protocol) starts of the module's h2 fixture (shared by the tests of one start)."""
    return pytest.mark.parametrize("h2", cases, ids=[f"{n}-{p}" for n, p in cases], indirect=True)
FLAG_ADDS = [e.name for e in H2_ENTRIES if e.http2.flag_adds]


def declared_failure(test_name: str, entry: catalog.Entry) -> str | None:
    """The caveat of `entry` whose evidence names this test (Caveat.evidence, as the reliability suite reads it)."""
    for key in entry.caveats:
        for pattern, _ in catalog.CAVEAT_EVIDENCE.get(key, ()):
            if fnmatch.fnmatchcase(test_name, pattern.format(name=entry.name).replace("[", "[[]")):
                return f"catalog caveat {key!r}: {catalog.CAVEATS[key]}"
    return None


@pytest.fixture(scope="session")
def pair() -> tls.Pair:
    return tls.ensure()


def _flags(entry: catalog.Entry, protocol: str, pair: tls.Pair) -> list[str]:
    """--http2 only where the mode is not the server's default: the default is tested as shipped."""
    mode = ALPN if protocol == "h2" else PRIOR_KNOWLEDGE
    return [*(pair.server_flags() if protocol == "h2" else []), *(["--http2"] if mode in entry.http2.flag_adds else [])]


@pytest.fixture(scope="module")
def h2(request, backends, pair):
    """(entry, protocol, server): the entry serving HTTP/2 in that mode, once for every test of this module."""
    name, protocol = request.param
    entry = catalog.get(name)
    server = ServerProcess(name, [*backend_args(backends), "--workers", "1", *_flags(entry, protocol, pair)]).start()
    yield entry, protocol, server
    server.stop()


@pytest.fixture
def expect(request, h2):
    """Mark the test an expected failure where a caveat of the entry names it as its evidence."""
    caveat = declared_failure(request.node.name, h2[0])
    if caveat:
        request.applymarker(pytest.mark.xfail(strict=True, reason=caveat))
    return h2


def _client(protocol: str, pair: tls.Pair) -> httpx.Client:
    if protocol == "h2":  # ALPN offers h2 and http/1.1; the server's certificate checked against the suite's CA
        return httpx.Client(http2=True, verify=pair.client_context(), timeout=10)
    return httpx.Client(http1=False, http2=True, timeout=10)  # prior knowledge: the preface, no HTTP/1.1 first


def _base(server: ServerProcess, protocol: str) -> str:
    return f"{'https' if protocol == 'h2' else 'http'}://127.0.0.1:{server.port}"


def _backend_route(entry: catalog.Entry, backends) -> str | None:
    """A backend route the entry serves (Redis where it can: the lighter backend), its backend running."""
    for ops, backend, path in ((catalog.REDIS_OPS, "redis", "/redis/pooled"), (catalog.MONGO_OPS, "mongo", "/mongo/pooled/1")):
        if entry.serves(ops):
            ensure = getattr(backends, "ensure", None)  # lazily started backends (issue 36); else already up
            if ensure is not None:
                ensure(backend)
            return path
    return None


def _backend_ok(path: str, body: bytes) -> bool:
    value = json.loads(body)
    return value == {"name": REDIS_VALUE} if "redis" in path else value.get("id") == 1


def _tls_context(pair: tls.Pair, protocol: str):
    return pair.client_context() if protocol == "h2" else None


@_cases(CASES)
def test_serves_the_contract_over_h2(h2, pair, backends):
    entry, protocol, server = h2
    with _client(protocol, pair) as client:
        for path, body, types in (("/", HELLO, TEXT_TYPES), ("/json", HELLO_JSON, JSON_TYPES)):
            response = client.get(_base(server, protocol) + path)
            assert response.http_version == "HTTP/2", f"{entry.name} answered {path} over {response.http_version}"
            assert (response.status_code, response.content) == (200, body)
            assert response.headers.get("content-type") in types, response.headers
            assert response.headers.get("content-length") == str(len(body)), response.headers
        path = _backend_route(entry, backends)
        if path is not None:
            response = client.get(_base(server, protocol) + path)
            assert response.http_version == "HTTP/2" and response.status_code == 200, (path, response.content)
            assert response.headers.get("content-type") in JSON_TYPES and _backend_ok(path, response.content)
    assert server.alive(), server.stderr_tail()


@_cases(CASES)
def test_h2_answers_carry_date_and_server(expect, pair):
    """TechEmpower's header checks over HTTP/2 too: a Date that parses, a Server."""
    entry, protocol, server = expect
    with _client(protocol, pair) as client:
        response = client.get(_base(server, protocol) + "/")
    assert response.status_code == 200
    assert response.headers.get("server"), f"{entry.name}: no Server over HTTP/2: {dict(response.headers)}"
    date = response.headers.get("date")
    assert date and parsedate_to_datetime(date).tzinfo is not None, f"{entry.name}: Date {date!r} over HTTP/2"


@_cases(CASES)
def test_concurrent_streams_on_one_connection(h2, pair, backends):
    """STREAMS requests sent on one connection before any answer is read: each stream gets its own answer."""
    entry, protocol, server = h2
    backend = _backend_route(entry, backends)
    paths = [("/", "/json", backend or "/")[i % 3] for i in range(STREAMS)]
    conn = H2Connection(server.port, _tls_context(pair, protocol)).open()
    try:
        if protocol == "h2":
            assert conn.alpn == "h2", f"{entry.name}: ALPN chose {conn.alpn!r}"
        answers = conn.get(paths)
    finally:
        conn.close()
    assert len({a.stream_id for a in answers}) == STREAMS
    for path, answer in zip(paths, answers):
        assert answer.reset is None and answer.status == 200, (path, answer)
        if path == "/":
            assert answer.body == HELLO
        elif path == "/json":
            assert answer.body == HELLO_JSON
        else:
            assert _backend_ok(path, answer.body), (path, answer.body)


@pytest.mark.reliability  # a soak, 4,500 requests a server: the reliability suite's (CI runs it)
@_cases(CASES)
def test_a_long_lived_connection_is_closed_without_an_error(expect, pair):
    """SOAK requests, 16 in flight at a time, on one connection: a server may end the connection with GOAWAY
    (a request limit), but the client did nothing wrong, so its error code must be NO_ERROR (RFC 9113 6.8), which
    lets a client retry the streams above the last stream id; an error code makes clients (Go's) fail them."""
    entry, protocol, server = expect
    conn = H2Connection(server.port, _tls_context(pair, protocol)).open()
    try:
        answered = conn.soak("/", SOAK, 16)
    finally:
        conn.close()
    if not conn.goaways:
        assert answered == SOAK
    errors = [(code, last) for code, last in conn.goaways if code != 0]
    assert not errors, (f"{entry.name}: GOAWAY (error code, last stream id) {conn.goaways} after {answered} answers "
                        f"on one connection")
    if conn.goaways:  # every stream the server said it processed was answered
        last = conn.goaways[-1][1]
        unanswered = [a.stream_id for a in conn.answers.values() if a.stream_id <= last and not a.ended]
        assert not unanswered, f"{entry.name}: streams {unanswered[:5]} at or below the last stream id {last} unanswered"


@_cases(H2C_CASES)
def test_h2c_by_upgrade_exactly_where_the_spec_offers_it(h2):
    """An HTTP/1.1 GET with `Upgrade: h2c`: answered 101 then over HTTP/2 on stream 1 where the spec lists the
    Upgrade mode; elsewhere served over HTTP/1.1 as if the header were not there (RFC 9110 7.8: a server may
    ignore Upgrade)."""
    entry, protocol, server = h2
    conn = H2Connection(server.port)
    try:
        if UPGRADE in entry.http2.modes:
            answer = conn.upgrade("/json")
            assert (answer.status, answer.body) == (200, HELLO_JSON), answer
            (hello,) = conn.get(["/"])  # the connection goes on as HTTP/2
            assert (hello.status, hello.body) == (200, HELLO)
        else:
            with pytest.raises(AssertionError, match=r"no switch to h2c: b'HTTP/1\.1 200"):
                conn.upgrade("/json")
    finally:
        conn.close()


@_cases(CASES)
def test_http1_is_still_served_beside_h2(h2, pair):
    """The same port answers an HTTP/1.1 client: ALPN's http/1.1 over TLS, a plain request line in cleartext."""
    entry, protocol, server = h2
    if protocol == "h2":
        conn = http.client.HTTPSConnection("127.0.0.1", server.port, context=pair.client_context(), timeout=10)
    else:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        conn.request("GET", "/json")
        response = conn.getresponse()
        assert (response.version, response.status, response.read()) == (11, 200, HELLO_JSON)
        if protocol == "h2":
            assert conn.sock.selected_alpn_protocol() in (None, "http/1.1")
    finally:
        conn.close()


def _speaks_h2c(port: int) -> bool:
    """Whether a connection that opens with the client preface gets HTTP/2 back (a SETTINGS frame)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0]))
        try:
            head = sock.recv(9)
        except (TimeoutError, ConnectionError):
            return False
    return len(head) == 9 and head[3] == 4  # frame type 4: SETTINGS


@pytest.mark.parametrize("name", FLAG_ADDS)
def test_without_the_flag_only_the_default_is_served(name, start_server, pair):
    """What --http2 adds is off without it: ALPN picks http/1.1 (gunicorn, uvicorn) or the preface gets no
    HTTP/2 (Go), while the default modes stay served."""
    entry = catalog.get(name)
    adds = entry.http2.flag_adds
    over_tls = ALPN in adds or ALPN in entry.http2.default
    server = start_server(name, ["--workers", "1", *(pair.server_flags() if over_tls else [])])
    if over_tls:
        alpn = H2Connection(server.port, pair.client_context()).negotiate()
        assert (alpn == "h2") == (ALPN in entry.http2.default), f"{name}: ALPN chose {alpn!r}"
    if PRIOR_KNOWLEDGE in adds:
        plain = server if not over_tls else start_server(name, ["--workers", "1"])
        assert not _speaks_h2c(plain.port), f"{name} served h2c without --http2"


@pytest.mark.parametrize("name", [e.name for e in NO_H2_ENTRIES])
def test_refuses_http2_it_cannot_serve(name):
    entry = catalog.get(name)
    done = subprocess.run(command(name, ["--port", "1", "--http2"]), capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == "", (done.returncode, done.stdout, done.stderr)
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(f"error: {name} cannot serve HTTP/2 (--http2)")
    if entry.language == "python":
        assert entry.http2.cannot in done.stderr, done.stderr


def test_a_tls_only_server_refuses_http2_in_cleartext():
    tls_only = next(e for e in H2_ENTRIES if not e.http2.cleartext)
    done = subprocess.run(command(tls_only.name, ["--port", "1", "--http2"]), capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "only over TLS" in done.stderr and tls_only.http2.missing in done.stderr, done.stderr


# -- the anatomy's h2 layer -------------------------------------------------------------------------

def test_the_servers_http2_frames_are_the_h2_layer():
    """Http2.code_paths: python-hyper's h2/hpack/hyperframe and the server's HTTP/2 glue, Go's bundled http2."""
    from anatomy import layers

    asgi = layers.rules_for("gunicorn-asgi", "starlette")
    assert layers.layer_of_frame("Decoder.decode (site-packages/hpack/hpack.py:400)", asgi) == layers.H2
    assert layers.layer_of_frame("HTTP2Request.__init__ (site-packages/gunicorn/http2/request.py:50)", asgi) == layers.H2
    assert layers.layer_of_frame("ASGIProtocol.data_received (site-packages/gunicorn/asgi/protocol.py:999)",
                                 asgi) == layers.SERVER
    hypercorn = layers.rules_for("hypercorn", "starlette")
    assert layers.layer_of_frame("H2Protocol.handle (site-packages/hypercorn/protocol/h2.py:182)", hypercorn) == layers.H2
    assert layers.layer_of_frame("H11Protocol.handle (site-packages/hypercorn/protocol/h11.py:1)", hypercorn) == layers.SERVER
    go = layers.rules_for("net/http", "nethttp")
    assert layers.layer_of_stack(["net/http.(*conn).serve", "net/http.(*http2serverConn).serve"], go) == layers.H2
    assert layers.layer_of_stack(["net/http.(*http2Framer).ReadFrame",
                                  "vendor/golang.org/x/net/http2/hpack.(*Decoder).Write"], go) == layers.H2
    assert layers.layer_of_stack(["net/http.(*conn).serve", "net/http.(*conn).readRequest"], go) == layers.SERVER
    granian = layers.rules_for("granian-asgi", "starlette")
    assert not any(layer == layers.H2 for _, layer in granian.prefixes)  # hyper's frames are Rust's: native


def test_the_anatomy_over_h2c_measures_the_h2_layer(tmp_path):
    from anatomy import pyspy, session

    if pyspy.unavailable():
        pytest.skip(pyspy.unavailable())
    # Hypercorn closes each connection after 1,000 requests (keep_alive_max_requests) and h2load does not reconnect:
    # 32 connections hold 32,000 requests, past what one worker serves in 3 s (8 ran out after 2.7 s once)
    result = session.run(session.Settings(name="starlette_hypercorn", seconds=3.0, connections=32, streams=2,
                                          workers=1, workdir=tmp_path, protocol="h2c"))
    assert result["protocol"] == "h2c" and result["streams"] == 2 and result["load"]["requests"], result["load"]
    assert "h2" in result["versions"]
    assert result["cpu"]["layers"].get("h2", 0) > 5, result["cpu"]["layers"]
