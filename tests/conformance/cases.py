"""The HTTP/1.1 conformance cases, as data: raw request bytes in, the answers RFC 9112 / 9110 allow.

Written from the RFCs' text (section numbers below are RFC 9112's unless marked 9110). Each Case is
sent alone on a fresh connection, our side shut down once the expected answers are in (a server
waiting for more bytes sees EOF). An answer is the sequence of response statuses on that connection;
`ok` lists the sequences the RFC requires (pass), `lenient` those it permits a lenient recipient
(lenient-allowed); anything else fails, and so do a malformed response, a connection neither
answered nor closed within the deadline, and a server that no longer answers GET / afterwards.

Patterns: "400 404" is two responses in that order; "4xx" any 4xx; R a refusal (400, 413, 414, 431,
501, 505); "closed" at the end: the server closed before our side did (alone: no answer at all).
The apps answer GET / and GET /json 200, an unknown path 404 and POST / 405 (the route contract): a
request that carries a body is a POST / (405) whose body is itself a request (GET /json, 200),
followed, in the same write, by a canary `GET /nope` (404). The answers tell where the server thinks
the body ended: 405 404 consumed, 405 200 404 read as a request, 405 400 ignored (a chunk-size line
refused as a request line). A 404 or 405 to a request the server should have refused is the app's
("handed to the app", wire.HANDED), never a refusal.

Classes: "smuggling" for cases that decide where a message ends (Content-Length, Transfer-Encoding,
chunk syntax, line terminators and field syntax that can hide or forge a framing header): a server
that differs from a proxy in front of it on one of these is a request-smuggling risk. "other" for
the rest (request-line forms and versions, limits, Host, pipelining order).
"""
from __future__ import annotations

from dataclasses import dataclass

SMUGGLING = "smuggling"
OTHER = "other"
CLASSES = (SMUGGLING, OTHER)

HOST = b"Host: 127.0.0.1\r\n"
# A framing case's body is itself a request, to a route of its own (GET /json: 200), and the canary that
# follows another (GET /nope: 404): a consumed body answers 405 404, a body read as the next request
# 405 200 404, a body ignored (a chunk-size line taken for a request line) 405 400.
BODY = b"GET /json HTTP/1.1\r\n" + HOST + b"X-B: 1\r\n\r\n"
BODY_STATUS, CANARY_STATUS = 200, 404
N = b"%d" % len(BODY)  # its length, in decimal and in hex (with a letter in it: 2d / 2D)
X = b"%x" % len(BODY)
CANARY = b"GET /nope HTTP/1.1\r\n" + HOST + b"\r\n"
WRAP = 2 ** 64  # a size that wraps modulo 2^64 to the body's length: a wrapping parser frames it "right"

# Sequences used over and over. R is a refusal: 400, 413, 414, 431, 501 or 505 (wire.REFUSALS); a pattern
# ending in "closed" needs the server to close before our side does (RFC 9112 6.3: 400, then close).
REJECT = ("R",)
REJECT_CLOSE = ("R closed",)  # framing it cannot trust: refuse, then close (RFC 9112 6.3, 6.1)
REJECT_OR_NOT_IMPLEMENTED = REJECT  # 501 for a coding it does not know: R
REJECT_OR_VERSION = REJECT
CLOSED = ("closed",)  # closed without an answer: a server may always close (RFC 9112 9.6), but says nothing why
BODY_READ = ("405 404", "405 closed")  # the body consumed, the canary answered (or the connection closed after)
HELLO = ("200",)


@dataclass(frozen=True)
class Case:
    id: str
    cls: str
    rfc: str  # section(s) the expectation comes from
    request: bytes  # a tuple of parts: written apart, a pause between them
    ok: tuple[str, ...]
    lenient: tuple[str, ...] = ()
    note: str = ""
    answers_before_body: int = 0  # answers to requests sent before the framing one (pipelined first)

    def __post_init__(self):
        if isinstance(self.request, tuple):
            object.__setattr__(self, "parts", self.request)
            object.__setattr__(self, "request", b"".join(self.request))

    @property
    def request_parts(self) -> tuple[bytes, ...]:
        return getattr(self, "parts", (self.request,))

    @property
    def answers_expected(self) -> int:
        """How many final answers to wait for before our side shuts down (the most any sequence has)."""
        return max([len([t for t in p.split() if t != "closed"]) for p in self.ok + self.lenient] + [1])

    @property
    def framing(self) -> bool:
        """Its body is the request of its own (BODY): the answers tell how it was framed."""
        return BODY in self.request

    @property
    def valid_chunks(self) -> bool:
        """Its chunked body is valid: a 400 after the app's answer is the chunk-size line read as a request."""
        return self.request.endswith(b"\r\n\r\n" + fill(HELLO_CHUNKS) + CANARY)

    @property
    def must_close(self) -> bool:
        """The RFC says close after the refusal (RFC 9112 6.3, 6.1): we wait for it before our EOF."""
        return any(p.startswith("R") and p.endswith("closed") for p in self.ok)

    @property
    def wants_refusal(self) -> bool:
        """Every allowed answer is a refusal: an app's answer is then "handed to the app"."""
        return all(p.split()[0] in ("R", "closed") for p in self.ok)

    @property
    def answers_awaited(self) -> int:
        """A framing case waits for one answer more than its refusal: what follows it tells the framing."""
        return max(self.answers_expected, 2 + self.answers_before_body) if self.framing else self.answers_expected


