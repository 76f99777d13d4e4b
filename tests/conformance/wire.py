"""Sending one conformance case on a raw loopback socket, reading the answers strictly, judging them.

send() writes the case's bytes on a fresh connection, reads until the expected number of answers
is in (or a short linger passes), shuts our side down so a server waiting for more sees EOF, and
reads until the server closes or the deadline. parse() holds the responses to RFC 9112's grammar
(status line, field lines, framing); judge() compares what happened with the case's ok / lenient
sequences: pass, lenient (lenient-allowed), handed (the app answered what the server should have
refused) or fail; it names how the server framed the message (reading()) and a failure's effect.
"""
from __future__ import annotations

import re
import socket
import time
from dataclasses import dataclass, field

from .cases import BODY_STATUS, CANARY_STATUS, SMUGGLING, Case

DEADLINE_S = 2.0  # per case: answered or closed by then, or it hangs
LINGER_S = 0.3  # how long to wait for the expected answers (then for a close) before shutting our side down
PAUSE_S = 0.3  # between the parts of a request sent in several writes
PASS, LENIENT, FAIL = "pass", "lenient", "fail"
IGNORED = "body ignored (its chunk-size line refused as a request)"
HANDED = "handed"  # the app answered a request the server should have refused: never a pass
REFUSED = "refused"  # behind a proxy: the proxy refused a request the origin should have answered
# A server's refusals (RFC 9110 15.5.1, 15.5.14, 15.5.15, 15.5.20, 15.6.2, 15.6.6); the app's own answers
# (the route contract: 200, an unknown path's 404, POST /'s 405) are not.
REFUSALS = (400, 413, 414, 431, 501, 505)
REFUSAL_TOKENS = tuple(str(s) for s in REFUSALS)
APP_STATUSES = (200, 404, 405)
# The effect of a failure, from the worst: framing that differs from the RFC's (a smuggling risk behind a
# front that frames by the RFC, a client-side desync alone), a connection kept where the RFC says close, a
# refusal in the wrong shape (after the app answered, a wrong status, the app answering an invalid request),
# a valid request refused, a 5xx or a worker that no longer answers.
DESYNC, NO_CLOSE, REFUSE_SHAPE, OVER_STRICT, CRASH = "desync", "no-close", "refuse-shape", "over-strict", "crash"
EFFECTS = (DESYNC, CRASH, NO_CLOSE, REFUSE_SHAPE, OVER_STRICT)

_SAYS_CLOSE = re.compile(rb"\r\nconnection:[ \t]*close[ \t]*\r\n", re.IGNORECASE)
_STATUS_LINE = re.compile(rb"HTTP/1\.[01] ([1-5]\d\d) [\t !-~\x80-\xff]*")
_FIELD_LINE = re.compile(rb"([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*([\t !-~\x80-\xff]*?)[ \t]*")


@dataclass
class Answer:
    """What happened on one connection."""

    statuses: list[int] = field(default_factory=list)  # the final answers
    interim: list[int] = field(default_factory=list)  # 1xx answers (100 Continue)
    tokens: list[str] = field(default_factory=list)  # every status in order, interim ones too
    malformed: str = ""  # why the bytes are not well-formed HTTP/1.1 responses
    incomplete: bool = False  # the last response is cut short
    closed: bool = False  # EOF or reset from the server
    closed_early: bool = False  # ... before our side shut down (the server's own choice)
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
        statuses.append(status)
        if 100 <= status < 200:
            continue  # an interim answer (100 Continue): the final one follows
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


