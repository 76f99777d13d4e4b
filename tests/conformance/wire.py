"""Sending one conformance case on a raw loopback socket, reading the answers strictly, judging them.

send() writes the case's bytes on a fresh connection, reads until the expected number of answers
is in (or a short linger passes), shuts our side down so a server waiting for more sees EOF, and
reads until the server closes or the deadline. parse() holds the responses to RFC 9112's grammar
(status line, field lines, framing); judge() compares what happened with the case's ok / lenient
sequences: pass, lenient (lenient-allowed) or fail, with what happened.
"""
from __future__ import annotations

import re
import socket
import time
from dataclasses import dataclass, field

from .cases import Case

DEADLINE_S = 2.0  # per case: answered or closed by then, or it hangs
LINGER_S = 0.3  # how long to wait for the expected answers before shutting our side down
PASS, LENIENT, FAIL = "pass", "lenient", "fail"
REFUSED = "refused"  # behind a proxy: the proxy refused a request the origin should have answered

_STATUS_LINE = re.compile(rb"HTTP/1\.[01] ([1-5]\d\d) [\t !-~\x80-\xff]*")
_FIELD_LINE = re.compile(rb"([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*([\t !-~\x80-\xff]*?)[ \t]*")


@dataclass
class Answer:
    """What happened on one connection."""

    statuses: list[int] = field(default_factory=list)
    malformed: str = ""  # why the bytes are not well-formed HTTP/1.1 responses
    incomplete: bool = False  # the last response is cut short
    closed: bool = False  # EOF or reset from the server
    hang: bool = False  # neither closed nor fully answered by the deadline
    data: bytes = b""
    connect_error: str = ""

    @property
    def sequence(self) -> str:
        return " ".join(str(s) for s in self.statuses)

    def describe(self) -> str:
        if self.connect_error:
            return f"connect: {self.connect_error}"
        if self.malformed:
            return f"malformed response ({self.malformed}): {self.data[:80]!r}"
        seq = self.sequence or "no answer"
        if self.hang:
            return f"{seq}, then neither answered nor closed within {DEADLINE_S:g} s"
        return seq + (", closed" if self.closed and self.statuses else " (closed)" if self.closed else "")


def parse(data: bytes) -> tuple[list[int], str, bool]:
    """(statuses, malformed reason or "", incomplete) of the responses in data."""
    statuses: list[int] = []
    pos = 0
    while pos < len(data):
        end = data.find(b"\r\n\r\n", pos)
        if end < 0:
            if not data.startswith(b"HTTP/1."[:len(data) - pos], pos):
                return statuses, "not a status line", False
            return statuses, "", True
        lines = data[pos:end].split(b"\r\n")
        status_line = _STATUS_LINE.fullmatch(lines[0])
        if not status_line:
            return statuses, f"status line {lines[0][:60]!r}", False
        status = int(status_line.group(1))
        headers: dict[bytes, list[bytes]] = {}
        for line in lines[1:]:
            field_line = _FIELD_LINE.fullmatch(line)
            if not field_line:
                return statuses, f"field line {line[:60]!r}", False
            headers.setdefault(field_line.group(1).lower(), []).append(field_line.group(2))
        pos = end + 4
        if 100 <= status < 200:
            continue  # an interim answer (100 Continue): the final one follows
        statuses.append(status)
        if status in (204, 304):
            continue
        if b"transfer-encoding" in headers:
            if [v.lower() for v in headers[b"transfer-encoding"]] != [b"chunked"] or b"content-length" in headers:
                return statuses, "framing headers", False
            pos, problem = _dechunk(data, pos)
            if problem:
                return statuses, problem if problem != "cut" else "", problem == "cut"
        elif b"content-length" in headers:
            values = headers[b"content-length"]
            if len(values) != 1 or not values[0].isdigit() or not values[0].isascii():
                return statuses, f"Content-Length {values!r}", False
            pos += int(values[0])
            if pos > len(data):
                return statuses, "", True
        else:
            return statuses, "", False  # the body runs until the connection closes
    return statuses, "", False


