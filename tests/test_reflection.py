"""The reflection route on every parser owner, and catalog.parser_owner over the whole catalog.

Each server's parser owner (the bare WSGI, ASGI and RSGI apps on their servers; the tornado,
twisted.web, Sanic and stdlib apps; the Go nethttp and fasthttp commands) answers `/reflect` with
what its server handed the app (servers/apps/reflection.py). Here each owner runs as a real process
(the `running` fixture, shared with the hello contract's tests) and valid requests, written raw on
a socket, must come back as sent: the target of a GET, a HEAD's X-Reflect without a body, a
Content-Length body, a chunked body (decoded), two pipelined requests in order, a header field.

Where a server cannot, that is declared, never skipped: a production server's caveat names the test
as its evidence (Caveat.evidence, an expected failure that must keep failing), a dev-only server's
reason says "no chunked request bodies" (the test then holds it to that), and a server without
keep-alive (ServerSpec.keepalive) answers the first of two pipelined requests and closes.
"""
from __future__ import annotations

import fnmatch
import hashlib
import http.client
import socket

import pytest

from conformance import reflection
from servers.apps import reflection as rendering
from servers.core import catalog, interpreters

OWNERS = list(dict.fromkeys(catalog.parser_owner(e).name for e in catalog.ENTRIES))
TIMEOUT_S = 5.0
NO_CHUNKED = "no chunked request bodies"  # a dev-only reason's phrase (ServerSpec.dev_only)
BODY = b"reflected body, 31 bytes long.\n"
CHUNKS = (b"first chunk, ", b"then the second")


class _Stream:
    """One buffered reader of a socket, handed to every http.client.HTTPResponse read from it, so that
    pipelined answers are read one after the other (a response that says close does not close it)."""

    def __init__(self, sock: socket.socket):
        self.file = sock.makefile("rb")

    def makefile(self, *args, **kwargs) -> "_Stream":
        return self

    def __getattr__(self, name: str):
        return getattr(self.file, name)

    def close(self) -> None:
        pass


def exchange(port: int, data: bytes, methods: tuple[str, ...], timeout: float = TIMEOUT_S
             ) -> tuple[list[tuple[http.client.HTTPResponse, bytes]], bytes]:
    """Write `data` on a fresh connection and read one answer per method (fewer if the server closes
    first); then what else comes until EOF or a short pause (after a `Connection: close` request)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(data)
        stream, answers = _Stream(sock), []
        for method in methods:
            response = http.client.HTTPResponse(stream, method=method)
            try:
                response.begin()
            except (http.client.RemoteDisconnected, ConnectionError):
                break
            answers.append((response, response.read()))
        sock.settimeout(0.5)
        try:
            rest = stream.file.read1(65536) if answers else b""
        except (TimeoutError, ConnectionError):
            rest = b""
    return answers, rest


def reflected(answer: tuple[http.client.HTTPResponse, bytes]) -> reflection.Reflection:
    response, body = answer
    assert response.status == 200, f"{response.status} {body[:200]!r}"
    return reflection.read(response.getheader(reflection.HEADER), body)


def interface_of(entry: catalog.Entry) -> str:
    return "go" if entry.language == "go" else entry.app_spec.interface


def declared_failure(test_name: str, entry: catalog.Entry) -> str | None:
    """The caveat of `entry` whose evidence names this test (Caveat.evidence, as the reliability suite reads it)."""
    for key in entry.caveats:
        for pattern, _ in catalog.CAVEAT_EVIDENCE.get(key, ()):
            if fnmatch.fnmatchcase(test_name, pattern.format(name=entry.name).replace("[", "[[]")):
                return f"catalog caveat {key!r}: {catalog.CAVEATS[key]}"
    return None


@pytest.fixture(params=OWNERS)
def owner(request, running):
    """A parser owner's running server; a test its caveats name as evidence is an expected failure."""
    entry = catalog.get(request.param)
    caveat = declared_failure(request.node.name, entry)
    if caveat:
        request.applymarker(pytest.mark.xfail(strict=True, reason=caveat))
    return entry, running(request.param)


