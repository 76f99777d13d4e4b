"""The conformance runner's own parts (tests/conformance/wire.py): the strict response reader, the
judge, and send() against tiny loopback servers that answer, refuse, or hang. The suite itself runs
under -m reliability (tests/reliability/test_reliability_conformance.py)."""
from __future__ import annotations

import socket
import threading

import pytest

from conformance import cases, known, wire
from servers.core import catalog, records

OK = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi"
NOT_FOUND = b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"


@pytest.mark.parametrize("data, statuses, malformed", [
    (OK, [200], False),
    (OK + NOT_FOUND, [200, 404], False),
    (b"HTTP/1.1 100 Continue\r\n\r\n" + OK, [100, 200], False),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n" + NOT_FOUND, [200, 404], False),
    (b"HTTP/1.2 200 OK\r\nContent-Length: 0\r\n\r\n", [], True),  # a version the server cannot speak
    (b"FTP/1.1 404 Not Found\r\n\r\n", [], True),  # uWSGI echoing the client's protocol
    (b"Hello, World!", [], True),  # an HTTP/0.9-style answer: no status line
    (b"HTTP/1.1 200 OK\r\nBad Header\r\n\r\n", [], True),
    (b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nhi", [200], True),
])
def test_parse_holds_responses_to_the_grammar(data, statuses, malformed):
    got, problem, _ = wire.parse(data)
    assert got == statuses
    assert bool(problem) == malformed, problem


def test_judge_tells_pass_lenient_handed_and_fail_apart():
    case = cases.Case("x", cases.OTHER, "0", b"", ("R",), ("closed", "200"))
    assert wire.judge(case, wire.Answer(statuses=[431], closed=True)).verdict == wire.PASS
    assert wire.judge(case, wire.Answer(statuses=[], closed=True)).verdict == wire.LENIENT
    assert wire.judge(case, wire.Answer(statuses=[200], closed=True)).verdict == wire.LENIENT
    assert wire.judge(case, wire.Answer(statuses=[404], closed=True)).verdict == wire.HANDED
    assert wire.judge(case, wire.Answer(statuses=[200, 404], closed=True)).verdict == wire.HANDED
    assert wire.judge(case, wire.Answer(statuses=[500], closed=True)).effect == wire.CRASH
    assert wire.judge(case, wire.Answer(hang=True)).verdict == wire.FAIL
    assert wire.judge(case, wire.Answer(statuses=[400], malformed="status line")).verdict == wire.FAIL


@pytest.mark.parametrize("statuses, closed, verdict, reading, effect", [
    ([405, 404], False, wire.PASS, "body consumed", None),
    ([405], True, wire.PASS, "body consumed, then closed", None),
    ([405, 200, 404], False, wire.FAIL, "body read as the next request", wire.DESYNC),
    ([405, 400], True, wire.FAIL, wire.IGNORED, wire.DESYNC),
    ([405], False, wire.FAIL, "canary swallowed", wire.DESYNC),
    ([400], True, wire.FAIL, "refused, then closed", wire.OVER_STRICT),
])
def test_judge_names_the_framing_of_a_valid_body(statuses, closed, verdict, reading, effect):
    answer = wire.Answer(statuses=statuses, closed=closed, closed_early=closed)
    judgement = wire.judge(cases.BY_ID["te-chunked"], answer)
    assert (judgement.verdict, judgement.reading, judgement.effect) == (verdict, reading, effect)


@pytest.mark.parametrize("statuses, closed, verdict, effect", [
    ([400], True, wire.PASS, None),
    ([400], False, wire.FAIL, wire.NO_CLOSE),  # the RFC says 400 and close (RFC 9112 6.3)
    ([400, 404], False, wire.FAIL, wire.NO_CLOSE),
    ([405, 404], False, wire.HANDED, wire.DESYNC),  # framed by an invalid Content-Length
    ([405], True, wire.HANDED, wire.REFUSE_SHAPE),  # the app answered, the server closed
    ([405, 400], True, wire.HANDED, wire.REFUSE_SHAPE),  # refused once the app had answered
])
def test_judge_names_the_effect_of_an_invalid_framing(statuses, closed, verdict, effect):
    answer = wire.Answer(statuses=statuses, closed=closed, closed_early=closed)
    judgement = wire.judge(cases.BY_ID["cl-plus-sign"], answer)
    assert (judgement.verdict, judgement.effect) == (verdict, effect), judgement


def _server(reply: bytes | None):
    """A one-connection loopback server: reads the request, sends reply and closes (None: stays silent
    and open, our EOF notwithstanding, for 3 s)."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve():
        conn, _ = listener.accept()
        with conn:
            conn.recv(65536)
            if reply is not None:
                conn.sendall(reply)
            else:
                threading.Event().wait(3)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return listener


def test_send_reads_the_answer_then_the_close():
    with _server(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n") as listener:
        answer = wire.send(listener.getsockname()[1], b"GET / HTTP/1.1\r\n\r\n")
    assert (answer.statuses, answer.closed, answer.hang) == ([400], True, False)


def test_send_reports_a_server_that_neither_answers_nor_closes():
    with _server(None) as listener:
        answer = wire.send(listener.getsockname()[1], b"GET / HTTP/1.1\r\n", deadline=0.6)
    assert answer.hang and not answer.statuses
    assert wire.judge(cases.BY_ID["host-missing"], answer).verdict == wire.FAIL


def test_every_case_states_an_allowed_answer_and_a_class():
    for case in cases.CASES:
        assert case.ok and case.cls in cases.CLASSES and case.rfc, case.id
        assert not set(case.ok) & set(case.lenient), case.id
    assert 60 <= len(cases.CASES) <= 200


# ---------------------------------------------------------------------------- deliberately bad servers

class MiniServer:
    """A keep-alive HTTP/1.1 server on a thread, written to the route contract (GET / and /json 200, an
    unknown path 404, POST 405 once its body is read), framing bodies by Content-Length or chunked, with
    one defect on request: "ignore-cl" takes no body from a valid Content-Length (the CL.0 class), "wrap"
    reads sizes modulo 2^64 as a 64-bit parser that does not check overflow would."""

    def __init__(self, defect: str = ""):
        self.defect = defect
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _size(self, text: bytes, base: int) -> int:
        if not text.isdigit() and base == 10:
            raise ValueError(text)
        size = int(text, base)
        return size % 2 ** 64 if self.defect == "wrap" else size

    def _serve(self, conn):
        buffer = b""
        with conn:
            while True:
                while b"\r\n\r\n" not in buffer:
                    block = conn.recv(65536)
                    if not block:
                        return
                    buffer += block
                head, buffer = buffer.split(b"\r\n\r\n", 1)
                line, *fields = head.split(b"\r\n")
                headers = {k.strip().lower(): v.strip() for k, _, v in (f.partition(b":") for f in fields)}
                method, target = line.split(b" ")[:2]
                try:
                    if b"transfer-encoding" in headers:
                        body, buffer = self._chunks(conn, buffer)
                    elif b"content-length" in headers and self.defect != "ignore-cl":
                        size = self._size(headers[b"content-length"], 10)
                        if size > 2 ** 32:
                            conn.sendall(b"HTTP/1.1 413 Too Large\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                            return
                        buffer = self._read(conn, buffer, size)[1]
                except (ValueError, EOFError):
                    conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    return
                status = (b"404 Not Found" if target not in (b"/", b"/json") else
                          b"200 OK" if method == b"GET" else b"405 Method Not Allowed")
                conn.sendall(b"HTTP/1.1 " + status + b"\r\nContent-Length: 0\r\n\r\n")

    def _read(self, conn, buffer: bytes, size: int) -> tuple[bytes, bytes]:
        while len(buffer) < size:
            block = conn.recv(65536)
            if not block:
                raise EOFError
            buffer += block
        return buffer[:size], buffer[size:]

    def _chunks(self, conn, buffer: bytes) -> tuple[bytes, bytes]:
        body = b""
        while True:
            while b"\r\n" not in buffer:
                block = conn.recv(65536)
                if not block:
                    raise EOFError
                buffer += block
            line, buffer = buffer.split(b"\r\n", 1)
            if not line or not all(c in b"0123456789abcdefABCDEF" for c in line.split(b";")[0]):
                raise ValueError(line)
            size = self._size(line.split(b";")[0], 16)
            if size > 2 ** 32:
                raise ValueError(line)
            data, buffer = self._read(conn, buffer, size + 2)
            if data[-2:] != b"\r\n":
                raise ValueError(data[-2:])
            if size == 0:
                return body, buffer
            body += data[:-2]

    def close(self):
        self.listener.close()


@pytest.fixture
def mini():
    servers = []

    def start(defect: str = "") -> int:
        servers.append(MiniServer(defect))
        return servers[-1].port

    yield start
    for server in servers:
        server.close()


@pytest.mark.parametrize("case_id", ["cl-valid", "te-chunked", "cl-huge", "chunk-size-overflow", "cl-plus-sign"])
def test_the_mini_server_itself_passes(mini, case_id):
    judgement, _ = wire.run_case(mini(), cases.BY_ID[case_id])
    assert judgement.verdict in (wire.PASS, wire.LENIENT), judgement


def test_a_server_ignoring_a_valid_content_length_is_caught(mini):
    judgement, _ = wire.run_case(mini("ignore-cl"), cases.BY_ID["cl-valid"])
    assert (judgement.verdict, judgement.effect, judgement.reading) == (
        wire.FAIL, wire.DESYNC, "body read as the next request"), judgement


def test_a_server_wrapping_a_size_is_caught(mini):
    port = mini("wrap")
    for case_id in ("cl-huge", "chunk-size-overflow"):
        judgement, _ = wire.run_case(port, cases.BY_ID[case_id])
        assert (judgement.verdict, judgement.effect, judgement.answers) == (wire.HANDED, wire.DESYNC, "405 404"), (
            case_id, judgement)


# The cases before the judge observed framing (a body `hello`, the canary GET /nope, any 4xx a refusal, a
# size of 99999999999999999999999): the same answers from the bad servers as from the good one.
OLD_CL_VALID = b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello" + cases.CANARY
OLD_CL_HUGE = b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999999\r\n\r\nhello" + cases.CANARY


def test_the_old_cases_could_not_tell_the_bad_servers_from_a_good_one(mini):
    good, ignoring, wrapping = mini(), mini("ignore-cl"), mini("wrap")
    # an ignored body `hello` turned the canary into `helloGET /nope`: a 404 like the canary's own
    assert wire.send(good, OLD_CL_VALID, 2).statuses == wire.send(ignoring, OLD_CL_VALID, 2).statuses == [405, 404]
    # the old size wraps to a number still too large to read: the wrapping server refuses it as the good one does
    assert (10 ** 23 - 1) % 2 ** 64 > 2 ** 32
    assert wire.send(good, OLD_CL_HUGE, 1).statuses == wire.send(wrapping, OLD_CL_HUGE, 1).statuses == [413]


# ---------------------------------------------------------------------------- the records against the catalog

def _complete_records() -> dict[str, dict]:
    found = {}
    for entry in catalog.ENTRIES:
        section = (records.load(entry.name) or {}).get("conformance")
        if section and section["run"].get("complete"):
            found[entry.name] = section
    return found


def test_each_caveat_declares_the_effects_its_stacks_records_show():
    recs = _complete_records()
    for key in known.KNOWN:
        seen = {recs[name]["cases"][case]["effect"] for name in known.KNOWN[key].stacks() if name in recs
                for case, k in known.expected(catalog.get(name)).items()
                if k == key and case in recs[name]["cases"] and recs[name]["cases"][case]["effect"]}
        if seen:
            assert set(catalog.CAVEAT_EFFECTS[key]) == seen, (
                f"caveat {key!r} declares effects {catalog.CAVEAT_EFFECTS[key]}, its stacks' records show "
                f"{sorted(seen)}: say so in its spec (servers/**/*_spec.py, Caveat.effects)")


def test_each_pinned_failure_is_a_caveat_of_its_stack():
    """A record's failing case is one of its stack's caveats, and each caveat's case fails in the record."""
    for name, section in _complete_records().items():
        expected = known.expected(catalog.get(name))
        failing = {case for case, v in section["cases"].items() if v["verdict"] in (wire.FAIL, wire.HANDED)}
        assert failing == set(expected) & set(section["cases"]), (
            f"{name}: failing without a caveat {sorted(failing - set(expected))}, a caveat's case not failing "
            f"{sorted(set(expected) & set(section['cases']) - failing)}")
