"""Hostile requests for the raw-socket barrage: a fixed catalogue plus seeded random mutations.

Every Case is one connection: bytes sent as they are (several chunks, maybe a pause), our side
shut down after them (so a server waiting for more sees EOF), unless it is a pipelining case,
which waits for its answers instead. The same seed gives the same requests on every run.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

HOST = b"Host: 127.0.0.1\r\n"


@dataclass(frozen=True)
class Case:
    kind: str
    name: str
    chunks: tuple[bytes, ...]
    half_close: bool = True
    # Pipelining: the (allowed statuses, body or None) answers expected in order, all of them when
    # the stack keeps connections alive (else the first, then a close).
    pipeline: tuple[tuple[tuple[int, ...], bytes | None], ...] = ()
    wait_for: int | None = None  # without half-close: read until this many answers (or close)
    # A well-formed request that every stack must answer with 200 Hello (HTTP/1.0, say).
    must_hello: bool = False
    requests: int = 1
    heads: tuple[bool, ...] = ()  # which of the requests are HEADs (their answers have no body)

    @property
    def expect(self) -> int | None:
        if self.half_close:
            return None  # read until the server closes
        return self.wait_for or len(self.pipeline) or 1

    @property
    def head_flags(self) -> tuple[bool, ...]:
        return self.heads or (self.data.startswith(b"HEAD "),)

    @property
    def data(self) -> bytes:
        return b"".join(self.chunks)

    @property
    def backend(self) -> bool:
        """It may reach a backend route, where a 503 is the contract's answer."""
        return b"/mongo" in self.data or b"/redis" in self.data


def _req(line: bytes, headers: bytes = b"", body: bytes = b"", host: bool = True) -> bytes:
    return line + b"\r\n" + (HOST if host else b"") + headers + b"\r\n" + body


def _case(kind: str, name: str, *chunks: bytes, **kw) -> Case:
    return Case(kind, name, tuple(chunks), **kw)


HELLO = b"Hello, World!"
JSON = b'{"message":"Hello, World!"}'