@pytest.mark.parametrize("target", [b"/reflect", b"/reflect/x?a=b"])
def test_reflects_a_get_and_its_target(owner, target):
    entry, server = owner
    answers, _ = exchange(server.port, b"GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n" % target,
                          ("GET",))
    assert answers, f"{entry.name}: no answer to GET {target!r}"
    got = reflected(answers[0])
    assert (got.method, got.body_length, got.interface) == (b"GET", 0, interface_of(entry))
    assert got.is_target(target) and got.target == target.decode(), (
        f"{entry.name}: target {got.target!r} (from {got.target_from}), sent {target!r}")
    assert got.version.endswith(b"1.1"), got.version


def test_reflects_a_head_without_a_body(owner):
    entry, server = owner
    answers, rest = exchange(server.port, b"HEAD /reflect HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
                             ("HEAD",))
    assert answers, f"{entry.name}: no answer to HEAD /reflect"
    got = reflected(answers[0])
    assert got.method == b"HEAD" and got.is_target(b"/reflect") and got.body_length == 0
    assert got.document is None and rest == b"", f"{entry.name}: bytes after a HEAD answer: {rest[:200]!r}"


def test_reflects_a_content_length_body(owner):
    entry, server = owner
    answers, _ = exchange(server.port, b"POST /reflect HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: %d\r\n"
                                       b"Connection: close\r\n\r\n%s" % (len(BODY), BODY), ("POST",))
    assert answers, f"{entry.name}: no answer to POST /reflect with a body"
    got = reflected(answers[0])
    assert got.method == b"POST" and got.is_body(BODY), f"{entry.name}: read {got.body_length} bytes of {len(BODY)}"


def test_reflects_a_chunked_body(owner):
    """The decoded body; a dev-only server whose reason says it has no chunked request bodies must not
    show one (it hands the app the raw stream, or nothing)."""
    entry, server = owner
    chunked = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for chunk in CHUNKS) + b"0\r\n\r\n"
    request = (b"POST /reflect HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n"
               b"Connection: close\r\n\r\n" + chunked)
    decoded = b"".join(CHUNKS)
    if NO_CHUNKED in entry.dev_only_reason:
        try:  # wsgiref's app reads the connection to its end: no answer until the client goes
            answers, _ = exchange(server.port, request, ("POST",), timeout=1.5)
        except TimeoutError:
            answers = []
        assert not answers or not reflected(answers[0]).is_body(decoded), (
            f"{entry.name} reads a chunked body now: take {NO_CHUNKED!r} out of its dev-only reason")
        return
    answers, _ = exchange(server.port, request, ("POST",))
    assert answers, f"{entry.name}: no answer to a chunked POST /reflect"
    got = reflected(answers[0])
    assert got.is_body(decoded), f"{entry.name}: read {got.body_length} bytes, {len(decoded)} were sent chunked"


def test_reflects_pipelined_requests_in_order(owner):
    """Two requests in one write: two reflections, in order (a server without keep-alive answers the
    first and closes)."""
    entry, server = owner
    data = (b"GET /reflect/first HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            b"POST /reflect/second HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s"
            % (len(BODY), BODY))
    answers, _ = exchange(server.port, data, ("GET", "POST"))
    got = [reflected(answer) for answer in answers]
    assert got and got[0].method == b"GET" and got[0].is_target(b"/reflect/first"), got
    if not entry.keepalive:
        assert len(got) == 1 and answers[0][0].will_close, f"{entry.name} is catalogued without keep-alive"
        return
    assert len(got) == 2, f"{entry.name}: {len(got)} answer(s) to two pipelined requests"
    assert got[1].method == b"POST" and got[1].is_target(b"/reflect/second") and got[1].is_body(BODY), got[1]