def _dechunk(data: bytes, pos: int) -> tuple[int, str]:
    while True:
        end = data.find(b"\r\n", pos)
        if end < 0:
            return len(data), "cut"
        size_text = data[pos:end].split(b";")[0]
        if not re.fullmatch(rb"[0-9A-Fa-f]+", size_text):
            return pos, f"chunk size {size_text[:20]!r}"
        size = int(size_text, 16)
        pos = end + 2
        if size == 0:
            end = data.find(b"\r\n\r\n", pos - 2)
            return (end + 4, "") if end >= 0 else (len(data), "cut")
        pos += size + 2
        if pos > len(data):
            return len(data), "cut"


def send(port: int, request: bytes, want: int = 1, deadline: float = DEADLINE_S, host: str = "127.0.0.1") -> Answer:
    answer = Answer()
    started = time.monotonic()
    try:
        sock = socket.create_connection((host, port), timeout=deadline)
    except OSError as exc:
        answer.connect_error = type(exc).__name__
        return answer
    try:
        try:
            sock.sendall(request)
        except OSError:
            pass  # the server stopped reading (a request it will not take): read what it said
        shut = False
        while True:
            now = time.monotonic()
            if now - started >= deadline:
                answer.hang = True
                break
            statuses, _, incomplete = parse(answer.data)
            if not shut and (now - started >= LINGER_S or (len(statuses) >= want and not incomplete)):
                try:
                    sock.shutdown(socket.SHUT_WR)
                except OSError:
                    pass
                shut = True
            sock.settimeout(max(0.01, started + (deadline if shut else LINGER_S) - now))
            try:
                block = sock.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                answer.closed = True
                break
            if not block:
                answer.closed = True
                break
            answer.data += block
    finally:
        sock.close()
    answer.statuses, answer.malformed, answer.incomplete = parse(answer.data)
    if answer.incomplete and not answer.hang:
        answer.malformed = "cut short by the close"
    return answer


def matches(statuses: list[int], pattern: str) -> bool:
    wanted = pattern.split()
    return len(wanted) == len(statuses) and all(
        re.fullmatch(want.replace("x", r"\d"), str(got)) for want, got in zip(wanted, statuses))


def judge(case: Case, answer: Answer) -> tuple[str, str]:
    """(PASS | LENIENT | FAIL, what happened)."""
    what = answer.describe()
    if answer.connect_error or answer.malformed:
        return FAIL, what
    if answer.hang and not answer.statuses:
        return FAIL, what
    if any(matches(answer.statuses, p) for p in case.ok):
        return PASS, what
    if any(matches(answer.statuses, p) for p in case.lenient):
        return LENIENT, what
    return FAIL, what


HELLO_PROBE = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"


def still_serves(port: int) -> str:
    """"" if a fresh GET / answers 200, else what happened instead."""
    answer = send(port, HELLO_PROBE)
    return "" if answer.statuses[:1] == [200] and not answer.malformed else answer.describe()


def run_case(port: int, case: Case, behind_proxy: bool = False) -> tuple[str, str, bytes]:
    """The verdict of one case on a server (the GET / that must follow included), what happened,
    and the bytes the server sent. Behind a proxy, a refusal (one 4xx, or a close) of a request the
    RFCs would have the origin answer is REFUSED (a 4xx, a 501 for a coding it did not recognize, a 505, or
    a close): the proxy's strictness, which smuggles nothing."""
    answer = send(port, case.request, case.answers_expected)
    verdict, what = judge(case, answer)
    if behind_proxy and verdict == FAIL and not answer.malformed and not answer.hang and (
            not answer.statuses or (len(answer.statuses) == 1 and (400 <= answer.statuses[0] < 500
                                                                   or answer.statuses[0] in (501, 505)))):
        verdict = REFUSED
    after = still_serves(port)
    if after:
        return FAIL, f"{what}; then GET / failed: {after}", answer.data
    return verdict, what, answer.data