def fixed_cases() -> list[Case]:
    c = _case
    big = 64 * 1024
    cases = [
        # malformed request lines
        c("request-line", "method only", b"GET\r\n\r\n"),
        c("request-line", "four words", _req(b"GET / HTTP/1.1 extra")),
        c("request-line", "no method", _req(b" / HTTP/1.1")),
        c("request-line", "double spaces", _req(b"GET  /  HTTP/1.1")),
        c("request-line", "tab separated", _req(b"GET\t/\tHTTP/1.1")),
        c("request-line", "version 9.9", _req(b"GET / HTTP/9.9")),
        c("request-line", "version 2.0", _req(b"GET / HTTP/2.0")),
        c("request-line", "version truncated", _req(b"GET / HTTP/1.")),
        c("request-line", "version words", _req(b"GET / HTTP/one.one")),
        c("request-line", "protocol FTP", _req(b"GET / FTP/1.1")),
        c("request-line", "lower-case version", _req(b"GET / http/1.1")),
        c("request-line", "blank lines only", b"\r\n\r\n\r\n\r\n"),
        c("request-line", "bare CR", b"GET / HTTP/1.1\rHost: x\r\r"),
        c("request-line", "no path", _req(b"GET HTTP/1.1")),
        c("request-line", "path without slash", _req(b"GET json HTTP/1.1")),
        c("request-line", "asterisk", _req(b"GET * HTTP/1.1")),
        c("request-line", "OPTIONS asterisk", _req(b"OPTIONS * HTTP/1.1")),
        c("request-line", "absolute form", _req(b"GET http://127.0.0.1/ HTTP/1.1")),
        c("request-line", "absolute form other host", _req(b"GET http://example.invalid/json HTTP/1.1")),
        c("request-line", "authority form", _req(b"CONNECT 127.0.0.1:80 HTTP/1.1")),
        c("request-line", "dot segments", _req(b"GET /../../../../etc/passwd HTTP/1.1")),
        c("request-line", "fragment", _req(b"GET /#frag HTTP/1.1")),
        c("request-line", "TLS client hello", bytes.fromhex("160301020001000001fc0303") + bytes(64)),
        c("request-line", "HTTP/2 preface", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes.fromhex("000000040000000000")),
        c("request-line", "binary noise", bytes(random.Random(7).randrange(256) for _ in range(512))),
        c("request-line", "very long line no CRLF", b"GET /" + b"x" * big),
        # huge paths and headers
        c("huge", "path 8 KiB", _req(b"GET /" + b"a" * 8192 + b" HTTP/1.1")),
        c("huge", "path 64 KiB", _req(b"GET /" + b"a" * big + b" HTTP/1.1")),
        c("huge", "query 64 KiB", _req(b"GET /?" + b"a=1&" * (big // 4) + b" HTTP/1.1")),
        c("huge", "mongo id 64 KiB", _req(b"GET /mongo/pooled/" + b"9" * big + b" HTTP/1.1")),
        c("huge", "header value 64 KiB", _req(b"GET / HTTP/1.1", b"X-Big: " + b"v" * big + b"\r\n")),
        c("huge", "header name 16 KiB", _req(b"GET / HTTP/1.1", b"X" * 16384 + b": v\r\n")),
        c("huge", "2000 headers", _req(b"GET / HTTP/1.1", b"".join(b"X-H%d: v\r\n" % i for i in range(2000)))),
        c("huge", "headers 256 KiB", _req(b"GET / HTTP/1.1", b"".join(b"X-L%d: %s\r\n" % (i, b"w" * 1000)
                                                                       for i in range(256)))),
        c("huge", "cookie 64 KiB", _req(b"GET / HTTP/1.1", b"Cookie: " + b"a=b; " * (big // 5) + b"\r\n")),
        # bad methods
        c("method", "unknown FOO", _req(b"FOO / HTTP/1.1")),
        c("method", "GETT", _req(b"GETT / HTTP/1.1")),
        c("method", "lower-case get", _req(b"get / HTTP/1.1")),
        c("method", "NUL in method", _req(b"G\x00T / HTTP/1.1")),
        c("method", "punctuation", _req(b"<script> / HTTP/1.1")),
        c("method", "1 KiB method", _req(b"M" * 1024 + b" / HTTP/1.1")),
        c("method", "TRACE", _req(b"TRACE / HTTP/1.1")),
        c("method", "PROPFIND", _req(b"PROPFIND / HTTP/1.1")),
        c("method", "DELETE json", _req(b"DELETE /json HTTP/1.1")),
        c("method", "PATCH backend", _req(b"PATCH /redis/pooled HTTP/1.1")),
        c("method", "DEL char", _req(b"\x7f / HTTP/1.1")),
        c("method", "high bytes", _req(b"\xff\xfe / HTTP/1.1")),
        # percent-encoding
        *[c("percent", f"path {p.decode()}", _req(b"GET " + p + b" HTTP/1.1")) for p in (
            b"/%", b"/%z", b"/%zz", b"/%e0%a4", b"/%c0%af", b"/%00", b"/%%%%", b"/json%", b"/%uFFFF",
            b"/%2F%2F", b"/%2e%2e/%2e%2e/etc/passwd", b"/mongo/pooled/%", b"/mongo/pooled/%ZZ",
            b"/mongo/pooled/%00", b"/mongo/pooled/1%00", b"/mongo/pooled/%F0%9F%98%80", b"/mongo/pooled/%31",
            b"/mongo/per-request/%ff%fe", b"/redis/%2e%2e/pooled", b"/redis/pooled%", b"/?q=%zz&%=%",
            b"/mongo/pooled/-%31", b"/mongo/pooled/1e3", b"/mongo/pooled/0x10",
        )],
        # NUL bytes
        c("nul", "NUL in path", _req(b"GET /\x00 HTTP/1.1")),
        c("nul", "NUL in mongo id", _req(b"GET /mongo/pooled/1\x00 HTTP/1.1")),
        c("nul", "NUL in header value", _req(b"GET / HTTP/1.1", b"X-A: a\x00b\r\n")),
        c("nul", "NUL in header name", _req(b"GET / HTTP/1.1", b"X\x00A: b\r\n")),
        c("nul", "NUL after version", _req(b"GET / HTTP/1.1\x00")),
        c("nul", "NULs only", b"\x00" * 1024),
        # truncated requests (then EOF)
        c("truncated", "GET", b"GET"),
        c("truncated", "mid version", b"GET / HTT"),
        c("truncated", "request line only", b"GET / HTTP/1.1\r\n"),
        c("truncated", "headers unfinished", b"GET / HTTP/1.1\r\n" + HOST),
        c("truncated", "header name cut", b"GET / HTTP/1.1\r\n" + HOST + b"X-A"),
        c("truncated", "body short of Content-Length", _req(b"POST / HTTP/1.1", b"Content-Length: 10\r\n", b"abc")),
        c("truncated", "chunked body cut", _req(b"POST / HTTP/1.1", b"Transfer-Encoding: chunked\r\n", b"5\r\nab")),
        c("truncated", "in pieces", b"GET / HT", b"TP/1.1\r\nHo", b"st: x\r\n", half_close=True),
        # HTTP/1.0 and HTTP/0.9-ish
        c("http10", "HTTP/1.0", b"GET / HTTP/1.0\r\n\r\n", must_hello=True, half_close=False),
        c("http10", "HTTP/1.0 keep-alive", b"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", must_hello=True, half_close=False),
        c("http10", "HTTP/1.0 with Host", _req(b"GET / HTTP/1.0"), must_hello=True, half_close=False),
        c("http10", "HTTP/1.1 without Host", b"GET / HTTP/1.1\r\n\r\n"),
        c("http10", "HEAD HTTP/1.0", b"HEAD / HTTP/1.0\r\n\r\n"),
        c("http09", "GET / (0.9)", b"GET /\r\n"),
        c("http09", "GET /json (0.9)", b"GET /json\r\n\r\n"),
        c("http09", "POST / (0.9)", b"POST /\r\n"),
        c("http09", "HTTP/0.9 version", b"GET / HTTP/0.9\r\n\r\n"),
        c("http09", "LF line ends", b"GET / HTTP/1.1\nHost: x\n\n"),
        # absurd Content-Length
        *[c("content-length", f"Content-Length {v.decode()}", _req(b"POST / HTTP/1.1", b"Content-Length: " + v + b"\r\n",
                                                                    b"abc")) for v in (
            b"99999999999999999999", b"18446744073709551616", b"-1", b"abc", b"1e3", b"0x10", b" 5", b"5, 6", b"",
            b"9" * 400)],
        c("content-length", "GET with huge Content-Length", _req(b"GET / HTTP/1.1", b"Content-Length: 99999999999\r\n")),
        c("content-length", "two different lengths", _req(b"POST / HTTP/1.1", b"Content-Length: 3\r\nContent-Length: 5\r\n",
                                                          b"abcde")),
        c("content-length", "length and chunked", _req(b"POST / HTTP/1.1",
                                                      b"Content-Length: 4\r\nTransfer-Encoding: chunked\r\n",
                                                      b"0\r\n\r\nGET /json HTTP/1.1\r\n\r\n")),
        c("content-length", "body longer than length", _req(b"GET / HTTP/1.1", b"Content-Length: 2\r\n",
                                                           b"abGARBAGE GARBAGE\r\n\r\n")),
        # chunked garbage
        *[c("chunked", f"chunk {name}", _req(b"POST / HTTP/1.1", b"Transfer-Encoding: chunked\r\n", body)) for name, body in (
            ("size zz", b"zz\r\nabc\r\n0\r\n\r\n"), ("size -1", b"-1\r\nabc\r\n0\r\n\r\n"),
            ("size 2^80", b"ffffffffffffffffffff\r\nabc\r\n"), ("no terminator", b"3\r\nabc\r\n"),
            ("bad extension", b"3;=;=\r\nabc\r\n0\r\n\r\n"), ("missing CRLF", b"3\r\nabcdef0\r\n\r\n"),
            ("spaces", b" 3 \r\nabc\r\n0\r\n\r\n"), ("huge trailer", b"0\r\nX-T: " + b"t" * big + b"\r\n\r\n"),
            ("NUL", b"3\r\na\x00c\r\n0\r\n\r\n"))],
        c("chunked", "GET with chunked garbage", _req(b"GET / HTTP/1.1", b"Transfer-Encoding: chunked\r\n", b"zz\r\n")),
        c("chunked", "TE chunked, identity", _req(b"POST / HTTP/1.1", b"Transfer-Encoding: chunked, identity\r\n", b"0\r\n\r\n")),
        c("chunked", "TE xchunked", _req(b"POST / HTTP/1.1", b"Transfer-Encoding: xchunked\r\n", b"0\r\n\r\n")),
        c("chunked", "TE twice", _req(b"POST / HTTP/1.1", b"Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n",
                                      b"0\r\n\r\n")),
        c("chunked", "TE obs-fold", _req(b"POST / HTTP/1.1", b"Transfer-Encoding:\r\n chunked\r\n", b"0\r\n\r\n")),
        c("chunked", "TE on HTTP/1.0", b"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"),
        # header syntax
        c("header", "no colon", _req(b"GET / HTTP/1.1", b"NoColonHere\r\n")),
        c("header", "space before colon", _req(b"GET / HTTP/1.1", b"X-A : b\r\n")),
        c("header", "obs-fold", _req(b"GET / HTTP/1.1", b"X-A: a\r\n  folded\r\n")),
        c("header", "leading fold", b"GET / HTTP/1.1\r\n folded: x\r\n" + HOST + b"\r\n"),
        c("header", "empty name", _req(b"GET / HTTP/1.1", b": v\r\n")),
        c("header", "two Hosts", _req(b"GET / HTTP/1.1", HOST)),
        c("header", "bad Host", _req(b"GET / HTTP/1.1", b"Host: a b/c\r\n", host=False)),
        c("header", "high bytes value", _req(b"GET / HTTP/1.1", b"X-A: \xff\xfe\xfd\r\n")),
        c("header", "high bytes name", _req(b"GET / HTTP/1.1", b"\xc3\xa9: v\r\n")),
        c("header", "Expect 100-continue", _req(b"GET / HTTP/1.1", b"Expect: 100-continue\r\n")),
        c("header", "Expect unknown", _req(b"GET / HTTP/1.1", b"Expect: the-unexpected\r\n")),
        c("header", "Upgrade websocket", _req(b"GET / HTTP/1.1", b"Connection: Upgrade\r\nUpgrade: websocket\r\n")),
        c("header", "Upgrade h2c", _req(b"GET / HTTP/1.1", b"Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n"
                                                         b"HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n")),
        c("header", "Upgrade h2c garbage settings", _req(b"GET / HTTP/1.1", b"Connection: Upgrade, HTTP2-Settings\r\n"
                                                                          b"Upgrade: h2c\r\nHTTP2-Settings: !!!\r\n")),
        c("header", "Range garbage", _req(b"GET / HTTP/1.1", b"Range: bytes=99-1,-,a-b\r\n")),
        c("header", "Accept-Encoding garbage", _req(b"GET / HTTP/1.1", b"Accept-Encoding: gzip;q=x, *;q=-1\r\n")),
        c("header", "X-Forwarded garbage", _req(b"GET / HTTP/1.1", b"X-Forwarded-For: ::::, 999.1.1.1\r\n"
                                                                  b"Forwarded: for=\"\x01\"\r\n")),
        c("header", "Content-Type garbage", _req(b"POST / HTTP/1.1", b"Content-Type: multipart/form-data; boundary="
                                                + b"-" * 4096 + b"\r\nContent-Length: 3\r\n", b"abc")),
    ]
    # pipelining: several requests in one write, answers expected in order (HEAD: 200, or 405 on
    # the stacks whose framework does not map HEAD onto GET)
    ok, head = (200,), (200, 405)
    cases += [
        c("pipeline", "3 x GET /", _req(b"GET / HTTP/1.1") * 3, half_close=False,
          pipeline=((ok, HELLO),) * 3, requests=3),
        c("pipeline", "10 x GET /", _req(b"GET / HTTP/1.1") * 10, half_close=False,
          pipeline=((ok, HELLO),) * 10, requests=10),
        c("pipeline", "/, /json, /nope", _req(b"GET / HTTP/1.1") + _req(b"GET /json HTTP/1.1") + _req(b"GET /nope HTTP/1.1"),
          half_close=False, pipeline=((ok, HELLO), (ok, JSON), ((404,), None)), requests=3),
        c("pipeline", "GET, HEAD, GET", _req(b"GET / HTTP/1.1") + _req(b"HEAD / HTTP/1.1") + _req(b"GET /json HTTP/1.1"),
          half_close=False, pipeline=((ok, HELLO), (head, b""), (ok, JSON)), requests=3, heads=(False, True, False)),
        c("pipeline", "GET then garbage", _req(b"GET / HTTP/1.1") + b"\x00\x01garbage\r\n\r\n", half_close=False,
          pipeline=((ok, HELLO),), requests=2, wait_for=2),
        c("pipeline", "GET then 64 KiB path", _req(b"GET / HTTP/1.1") + _req(b"GET /" + b"a" * big + b" HTTP/1.1"),
          half_close=False, pipeline=((ok, HELLO),), requests=2, wait_for=2),
    ]
    return cases


# ---------------------------------------------------------------------------- mutations

_BASES = (
    _req(b"GET / HTTP/1.1"),
    _req(b"GET /json HTTP/1.1"),
    _req(b"GET /nope HTTP/1.1"),
    _req(b"POST / HTTP/1.1", b"Content-Length: 5\r\n", b"hello"),
    _req(b"GET / HTTP/1.1", b"Accept: */*\r\nUser-Agent: fuzz\r\nX-Long: " + b"q" * 200 + b"\r\n"),
    _req(b"PUT /json HTTP/1.1", b"Transfer-Encoding: chunked\r\n", b"5\r\nhello\r\n0\r\n\r\n"),
    _req(b"GET /mongo/pooled/1 HTTP/1.1"),
    _req(b"GET /redis/pooled HTTP/1.1"),
)
_BASE_WEIGHTS = (6, 3, 2, 2, 2, 2, 1, 1)  # backend routes rarely: their per-request cost dominates
_TOKENS = (b"\x00", b"\r", b"\n", b"\r\n", b"\r\n\r\n", b" ", b"\t", b"%", b"%zz", b"%00", b"\xff", b"/..", b":",
           b";", b",", b"\"", b"\\", b"?", b"#", b"HTTP/1.1", b"chunked", b"Content-Length: 7\r\n",
           b"Transfer-Encoding: chunked\r\n", b"\x1b[31m", b"{{7*7}}", b"${jndi:ldap://127.0.0.1/a}", b"'; --")
_METHODS = (b"GET", b"HEAD", b"POST", b"XYZ", b"G ET", b"", b"get", b"GET GET", b"\x00", b"CONNECT", b"OPTIONS")
_VERSIONS = (b"HTTP/1.1", b"HTTP/1.0", b"HTTP/2", b"HTTP/1.1.1", b"HTTP/", b"", b"HTTP/01.1", b"HTTP/1.10", b"http/1.1")


def mutated(rng: random.Random) -> Case:
    data = bytearray(rng.choices(_BASES, _BASE_WEIGHTS)[0])
    ops = []
    for _ in range(rng.randint(1, 3)):
        op = rng.choice(("flip", "insert", "delete", "repeat", "token", "method", "version", "header", "truncate"))
        ops.append(op)
        pos = rng.randrange(len(data) + 1) if data else 0
        if op == "flip" and data:
            data[min(pos, len(data) - 1)] = rng.randrange(256)
        elif op == "insert":
            data[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        elif op == "delete":
            del data[pos:pos + rng.randint(1, 12)]
        elif op == "repeat" and data:
            start = rng.randrange(len(data))
            piece = data[start:start + rng.randint(1, 32)]
            data[start:start] = piece * rng.randint(1, 200)
        elif op == "token":
            data[pos:pos] = rng.choice(_TOKENS)
        elif op in ("method", "version"):
            line_end = data.find(b"\r\n")
            line = bytes(data[:line_end if line_end >= 0 else len(data)])
            words = line.split(b" ")
            if op == "method" and words:
                words[0] = rng.choice(_METHODS)
            elif words:
                words[-1] = rng.choice(_VERSIONS)
            data[:len(line)] = b" ".join(words)
        elif op == "header":
            line_end = data.find(b"\r\n")
            if line_end >= 0:
                data[line_end + 2:line_end + 2] = rng.choice(_TOKENS) + b": " + rng.choice(_TOKENS) + b"\r\n"
        elif op == "truncate" and data:
            del data[rng.randrange(len(data)):]
    return Case("mutation", "+".join(ops), (bytes(data),))


def barrage(total: int, seed: int) -> list[Case]:
    """The fixed catalogue once, then mutations (and repeats of the catalogue, one in ten) up
    to `total` requests."""
    rng = random.Random(seed)
    fixed = fixed_cases()
    cases = list(fixed)
    count = sum(case.requests for case in cases)
    while count < total:
        case = rng.choice(fixed) if rng.random() < 0.1 else mutated(rng)
        cases.append(case)
        count += case.requests
    return cases


@dataclass
class Tally:
    """Per stack: requests sent, by kind, what came back, and what broke a rule."""

    requests: int = 0
    connections: int = 0
    by_kind: dict[str, int] = field(default_factory=dict)
    statuses: dict[str, int] = field(default_factory=dict)
    outcomes: dict[str, int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    failure_count: int = 0

    def count(self, case: Case) -> None:
        self.requests += case.requests
        self.connections += 1
        self.by_kind[case.kind] = self.by_kind.get(case.kind, 0) + case.requests

    def seen(self, key: str, table: str = "outcomes") -> None:
        target = getattr(self, table)
        target[key] = target.get(key, 0) + 1

    def fail(self, case: Case, why: str, data: bytes = b"") -> None:
        self.failure_count += 1
        if len(self.failures) < 25:
            self.failures.append(f"[{case.kind}: {case.name}] {why}; sent {case.data[:120]!r}; got {data[:300]!r}")