def test_reflects_a_header_field(owner):
    entry, server = owner
    answers, _ = exchange(server.port, b"GET /reflect HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Probe-Field: Probe value 7\r\n"
                                       b"Connection: close\r\n\r\n", ("GET",))
    assert answers, f"{entry.name}: no answer to GET /reflect"
    got = reflected(answers[0])
    assert got.header("x-probe-field") == ["Probe value 7"], f"{entry.name}: headers {got.headers}"


# ------------------------------------------------------------------ the renderer and its reader, no server


def test_the_reader_reads_what_the_renderer_writes():
    header, body = rendering.answer("wsgi", "G T", "/reflect?a=b", "", [("HTTP_X_PROBE", "caf\xe9")], b"abc",
                                    "REQUEST_URI")
    assert header.startswith("G%20T - 3 ") and header.endswith(hashlib.sha256(b"/reflect?a=b").hexdigest())
    got = reflection.read(header, body)
    assert (got.method, got.version, got.interface, got.target_from) == (b"G T", b"", "wsgi", "REQUEST_URI")
    assert got.is_body(b"abc") and got.is_target(b"/reflect?a=b") and got.header("X-Probe") == ["caf\xe9"]
    assert reflection.read(header).document is None  # a HEAD answer: the header alone
    with pytest.raises(reflection.NotAReflection):
        reflection.read("GET 1.1 3", body)
    with pytest.raises(reflection.NotAReflection):  # a body that is not this header's
        reflection.read(header.replace(" 3 ", " 4 "), body)


# ------------------------------------------------------------------ catalog.parser_owner, no server


def test_parser_owner_is_total_and_an_owner_is_its_own():
    for entry in catalog.ENTRIES:
        owner = catalog.parser_owner(entry)
        assert owner.app_spec.parser_owner and catalog.parser_owner(owner) == owner, (entry.name, owner.name)
        assert owner.interpreter == entry.interpreter, f"{entry.name}: owner {owner.name} on another interpreter"
        assert owner.server == catalog.parser_owner_server(entry.server), (entry.name, owner.name)
        if owner.server != entry.server:  # a declared sharing fact, with its reason
            server, why = entry.server_spec.shares_parser
            assert owner.server == server and why, entry.name
        assert owner.mongo_driver == owner.app_spec.mongo_driver, f"{owner.name}: a driver variant owns no parser"


def test_every_server_has_one_owner_per_interpreter_or_shares_a_parser():
    owners = {(e.server, e.interpreter): e.name for e in catalog.ENTRIES if catalog.parser_owner(e) == e}
    assert len(owners) == len(OWNERS), "two owner entries for one server and interpreter"
    for entry in catalog.ENTRIES:
        spec = entry.server_spec
        if spec.shares_parser:
            assert (entry.server, entry.interpreter) not in owners, f"{entry.server} shares a parser, yet has an owner"
            assert not catalog.SERVERS[spec.shares_parser[0]].shares_parser, "a shared parser is an owner's"
        else:
            assert (entry.server, entry.interpreter) in owners, f"{entry.name}: no owner entry for {entry.server}"
    free_threaded = [e for e in catalog.ENTRIES if e.interpreter == interpreters.FREE_THREADED]
    assert free_threaded and all(catalog.parser_owner(e).name.endswith(interpreters.ENTRY_SUFFIX) for e in free_threaded)


def test_client_variants_and_go_routers_have_their_bases_owner():
    assert catalog.parser_owner(catalog.get("sanic_glide")).name == "sanic"
    assert catalog.parser_owner(catalog.get("sanic_motor")).name == "sanic"
    assert catalog.parser_owner(catalog.get("flask_gevent_redispy")).name == "bare_gevent"
    assert {catalog.parser_owner(catalog.get(name)).name for name in ("echo", "gin", "nethttp")} == {"nethttp"}
    assert catalog.parser_owner(catalog.get("flask_processes")).name == "bare_threaded"
