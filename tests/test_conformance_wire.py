"""The conformance runner's own parts (tests/conformance/wire.py): the strict response reader, the
judge, and send() against tiny loopback servers that answer, refuse, or hang. The suite itself runs
under -m reliability (tests/reliability/test_reliability_conformance.py)."""
from __future__ import annotations

import socket
import threading

import pytest

from conformance import cases, wire

OK = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi"
NOT_FOUND = b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"


@pytest.mark.parametrize("data, statuses, malformed", [
    (OK, [200], False),
    (OK + NOT_FOUND, [200, 404], False),
    (b"HTTP/1.1 100 Continue\r\n\r\n" + OK, [200], False),
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


def test_judge_tells_pass_lenient_and_fail_apart():
    case = cases.Case("x", cases.OTHER, "0", b"", ("4xx",), ("", "200"))
    assert wire.judge(case, wire.Answer(statuses=[431], closed=True))[0] == wire.PASS
    assert wire.judge(case, wire.Answer(statuses=[], closed=True))[0] == wire.LENIENT
    assert wire.judge(case, wire.Answer(statuses=[200], closed=True))[0] == wire.LENIENT
    assert wire.judge(case, wire.Answer(statuses=[200, 404], closed=True))[0] == wire.FAIL
    assert wire.judge(case, wire.Answer(statuses=[500], closed=True))[0] == wire.FAIL
    assert wire.judge(case, wire.Answer(hang=True))[0] == wire.FAIL
    assert wire.judge(case, wire.Answer(statuses=[400], malformed="status line"))[0] == wire.FAIL


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
    assert wire.judge(cases.BY_ID["host-missing"], answer)[0] == wire.FAIL


def test_every_case_states_an_allowed_answer_and_a_class():
    for case in cases.CASES:
        assert case.ok and case.cls in cases.CLASSES and case.rfc, case.id
        assert not set(case.ok) & set(case.lenient), case.id
    assert 60 <= len(cases.CASES) <= 120