def send(port: int, request: bytes | tuple[bytes, ...], want: int = 1, deadline: float = DEADLINE_S,
         host: str = "127.0.0.1", wait_close: bool = False) -> Answer:
    """Send the request (a tuple: parts written PAUSE_S apart, whatever the server answers meanwhile),
    read until `want` final answers are in, then (wait_close) up to LINGER_S more for the server to
    close, before shutting our side down; then read until the server closes or the deadline."""
    answer = Answer()
    parts = request if isinstance(request, tuple) else (request,)
    started = time.monotonic()
    try:
        sock = socket.create_connection((host, port), timeout=deadline)
    except OSError as exc:
        answer.connect_error = type(exc).__name__
        return answer
    shut = False

    def read_until(until: float, enough) -> bool:
        """Read until `until` or enough(); False once the server closed."""
        while time.monotonic() < until and not enough():
            sock.settimeout(max(0.01, until - time.monotonic()))
            try:
                block = sock.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                block = b""
            if not block:
                answer.closed = True
                answer.closed_early = not shut
                return False
            answer.data += block
        return True

    try:
        open_ = True
        for index, part in enumerate(parts):
            if index:
                open_ = read_until(time.monotonic() + PAUSE_S, lambda: False)
                if not open_:
                    break
            try:
                sock.sendall(part)
            except OSError:
                break  # the server stopped reading (a request it will not take): read what it said
        sent = time.monotonic()

        def answered() -> bool:
            statuses, _, incomplete = parse(answer.data)
            return len(final(statuses)) >= want and not incomplete

        if open_:
            open_ = read_until(sent + LINGER_S, answered)
            if open_ and wait_close and answered():
                open_ = read_until(time.monotonic() + LINGER_S, lambda: False)
        if open_:
            try:
                sock.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            shut = True
            # All answers in: a server may keep a half-closed connection (Hypercorn does, until its keep-alive
            # timeout), which is no hang; a short read for a late extra answer, then we close ourselves.
            until = min(time.monotonic() + LINGER_S, started + deadline) if answered() else started + deadline
            if read_until(until + (len(parts) - 1) * PAUSE_S, lambda: False) and not answered():
                answer.hang = True
    finally:
        sock.close()
    statuses, answer.malformed, answer.incomplete = parse(answer.data)
    if answer.closed and _SAYS_CLOSE.search(answer.data):
        answer.closed_early = True  # it said it would close (then drained what we sent): its own close
    answer.interim = [s for s in statuses if s < 200]
    answer.statuses = final(statuses)
    answer.tokens = [str(s) for s in statuses]
    if answer.incomplete and not answer.hang:
        answer.malformed = "cut short by the close"
    return answer


def final(statuses: list[int]) -> list[int]:
    return [s for s in statuses if s >= 200]


def matches(tokens: list[str], pattern: str) -> bool:
    """tokens: the final statuses, then "closed" if the server closed before our EOF. A pattern's R is a
    refusal (REFUSALS), x any digit; a pattern not ending in "closed" does not care whether it closed."""
    wanted = pattern.split()
    if not wanted or wanted[-1] != "closed":
        tokens = [t for t in tokens if t != "closed"]
    return len(wanted) == len(tokens) and all(
        got in REFUSAL_TOKENS if want == "R" else re.fullmatch(want.replace("x", r"\d"), got) is not None
        for want, got in zip(wanted, tokens))


@dataclass
class Judgement:
    verdict: str  # PASS, LENIENT, HANDED, FAIL (REFUSED behind a proxy)
    reading: str  # how the server framed the message, in words
    effect: str | None  # None for a pass; else one of EFFECTS
    answers: str  # the exact answer sequence: statuses (interim ones too), "closed", "hang", "malformed"
    what: str  # answers and reading, for a message


def answer_text(case: Case, answer: Answer) -> str:
    """The answer sequence a record pins: every status in order (a 100 Continue too), "closed" where the
    server closed before our EOF and that matters (the case requires a close, or answers are missing),
    "hang", "malformed"; stable from run to run for one server."""
    if answer.connect_error:
        return "connect-error"
    tokens = list(answer.tokens)
    if answer.malformed:
        tokens.append("malformed")
    if answer.closed_early and (case.must_close or len(answer.statuses) < case.answers_awaited):
        tokens.append("closed")
    if answer.hang:
        tokens.append("hang")
    return " ".join(tokens) or "nothing"


def reading(case: Case, answer: Answer) -> str:
    """Which framing happened, named from the answers: the case's body is a request of its own (GET /json,
    200) and the canary another (GET /nope, 404), so a consumed, an ignored and a re-read body differ."""
    s = answer.statuses
    if answer.connect_error:
        return "connection refused"
    if answer.malformed:
        return "malformed response"
    if not s:
        return "no answer, connection held" if answer.hang else "closed without an answer"
    if any(status >= 500 and status not in REFUSALS for status in s):
        return "server error"
    first, rest = s[0], s[1:]
    skip = case.answers_before_body
    if skip and len(s) > skip:
        first, rest = s[skip], s[skip + 1:]
    if first in REFUSALS:
        if not rest:
            return "refused" + (", then closed" if answer.closed_early else ", connection kept")
        if case.framing and rest[0] == BODY_STATUS:
            return "refused, then the body read as a request"
        return "refused, then the rest answered on the same connection"
    if not case.framing:
        return "answered" if first == 200 else "handed to the app"
    if not rest:
        return "body consumed, then closed" if answer.closed_early else "canary swallowed"
    if rest[0] == BODY_STATUS:
        return "body read as the next request"
    if rest[0] == CANARY_STATUS:
        return "body consumed"
    if rest[0] in REFUSALS:
        return IGNORED if case.valid_chunks else "refused after the app's answer"
    return "answered"