def req(line: bytes, headers: bytes = b"", body: bytes = b"", host: bool = True) -> bytes:
    return line + b"\r\n" + (HOST if host else b"") + headers + b"\r\n" + body


def fill(data: bytes) -> bytes:
    """{n} and {x}: the body's length in decimal and hex, {X} in upper-case hex, {d} the body itself."""
    return (data.replace(b"{n}", N).replace(b"{x}", X).replace(b"{X}", X.upper()).replace(b"{d}", BODY))


def post(headers: bytes, body: bytes = b"{d}", line: bytes = b"POST / HTTP/1.1") -> bytes:
    """A POST / with these framing headers and body ({n} {x} {d}: fill()), then the canary request."""
    return req(line, fill(headers), fill(body)) + CANARY


CHUNKED = b"Transfer-Encoding: chunked\r\n"
HELLO_CHUNKS = b"{x}\r\n{d}\r\n0\r\n\r\n"
CL = b"Content-Length: {n}\r\n"


def _cases() -> list[Case]:
    S, O = SMUGGLING, OTHER
    big = 64 * 1024
    return [
        # ------------------------------------------------------------------ request line (3, 3.2, 2.3)
        Case("origin-form", O, "3.2.1", req(b"GET / HTTP/1.1"), HELLO),
        Case("origin-form-query", O, "3.2.1", req(b"GET /?a=b&c HTTP/1.1"), HELLO),
        Case("absolute-form", O, "3.2.2", req(b"GET http://127.0.0.1/ HTTP/1.1"), HELLO,
             note="a server MUST accept the absolute-form in requests"),
        Case("absolute-form-other-host", O, "3.2.2, 9110 7.4", req(b"GET http://example.com/ HTTP/1.1"),
             ("200", "421", "4xx"), note="the target's authority wins over Host; 421 if it is not ours"),
        Case("authority-form-get", O, "3.2.3", req(b"GET 127.0.0.1:80 HTTP/1.1"), REJECT, CLOSED,
             note="the authority-form is only used for CONNECT"),
        Case("connect", O, "3.2.3, 9110 9.3.6", req(b"CONNECT 127.0.0.1:443 HTTP/1.1"),
             ("4xx", "501"), CLOSED, note="an origin server that is no proxy refuses CONNECT"),
        Case("connect-ipv6", O, "3.2.3, 9110 9.3.6", req(b"CONNECT [::1]:443 HTTP/1.1"), ("4xx", "501"), CLOSED),
        Case("asterisk-options", O, "3.2.4, 9110 9.3.7", req(b"OPTIONS * HTTP/1.1"),
             ("2xx", "4xx", "501"), CLOSED),
        Case("asterisk-get", O, "3.2.4", req(b"GET * HTTP/1.1"), REJECT, CLOSED,
             note="the asterisk-form is only used for OPTIONS: GET * is not GET /"),
        Case("http10", O, "2.3, 9110 6.2", b"GET / HTTP/1.0\r\n\r\n", HELLO),
        Case("http12-minor", O, "2.3, 9110 6.2", req(b"GET / HTTP/1.2"), HELLO, ("505", "R"),
             note="a higher minor version is processed as the highest one the recipient speaks"),
        Case("version-20", O, "2.3, 9110 15.6.6", req(b"GET / HTTP/2.0"), REJECT_OR_VERSION, CLOSED),
        Case("version-lower-case", O, "2.3", req(b"GET / http/1.1"), REJECT_OR_VERSION, CLOSED,
             note="HTTP-name is case-sensitive"),
        Case("version-two-digits", O, "2.3", req(b"GET / HTTP/1.10"), REJECT_OR_VERSION, CLOSED),
        Case("version-111", O, "2.3", req(b"GET / HTTP/111"), REJECT_OR_VERSION, CLOSED),
        Case("version-ftp", O, "2.3", req(b"GET / FTP/1.1"), REJECT_OR_VERSION, CLOSED),
        Case("version-missing", O, "2.3, 3", b"GET /\r\n\r\n", REJECT_OR_VERSION, CLOSED,
             note="HTTP/0.9 is not HTTP/1.1: no status line can answer it"),
        Case("method-lower-case", O, "3.1, 9110 9.1", req(b"get / HTTP/1.1"), ("4xx", "501"), CLOSED,
             note="methods are case-sensitive: get is an unknown method, not GET"),
        Case("method-unknown", O, "3.1, 9110 9.1", req(b"FOO / HTTP/1.1"), ("4xx", "501"), CLOSED),
        Case("method-not-token", O, "3.1", req(b"G@T / HTTP/1.1"), REJECT, CLOSED + ("501",)),
        Case("request-line-double-space", O, "3", req(b"GET  / HTTP/1.1"), REJECT, CLOSED + HELLO,
             note="recipients MAY parse on whitespace word boundaries"),
        Case("request-line-tabs", O, "3", req(b"GET\t/\tHTTP/1.1"), REJECT, CLOSED + HELLO),
        Case("request-line-trailing-space", O, "3", req(b"GET / HTTP/1.1 "), REJECT, CLOSED + HELLO),
        Case("target-with-space", O, "3, 3.2", req(b"GET /a b HTTP/1.1"), REJECT, CLOSED),
        Case("target-nul", O, "3.2", req(b"GET /\x00 HTTP/1.1"), REJECT, CLOSED),
        Case("leading-empty-line", O, "2.2", b"\r\n" + req(b"GET / HTTP/1.1"), HELLO, REJECT,
             note="a server SHOULD ignore at least one empty line before the request-line"),
        Case("lf-line-endings", O, "2.2", b"GET / HTTP/1.1\nHost: 127.0.0.1\n\n", HELLO + REJECT, CLOSED,
             note="a recipient MAY recognize a single LF as a line terminator"),
        Case("bare-cr-request-line", S, "2.2", b"GET / HTTP/1.1\rHost: 127.0.0.1\r\n\r\n", REJECT, CLOSED,
             note="a bare CR is invalid or replaced by SP: never a line terminator"),
        # ------------------------------------------------------------------ field syntax (5, 9110 5.5)
        Case("space-before-colon", O, "5.1", req(b"GET / HTTP/1.1", b"X-A : b\r\n"), REJECT, CLOSED,
             note="a server MUST reject whitespace between a field name and colon with 400"),
        Case("space-before-colon-cl", S, "5.1", post(b"Content-Length : {n}\r\n"), REJECT_CLOSE, CLOSED),
        Case("tab-before-colon-te", S, "5.1", post(b"Transfer-Encoding\t: chunked\r\n", HELLO_CHUNKS),
             REJECT_CLOSE, CLOSED),
        Case("obs-fold", O, "5.2", req(b"GET / HTTP/1.1", b"X-A: a\r\n b\r\n"), REJECT + HELLO,
             note="reject with 400, or replace the fold with SP"),
        Case("obs-fold-te", S, "5.2", post(b"Transfer-Encoding:\r\n chunked\r\n", HELLO_CHUNKS),
             REJECT + BODY_READ),
        Case("whitespace-before-first-field", S, "2.2",
             b"GET / HTTP/1.1\r\n Content-Length: %d\r\n" % len(CANARY) + HOST + b"\r\n" + CANARY,
             REJECT + ("200 404",), CLOSED + ("200 closed",),
             note="reject, or consume each whitespace-preceded line without processing it (the canary is "
                  "then answered); a server that closes after one answer cannot be told apart"),
        Case("bare-lf-in-value-cl", S, "2.2, 9110 5.5",
             req(b"GET / HTTP/1.1", b"X-A: a\nContent-Length: %d\r\n" % len(CANARY)) + CANARY, REJECT,
             CLOSED + ("200", "200 404"),
             note="a LF is a line terminator (the Content-Length counts, the canary is body) or replaced by SP "
                  "(the canary is answered): both allowed, and a proxy that took the other reading is a "
                  "smuggling risk; a strict recipient rejects"),
        Case("bare-cr-in-value-cl", S, "2.2, 9110 5.5",
             req(b"GET / HTTP/1.1", b"X-A: a\rContent-Length: %d\r\n" % len(CANARY)) + CANARY, REJECT,
             CLOSED + ("200 404",), note="a bare CR is invalid or replaced by SP, never a line terminator"),
        Case("nul-in-value", O, "9110 5.5", req(b"GET / HTTP/1.1", b"X-A: a\x00b\r\n"), REJECT, CLOSED + HELLO,
             note="reject, or replace NUL with SP"),
        Case("ctl-in-value", O, "9110 5.5", req(b"GET / HTTP/1.1", b"X-A: a\x01b\r\n"), REJECT, CLOSED + HELLO,
             note="other CTLs are invalid; recipients MAY retain them"),
        Case("del-in-value", O, "9110 5.5", req(b"GET / HTTP/1.1", b"X-A: a\x7fb\r\n"), REJECT, CLOSED + HELLO),
        Case("obs-text-in-value", O, "9110 5.5", req(b"GET / HTTP/1.1", b"X-A: caf\xe9\r\n"), HELLO, REJECT),
        Case("value-surrounding-ows", O, "5.1", req(b"GET / HTTP/1.1", b"X-A: \t b \t\r\n"), HELLO),
        Case("empty-value", O, "5.1", req(b"GET / HTTP/1.1", b"X-A:\r\n"), HELLO),
        Case("name-with-space", O, "5.1, 9110 5.1", req(b"GET / HTTP/1.1", b"X A: b\r\n"), REJECT, CLOSED),
        Case("name-with-paren", O, "9110 5.1", req(b"GET / HTTP/1.1", b"X(A): b\r\n"), REJECT, CLOSED),
        Case("name-with-nul", O, "9110 5.1", req(b"GET / HTTP/1.1", b"X\x00A: b\r\n"), REJECT, CLOSED),
        Case("name-non-ascii", O, "9110 5.1", req(b"GET / HTTP/1.1", b"X-\xc3\x84: b\r\n"), REJECT, CLOSED),
        Case("name-empty", O, "5.1", req(b"GET / HTTP/1.1", b": b\r\n"), REJECT, CLOSED),
        Case("line-without-colon", O, "5.1", req(b"GET / HTTP/1.1", b"X-A b\r\n"), REJECT, CLOSED),
        Case("line-without-colon-te", S, "5.1", post(b"Transfer-Encoding chunked\r\n" + CL), REJECT,
             CLOSED + BODY_READ),
        # ------------------------------------------------------------------ Content-Length (6.3, 9110 8.6)
        Case("cl-valid", S, "6.3", post(CL), BODY_READ),
        Case("cl-no-ows", S, "6.3", post(b"Content-Length:{n}\r\n"), BODY_READ),
        Case("cl-trailing-ows", S, "5.1", post(b"Content-Length: {n} \t\r\n"), BODY_READ),
        Case("cl-leading-zeros", S, "9110 8.6", post(b"Content-Length: 00{n}\r\n"), BODY_READ, REJECT),
        Case("cl-zero-get", S, "6.3", req(b"GET / HTTP/1.1", b"Content-Length: 0\r\n") + CANARY,
             ("200 404", "200 closed")),
        Case("cl-get-with-body", S, "6.3, 9110 9.3.1", req(b"GET / HTTP/1.1", CL)
             + CANARY, ("200 404", "200 closed"), REJECT,
             note="a GET body has no meaning, but its length still frames it"),
        Case("cl-list-same", S, "9110 8.6", post(b"Content-Length: {n}, {n}\r\n"), REJECT,
             CLOSED + BODY_READ, note="reject, or replace a list of one repeated value by that value"),
        Case("cl-duplicate-same", S, "9110 8.6", post(CL + CL),
             REJECT, CLOSED + BODY_READ),
        Case("cl-list-differ", S, "6.3", post(b"Content-Length: {n}, 6\r\n"), REJECT_CLOSE, CLOSED,
             note="an invalid Content-Length: 400 and close"),
        Case("cl-duplicate-differ", S, "6.3", post(CL + b"Content-Length: 6\r\n"),
             REJECT_CLOSE, CLOSED),
        Case("cl-plus-sign", S, "6.3, 9110 8.6", post(b"Content-Length: +{n}\r\n"), REJECT_CLOSE, CLOSED),
        Case("cl-negative", S, "6.3, 9110 8.6", post(b"Content-Length: -{n}\r\n"), REJECT_CLOSE, CLOSED),
        Case("cl-hex", S, "6.3, 9110 8.6", post(b"Content-Length: 0x{x}\r\n"), REJECT_CLOSE, CLOSED),
        Case("cl-underscore", S, "6.3, 9110 8.6", post(b"Content-Length: 0_{n}\r\n"), REJECT_CLOSE, CLOSED,
             note="Python's int() reads 0_5 as 5"),
        Case("cl-non-ascii-digit", S, "6.3, 9110 8.6", post("Content-Length: \u0664\u0667\r\n".encode()),
             REJECT_CLOSE, CLOSED, note="Arabic-Indic digits (47): str.isdigit() and int() accept them"),
        Case("cl-inner-space", S, "6.3, 9110 8.6", post(b"Content-Length: 1 {n}\r\n"), REJECT_CLOSE, CLOSED),
        Case("cl-empty", S, "6.3, 9110 8.6", post(b"Content-Length:\r\n"), REJECT_CLOSE, CLOSED),
        Case("cl-huge", S, "6.3, 9110 8.6", post(b"Content-Length: %d\r\n" % (WRAP + len(BODY))),
             REJECT, CLOSED + ("405",), note="2^64 + the body's length: 400 or 413, or read on (the canary is body); a "
                                       "parser that wraps frames the body by the small rest"),
        Case("cl-short-body-eof", O, "6.3, 8", req(b"POST / HTTP/1.1", b"Content-Length: 10\r\n", b"abc"),
             REJECT + CLOSED + ("405",), note="incomplete: answer or close, never hang"),
        Case("cl-and-te", S, "6.1, 6.3", post(b"Content-Length: 3\r\n" + CHUNKED, HELLO_CHUNKS),
             REJECT_CLOSE + ("405 closed",), CLOSED,
             note="reject, or frame by Transfer-Encoding alone; either way the server MUST close after"),
        Case("te-and-cl", S, "6.1, 6.3", post(CHUNKED + b"Content-Length: 3\r\n", HELLO_CHUNKS),
             REJECT_CLOSE + ("405 closed",), CLOSED),
        # ------------------------------------------------------------------ Transfer-Encoding (6.1, 7)
        Case("te-chunked", S, "7.1", post(CHUNKED, HELLO_CHUNKS), BODY_READ),
        Case("te-chunked-upper-case", S, "7, 9110 8.4", post(b"Transfer-Encoding: CHUNKED\r\n", HELLO_CHUNKS),
             BODY_READ, REJECT, note="transfer coding names are case-insensitive"),
        Case("te-tab-ows", S, "5.1", post(b"Transfer-Encoding:\tchunked\r\n", HELLO_CHUNKS), BODY_READ),
        Case("te-http10", S, "6.1", post(CHUNKED, HELLO_CHUNKS, line=b"POST / HTTP/1.0"),
             REJECT_CLOSE + ("405 closed",),
             CLOSED, note="Transfer-Encoding in HTTP/1.0: faulty framing, close after processing"),
        Case("te-chunked-twice", S, "6.1, 7", post(b"Transfer-Encoding: chunked, chunked\r\n", HELLO_CHUNKS),
             REJECT_OR_NOT_IMPLEMENTED, CLOSED + BODY_READ,
             note="chunked MUST NOT be applied more than once; the final coding is chunked, so framing the "
                  "body by it once frames it as the RFC does (the content is then wrong, not the framing)"),
        Case("te-two-lines", S, "6.1, 7, 9110 5.3",
             post(CHUNKED + CHUNKED, HELLO_CHUNKS), REJECT_OR_NOT_IMPLEMENTED, CLOSED + BODY_READ,
             note="two field lines are one list: chunked, chunked"),
        Case("te-chunked-not-final", S, "6.1, 6.3", post(b"Transfer-Encoding: chunked, gzip\r\n", HELLO_CHUNKS),
             REJECT_CLOSE, CLOSED, note="chunked not final: 400 and close"),
        Case("te-gzip-chunked", S, "6.1, 7", post(b"Transfer-Encoding: gzip, chunked\r\n", HELLO_CHUNKS),
             REJECT_OR_NOT_IMPLEMENTED, CLOSED + BODY_READ,
             note="a coding the server does not know: SHOULD 501; chunked is final, so the framing holds"),
        Case("te-identity", S, "6.1, 7", post(b"Transfer-Encoding: identity\r\n", HELLO_CHUNKS),
             REJECT_OR_NOT_IMPLEMENTED, CLOSED, note="identity is no longer a transfer coding"),
        Case("te-xchunked", S, "6.1", post(b"Transfer-Encoding: xchunked\r\n", HELLO_CHUNKS),
             REJECT_OR_NOT_IMPLEMENTED, CLOSED),
        Case("te-vtab", S, "5.1, 6.1", post(b"Transfer-Encoding: \x0bchunked\r\n", HELLO_CHUNKS),
             REJECT_OR_NOT_IMPLEMENTED, CLOSED, note="VT is not OWS"),
        Case("te-empty", S, "6.1", post(b"Transfer-Encoding:\r\n", HELLO_CHUNKS), REJECT_OR_NOT_IMPLEMENTED,
             CLOSED),
        # ------------------------------------------------------------------ chunks (7.1)
        Case("chunk-ext-token", S, "7.1.1", post(CHUNKED, b"{x};a=b\r\n{d}\r\n0\r\n\r\n"), BODY_READ),
        Case("chunk-ext-quoted", S, "7.1.1", post(CHUNKED, b'{x};a="b c;d"\r\n{d}\r\n0\r\n\r\n'), BODY_READ,
             note="chunk-ext-val = token / quoted-string"),
        Case("chunk-ext-name-only", S, "7.1.1", post(CHUNKED, b"{x};a\r\n{d}\r\n0\r\n\r\n"), BODY_READ),
        Case("chunk-ext-bws", S, "7.1.1", post(CHUNKED, b"{x} ; a = b\r\n{d}\r\n0\r\n\r\n"), BODY_READ, REJECT),
        Case("chunk-ext-bare-lf", S, "7.1.1, 2.2", post(CHUNKED, b"{x};a\nb\r\n{d}\r\n0\r\n\r\n"), REJECT,
             CLOSED, note="an extension is no place for a LF: a proxy may end the line there"),
        Case("chunk-ext-bare-cr", S, "7.1.1, 2.2", post(CHUNKED, b"{x};a\rb\r\n{d}\r\n0\r\n\r\n"), REJECT,
             CLOSED),
        Case("chunk-size-upper-hex", S, "7.1", post(CHUNKED, b"{X}\r\n{d}\r\n0\r\n\r\n"), BODY_READ),
        Case("chunk-size-0x", S, "7.1", post(CHUNKED, b"0x{x}\r\n{d}\r\n0\r\n\r\n"), REJECT, CLOSED),
        Case("chunk-size-plus", S, "7.1", post(CHUNKED, b"+{x}\r\n{d}\r\n0\r\n\r\n"), REJECT, CLOSED),
        Case("chunk-size-negative", S, "7.1", post(CHUNKED, b"-{x}\r\n{d}\r\n0\r\n\r\n"), REJECT, CLOSED),
        Case("chunk-size-underscore", S, "7.1", post(CHUNKED, b"0_{x}\r\n{d}\r\n0\r\n\r\n"), REJECT, CLOSED,
             note="Python's int(s, 16) reads 0_5 as 5"),
        Case("chunk-size-leading-space", S, "7.1", post(CHUNKED, b" {x}\r\n{d}\r\n0\r\n\r\n"), REJECT, CLOSED),
        Case("chunk-size-trailing-space", S, "7.1", post(CHUNKED, b"{x} \r\n{d}\r\n0\r\n\r\n"), REJECT,
             CLOSED + BODY_READ, note="not in the grammar, but BWS is allowed before an extension's ';'"),
        Case("chunk-size-overflow", S, "7.1", post(CHUNKED, b"%x\r\n{d}\r\n0\r\n\r\n" % (WRAP + len(BODY))),
             REJECT, CLOSED + ("405",), note="a recipient MUST anticipate large sizes and prevent integer overflow: "
                                             "2^64 + the body's length, a wrapping parser frames the body by it"),
        Case("chunk-size-missing", S, "7.1", post(CHUNKED, b"\r\n{d}\r\n0\r\n\r\n"), REJECT, CLOSED),
        Case("chunk-data-too-long", S, "7.1", post(CHUNKED, b"{x}\r\n{d}XX\r\n0\r\n\r\n"), REJECT, CLOSED),
        Case("chunk-data-lf-only", S, "7.1, 2.2", post(CHUNKED, b"{x}\r\n{d}\n0\r\n\r\n"), REJECT,
             CLOSED + BODY_READ, note="CRLF after chunk-data; a lenient LF is a known smuggling vector"),
        Case("chunk-size-not-hex-eof", O, "7.1", req(b"POST / HTTP/1.1", CHUNKED, b"zz\r\n"), REJECT + CLOSED,
             note="an invalid size, then EOF: answer or close, never hang"),
        Case("chunk-cut-eof", O, "7.1", req(b"POST / HTTP/1.1", CHUNKED, b"{x}\r\n{d}\r\n"), REJECT + CLOSED,
             ("405",), note="no last chunk, then EOF"),
        Case("chunk-last-ext", S, "7.1.1", post(CHUNKED, b"{x}\r\n{d}\r\n0;a=b\r\n\r\n"), BODY_READ),
        Case("trailer-field", S, "7.1.2", post(CHUNKED, b"{x}\r\n{d}\r\n0\r\nX-T: v\r\n\r\n"), BODY_READ),
        Case("trailer-content-length", S, "7.1.2, 9110 6.5.1",
             post(CHUNKED, b"{x}\r\n{d}\r\n0\r\nContent-Length: 40\r\n\r\n"), BODY_READ + REJECT,
             note="a trailer field cannot change the framing"),
        Case("trailer-invalid-name", S, "7.1.2, 5.1",
             post(CHUNKED, b"{x}\r\n{d}\r\n0\r\nX T: v\r\n\r\n"), REJECT, CLOSED + BODY_READ,
             note="trailer fields may be discarded, but the line is still a field line"),
        # ------------------------------------------------------------------ limits (9110 15.5, 3)
        Case("target-64k", O, "3, 9110 15.5.15", req(b"GET /" + b"a" * big + b" HTTP/1.1"), REJECT,
             CLOSED, note="414 beyond the server's limit (a 404 is the app's, handed an invalid target)"),
        Case("header-1m", O, "9110 15.5.20, 5.4",
             req(b"GET / HTTP/1.1", b"X-Big: " + b"v" * (1024 * 1024) + b"\r\n"), REJECT, CLOSED + HELLO,
             note="431 or 400 for a field larger than the server wishes to process"),
        Case("headers-10000", O, "9110 15.5.20, 5.4",
             req(b"GET / HTTP/1.1", b"".join(b"X-%d: v\r\n" % i for i in range(10000))), REJECT, CLOSED + HELLO),
        Case("headers-50", O, "5", req(b"GET / HTTP/1.1", b"".join(b"X-%d: v\r\n" % i for i in range(50))),
             HELLO),
        # ------------------------------------------------------------------ pipelining, persistence (9)
        Case("pipeline-two", O, "9.3.2", req(b"GET / HTTP/1.1") + req(b"GET /json HTTP/1.1"), ("200 200",),
             HELLO, note="a server MUST answer pipelined requests in order (or close after the first)"),
        Case("pipeline-three", O, "9.3.2", req(b"GET / HTTP/1.1") + req(b"GET /nope HTTP/1.1")
             + req(b"GET / HTTP/1.1"), ("200 404 200",), HELLO),
        Case("pipeline-after-body", S, "9.3.2, 6.3",
             req(b"GET / HTTP/1.1") + post(CL), ("200 405 404", "200 405 closed", "200 closed"),
             answers_before_body=1),
        Case("connection-close-then-more", O, "9.6", req(b"GET / HTTP/1.1", b"Connection: close\r\n") + CANARY,
             HELLO, note="a server MUST NOT process requests after one with Connection: close"),
        Case("http10-then-more", O, "9.3", b"GET / HTTP/1.0\r\n\r\n" + CANARY, HELLO, ("200 404",),
             note="HTTP/1.0 without keep-alive: the connection closes after the response"),
        Case("expect-100", S, "9110 10.1.1",
             post(CL + b"Expect: 100-continue\r\n"), BODY_READ),
        # ------------------------------------------------------------------ HTTP/1.0 keep-alive with TE (6.1)
        Case("te-http10-keepalive", S, "6.1, 9.3", post(b"Connection: keep-alive\r\n" + CHUNKED, HELLO_CHUNKS,
                                                         line=b"POST / HTTP/1.0"), REJECT_CLOSE + ("405 closed",),
             CLOSED, note="Transfer-Encoding in HTTP/1.0 is faulty framing: close after processing, keep-alive "
                          "or not"),
        Case("te-cl-http10-keepalive", S, "6.1, 6.3, 9.3",
             post(b"Connection: keep-alive\r\n" + CHUNKED + b"Content-Length: %d\r\n" % len(X + b"\r\n"),
                  HELLO_CHUNKS, line=b"POST / HTTP/1.0"), REJECT_CLOSE + ("405 closed",), CLOSED,
             note="the Content-Length covers the chunk-size line only: framed by it, the chunk data is a request"),
        # ------------------------------------------------------------------ Transfer-Encoding lists, variants (6.1, 7)
        Case("te-identity-chunked", S, "6.1, 7", post(b"Transfer-Encoding: identity, chunked\r\n", HELLO_CHUNKS),
             REJECT, CLOSED + BODY_READ, note="identity is no transfer coding (any more): SHOULD 501; chunked is "
                                              "final, so framing by it holds"),
        Case("te-second-line-identity", S, "6.1, 9110 5.3",
             post(CHUNKED + b"Transfer-Encoding: identity\r\n", HELLO_CHUNKS), REJECT_CLOSE, CLOSED,
             note="two lines are one list, chunked, identity: chunked is not final, 400 and close"),
        Case("te-chunked-param", S, "7, 9110 10.1.4", post(b"Transfer-Encoding: chunked;x=y\r\n", HELLO_CHUNKS),
             REJECT, CLOSED + BODY_READ, note="chunked defines no parameter: an unknown coding (501), or chunked"),
        Case("te-quoted-chunked", S, "6.1, 9110 5.6.2", post(b'Transfer-Encoding: "chunked"\r\n', HELLO_CHUNKS),
             REJECT, CLOSED, note="a transfer-coding is a token, not a quoted-string"),
        Case("te-fs-chunked", S, "5.1, 6.1", post(b"Transfer-Encoding: \x1cchunked\r\n", HELLO_CHUNKS), REJECT,
             CLOSED, note="\\x1c is no OWS, but Python's str.strip() removes it"),
        Case("te-chunked-us", S, "5.1, 6.1", post(b"Transfer-Encoding: chunked\x1f\r\n", HELLO_CHUNKS), REJECT,
             CLOSED, note="\\x1f: str.strip() removes it"),
        Case("te-nbsp-chunked", S, "5.1, 6.1", post(b"Transfer-Encoding: \xa0chunked\r\n", HELLO_CHUNKS), REJECT,
             CLOSED, note="NBSP (latin-1 \\xa0): str.strip() removes it from the decoded value"),
        Case("te-chunked-nel", S, "5.1, 6.1", post(b"Transfer-Encoding: chunked\x85\r\n", HELLO_CHUNKS), REJECT,
             CLOSED, note="NEL (latin-1 \\x85): str.strip() removes it from the decoded value"),
        Case("te-name-long-s", S, "9110 5.1, 5.1", post("Tran\u017ffer-Encoding: chunked\r\n".encode(), HELLO_CHUNKS),
             REJECT, CLOSED, note="not a token; str.upper() makes TRANSFER-ENCODING of it (U+017F, long s)"),
        Case("te-name-dotless-i", S, "9110 5.1, 5.1",
             post("Transfer-Encod\u0131ng: chunked\r\n".encode(), HELLO_CHUNKS), REJECT, CLOSED,
             note="not a token; str.upper() makes TRANSFER-ENCODING of it (U+0131, dotless i)"),
        Case("cl-fs-prefix", S, "6.3, 9110 8.6", post(b"Content-Length: \x1c{n}\r\n"), REJECT_CLOSE, CLOSED,
             note="Python's int() skips \\x1c as whitespace"),
        Case("cl-nbsp-prefix", S, "6.3, 9110 8.6", post(b"Content-Length: \xa0{n}\r\n"), REJECT_CLOSE, CLOSED,
             note="Python's int() skips NBSP in the decoded value"),
        # ------------------------------------------------------------------ funky chunks (7.1, 7.1.1)
        Case("chunk-data-two-byte-terminator", S, "7.1", post(CHUNKED, b"{x}\r\n{d}XX0\r\n\r\n"), REJECT, CLOSED,
             note="the two bytes after chunk-data must be CRLF: a parser that skips any two frames on"),
        Case("chunk-ext-nul", S, "7.1.1", post(CHUNKED, b"{x};a=\x00\r\n{d}\r\n0\r\n\r\n"), REJECT, CLOSED),
        Case("chunk-ext-quoted-lf", S, "7.1.1, 2.2", post(CHUNKED, b'{x};a="b\nc"\r\n{d}\r\n0\r\n\r\n'), REJECT,
             CLOSED, note="a quoted-string holds no LF: a proxy may end the line there"),
        Case("last-chunk-bare-lf", S, "7.1, 2.2", post(CHUNKED, b"{x}\r\n{d}\r\n0\n\r\n"), REJECT,
             CLOSED + BODY_READ, note="a LF alone after the last chunk"),
        Case("chunk-ext-64k", S, "7.1.1", post(CHUNKED, b"{x};a=" + b"b" * (64 * 1024) + b"\r\n{d}\r\n0\r\n\r\n"),
             REJECT, CLOSED + BODY_READ, note="a server ought to limit the length of chunk extensions (4xx)"),
        # ------------------------------------------------------------------ Expect, bodies in several writes
        Case("expect-100-early", S, "9110 10.1.1, 9.3",
             (req(b"POST / HTTP/1.1", fill(CL + b"Expect: 100-continue\r\n")), BODY + CANARY), BODY_READ,
             note="the body follows a pause: a server answering first must still read (or close on) the body"),
        Case("expect-unknown", S, "9110 10.1.1",
             (req(b"POST / HTTP/1.1", fill(CL + b"Expect: 100-continuex\r\n")), BODY + CANARY),
             BODY_READ + ("417 404", "417 closed"), note="an unknown expectation: MAY 417"),
        Case("expect-folded", S, "9110 10.1.1, 5.2",
             (req(b"POST / HTTP/1.1", fill(CL + b"Expect:\r\n 100-continue\r\n")), BODY + CANARY),
             REJECT + BODY_READ, note="obs-fold: reject, or replace by SP"),
        Case("cl-body-after-pause", S, "6.3", (req(b"POST / HTTP/1.1", fill(CL)), BODY + CANARY), BODY_READ,
             note="headers, a pause, then the body (a 0.CL desync answers before the body and reads it as a request)"),
        Case("cl-body-split", S, "6.3", (req(b"POST / HTTP/1.1", fill(CL)) + BODY[:10], BODY[10:] + CANARY),
             BODY_READ),
        Case("chunk-split-size", S, "7.1", (req(b"POST / HTTP/1.1", CHUNKED) + X[:1],
                                            X[1:] + fill(b"\r\n{d}\r\n0\r\n\r\n") + CANARY), BODY_READ),
        # ------------------------------------------------------------------ Host (3.2, 9110 7.2)
        Case("host-missing", O, "3.2", b"GET / HTTP/1.1\r\n\r\n", REJECT, CLOSED,
             note="a server MUST answer 400 to an HTTP/1.1 request without Host"),
        Case("host-twice", O, "3.2", req(b"GET / HTTP/1.1", HOST), REJECT, CLOSED,
             note="a server MUST answer 400 to more than one Host field line"),
        Case("host-invalid", O, "3.2, 9110 7.2", req(b"GET / HTTP/1.1", b"Host: a b/c\r\n", host=False), REJECT,
             CLOSED),
        Case("host-empty", O, "3.2, 9110 7.2", req(b"GET / HTTP/1.1", b"Host:\r\n", host=False), HELLO, REJECT),
        Case("host-reg-name", O, "9110 7.2, 3986 3.2.2",
             req(b"GET / HTTP/1.1", b"Host: 0.0.0.0=5000\r\n", host=False), HELLO,
             note="a valid reg-name: sub-delims (=) are allowed in a host"),
        Case("host-with-port", O, "3.2", req(b"GET / HTTP/1.1", b"Host: 127.0.0.1:8080\r\n", host=False), HELLO),
    ]


CASES: tuple[Case, ...] = tuple(_cases())
BY_ID: dict[str, Case] = {case.id: case for case in CASES}
assert len(BY_ID) == len(CASES), "case ids are unique"