def effect_of(case: Case, answer: Answer, verdict: str, read: str) -> str | None:
    if verdict in (PASS, LENIENT, REFUSED):
        return None
    s = answer.statuses
    if answer.connect_error or any(status >= 500 and status not in REFUSALS for status in s) or (
            answer.hang and not s):
        return CRASH
    if "read as" in read or read == "canary swallowed":
        return DESYNC
    if read == IGNORED:
        return DESYNC  # a valid chunked body whose size line was refused as a request: Transfer-Encoding ignored
    for pattern in (p.removesuffix("closed").strip() for p in case.ok if p != "closed"):
        size = len(pattern.split())
        if matches([str(status) for status in s[:size]], pattern) and (len(s) > size or case.must_close):
            return NO_CLOSE  # an allowed answer, but the connection went on where the RFC says close
    if not case.wants_refusal and (read.startswith("refused") or read == "closed without an answer"):
        return OVER_STRICT
    if read.startswith("refused") and (read.endswith("same connection") or read.endswith("kept")):
        return NO_CLOSE
    if verdict == HANDED and case.cls == SMUGGLING and read == "body consumed":
        return DESYNC
    return REFUSE_SHAPE


def judge(case: Case, answer: Answer) -> Judgement:
    """The verdict of one answer to a case, which framing it shows, and the failure's effect."""
    text, read = answer_text(case, answer), reading(case, answer)
    what = f"{text} ({read})"
    closed = answer.closed_early or (answer.closed and not answer.statuses)
    tokens = [str(s) for s in answer.statuses] + (["closed"] if closed else [])
    if answer.connect_error or answer.malformed or (answer.hang and not answer.statuses):
        verdict = FAIL
    elif any(matches(tokens, p) for p in case.ok):
        verdict = PASS
    elif any(matches(tokens, p) for p in case.lenient):
        verdict = LENIENT
    elif case.wants_refusal and answer.statuses and answer.statuses[case.answers_before_body
                                                                     if len(answer.statuses) > case.answers_before_body
                                                                     else 0] in APP_STATUSES:
        verdict = HANDED
    else:
        verdict = FAIL
    return Judgement(verdict, read, effect_of(case, answer, verdict, read), text, what)


HELLO_PROBE = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"


def still_serves(port: int) -> str:
    """"" if a fresh GET / answers 200, else what happened instead."""
    answer = send(port, HELLO_PROBE)
    return "" if answer.statuses[:1] == [200] and not answer.malformed else answer_text(HELLO_CASE, answer)


def run_case(port: int, case: Case, behind_proxy: bool = False) -> tuple[Judgement, bytes]:
    """The judgement of one case on a server (the GET / that must follow included) and the bytes the
    server sent. Behind a proxy, a failure that is no crash and where no body was read as a request nor a
    canary swallowed (the proxy refusing a request the RFCs would have the origin answer, dropping a
    header it finds invalid, or consuming a body it then frames anew for the origin) is REFUSED: the
    proxy's own shape, which smuggles nothing."""
    answer = send(port, case.request_parts, case.answers_awaited, wait_close=case.must_close)
    judgement = judge(case, answer)
    if behind_proxy and judgement.verdict in (FAIL, HANDED) and judgement.effect != CRASH and not (
            "read as" in judgement.reading or judgement.reading == "canary swallowed"):
        judgement.verdict, judgement.effect = REFUSED, None  # the front's own shape: it smuggles nothing
    after = still_serves(port)
    if after:
        judgement.verdict, judgement.effect = FAIL, CRASH
        judgement.answers += " dead"
        judgement.what += f"; then GET / failed: {after}"
    return judgement, answer.data


HELLO_CASE = Case("hello", "other", "", HELLO_PROBE, ("200",))
