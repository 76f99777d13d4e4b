"""The HTTP/1.1 conformance cases, as data: raw request bytes in, the answers RFC 9112 / 9110 allow.

Written from the RFCs' text (section numbers below are RFC 9112's unless marked 9110). Each Case is
sent alone on a fresh connection, our side shut down once the expected answers are in (a server
waiting for more bytes sees EOF). An answer is the sequence of response statuses on that connection;
`ok` lists the sequences the RFC requires (pass), `lenient` those it permits a lenient recipient
(lenient-allowed); anything else fails, and so do a malformed response, a connection neither
answered nor closed within the deadline, and a server that no longer answers GET / afterwards.

Patterns: "400 404" is two responses in that order; "4xx" any 4xx; "" the connection closed with no
response at all. The apps answer GET / and GET /json 200, an unknown path 404 and POST / 405 (the
route contract), so a request that carries a body is a POST / (405) followed, in the same write, by
a canary `GET /nope` (404): a second answer 404 shows where the server thinks the body ended.

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
CANARY = b"GET /nope HTTP/1.1\r\n" + HOST + b"\r\n"

# Sequences used over and over.
REJECT = ("4xx",)  # the RFC's 400 (or a more specific 4xx: 413, 414, 431)
REJECT_OR_NOT_IMPLEMENTED = ("4xx", "501")
REJECT_OR_VERSION = ("4xx", "505")
CLOSED = ("",)  # closed without an answer: a server may always close (RFC 9112 9.6), but says nothing why
BODY_READ = ("405 404", "405")  # the body consumed, the canary answered (or the connection closed after)
HELLO = ("200",)


@dataclass(frozen=True)
class Case:
    id: str
    cls: str
    rfc: str  # section(s) the expectation comes from
    request: bytes
    ok: tuple[str, ...]
    lenient: tuple[str, ...] = ()
    note: str = ""

    @property
    def answers_expected(self) -> int:
        """How many responses to wait for before our side shuts down (the most any ok sequence has)."""
        return max([len(p.split()) for p in self.ok + self.lenient] + [1])


def req(line: bytes, headers: bytes = b"", body: bytes = b"", host: bool = True) -> bytes:
    return line + b"\r\n" + (HOST if host else b"") + headers + b"\r\n" + body


def post(headers: bytes, body: bytes, line: bytes = b"POST / HTTP/1.1") -> bytes:
    """A POST / with these framing headers and body, followed by the canary request."""
    return req(line, headers, body) + CANARY


CHUNKED = b"Transfer-Encoding: chunked\r\n"
HELLO_CHUNKS = b"5\r\nhello\r\n0\r\n\r\n"


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
        Case("authority-form-get", O, "3.2.3", req(b"GET 127.0.0.1:80 HTTP/1.1"), REJECT, CLOSED + ("404",),
             note="the authority-form is only used for CONNECT"),
        Case("connect", O, "3.2.3, 9110 9.3.6", req(b"CONNECT 127.0.0.1:443 HTTP/1.1"),
             ("4xx", "501"), CLOSED, note="an origin server that is no proxy refuses CONNECT"),
        Case("connect-ipv6", O, "3.2.3, 9110 9.3.6", req(b"CONNECT [::1]:443 HTTP/1.1"), ("4xx", "501"), CLOSED),
        Case("asterisk-options", O, "3.2.4, 9110 9.3.7", req(b"OPTIONS * HTTP/1.1"),
             ("2xx", "4xx", "501"), CLOSED),
        Case("asterisk-get", O, "3.2.4", req(b"GET * HTTP/1.1"), REJECT, CLOSED,
             note="the asterisk-form is only used for OPTIONS: GET * is not GET /"),
        Case("http10", O, "2.3, 9110 6.2", b"GET / HTTP/1.0\r\n\r\n", HELLO),
        Case("http12-minor", O, "2.3, 9110 6.2", req(b"GET / HTTP/1.2"), HELLO, ("505", "4xx"),
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
        Case("space-before-colon-cl", S, "5.1", post(b"Content-Length : 5\r\n", b"hello"), REJECT, CLOSED),
        Case("tab-before-colon-te", S, "5.1", post(b"Transfer-Encoding\t: chunked\r\n", HELLO_CHUNKS),
             REJECT, CLOSED),
        Case("obs-fold", O, "5.2", req(b"GET / HTTP/1.1", b"X-A: a\r\n b\r\n"), REJECT + HELLO,
             note="reject with 400, or replace the fold with SP"),
        Case("obs-fold-te", S, "5.2", post(b"Transfer-Encoding:\r\n chunked\r\n", HELLO_CHUNKS),
             REJECT + BODY_READ),
        Case("whitespace-before-first-field", S, "2.2",
             b"GET / HTTP/1.1\r\n Content-Length: %d\r\n" % len(CANARY) + HOST + b"\r\n" + CANARY,
             REJECT + ("200 404",), CLOSED + ("200",),
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
        Case("line-without-colon-te", S, "5.1", post(b"Transfer-Encoding chunked\r\nContent-Length: 5\r\n",
                                                      b"hello"), REJECT, CLOSED + BODY_READ),
        # ------------------------------------------------------------------ Content-Length (6.3, 9110 8.6)
        Case("cl-valid", S, "6.3", post(b"Content-Length: 5\r\n", b"hello"), BODY_READ),
        Case("cl-no-ows", S, "6.3", post(b"Content-Length:5\r\n", b"hello"), BODY_READ),
        Case("cl-trailing-ows", S, "5.1", post(b"Content-Length: 5 \t\r\n", b"hello"), BODY_READ),
        Case("cl-leading-zeros", S, "9110 8.6", post(b"Content-Length: 005\r\n", b"hello"), BODY_READ, REJECT),
        Case("cl-zero-get", S, "6.3", req(b"GET / HTTP/1.1", b"Content-Length: 0\r\n") + CANARY, ("200 404", "200")),
        Case("cl-get-with-body", S, "6.3, 9110 9.3.1", req(b"GET / HTTP/1.1", b"Content-Length: 5\r\n", b"hello")
             + CANARY, ("200 404", "200"), REJECT, note="a GET body has no meaning, but its length still frames it"),
        Case("cl-list-same", S, "9110 8.6", post(b"Content-Length: 5, 5\r\n", b"hello"), REJECT,
             CLOSED + BODY_READ, note="reject, or replace a list of one repeated value by that value"),
        Case("cl-duplicate-same", S, "9110 8.6", post(b"Content-Length: 5\r\nContent-Length: 5\r\n", b"hello"),
             REJECT, CLOSED + BODY_READ),
        Case("cl-list-differ", S, "6.3", post(b"Content-Length: 5, 6\r\n", b"hello"), REJECT, CLOSED,
             note="an invalid Content-Length: 400 and close"),
        Case("cl-duplicate-differ", S, "6.3", post(b"Content-Length: 5\r\nContent-Length: 6\r\n", b"hello"),
             REJECT, CLOSED),
        Case("cl-plus-sign", S, "6.3, 9110 8.6", post(b"Content-Length: +5\r\n", b"hello"), REJECT, CLOSED),
        Case("cl-negative", S, "6.3, 9110 8.6", post(b"Content-Length: -5\r\n", b"hello"), REJECT, CLOSED),
        Case("cl-hex", S, "6.3, 9110 8.6", post(b"Content-Length: 0x5\r\n", b"hello"), REJECT, CLOSED),
        Case("cl-underscore", S, "6.3, 9110 8.6", post(b"Content-Length: 0_5\r\n", b"hello"), REJECT, CLOSED,
             note="Python's int() reads 0_5 as 5"),
        Case("cl-non-ascii-digit", S, "6.3, 9110 8.6", post("Content-Length: \u0665\r\n".encode(), b"hello"),
             REJECT, CLOSED, note="an Arabic-Indic five: str.isdigit() and int() accept it"),
        Case("cl-inner-space", S, "6.3, 9110 8.6", post(b"Content-Length: 1 5\r\n", b"hello"), REJECT, CLOSED),
        Case("cl-empty", S, "6.3, 9110 8.6", post(b"Content-Length:\r\n", b"hello"), REJECT, CLOSED),
        Case("cl-huge", S, "6.3, 9110 8.6", post(b"Content-Length: 99999999999999999999999\r\n", b"hello"),
             REJECT, CLOSED + ("405",), note="larger than any integer the server holds: 400 or 413"),
        Case("cl-short-body-eof", O, "6.3, 8", req(b"POST / HTTP/1.1", b"Content-Length: 10\r\n", b"abc"),
             REJECT + CLOSED + ("405",), note="incomplete: answer or close, never hang"),
        Case("cl-and-te", S, "6.1, 6.3", post(b"Content-Length: 3\r\n" + CHUNKED, HELLO_CHUNKS),
             REJECT + ("405",), CLOSED,
             note="reject, or frame by Transfer-Encoding alone; either way the server MUST close after"),
        Case("te-and-cl", S, "6.1, 6.3", post(CHUNKED + b"Content-Length: 3\r\n", HELLO_CHUNKS),
             REJECT + ("405",), CLOSED),
        # ------------------------------------------------------------------ Transfer-Encoding (6.1, 7)
        Case("te-chunked", S, "7.1", post(CHUNKED, HELLO_CHUNKS), BODY_READ),
        Case("te-chunked-upper-case", S, "7, 9110 8.4", post(b"Transfer-Encoding: CHUNKED\r\n", HELLO_CHUNKS),
             BODY_READ, REJECT, note="transfer coding names are case-insensitive"),
        Case("te-tab-ows", S, "5.1", post(b"Transfer-Encoding:\tchunked\r\n", HELLO_CHUNKS), BODY_READ),
        Case("te-http10", S, "6.1", post(CHUNKED, HELLO_CHUNKS, line=b"POST / HTTP/1.0"), REJECT + ("405",),
             CLOSED, note="Transfer-Encoding in HTTP/1.0: faulty framing, close after processing"),
        Case("te-chunked-twice", S, "6.1, 7", post(b"Transfer-Encoding: chunked, chunked\r\n", HELLO_CHUNKS),
             REJECT_OR_NOT_IMPLEMENTED, CLOSED + BODY_READ,
             note="chunked MUST NOT be applied more than once; the final coding is chunked, so framing the "
                  "body by it once frames it as the RFC does (the content is then wrong, not the framing)"),
        Case("te-two-lines", S, "6.1, 7, 9110 5.3",
             post(CHUNKED + CHUNKED, HELLO_CHUNKS), REJECT_OR_NOT_IMPLEMENTED, CLOSED + BODY_READ,
             note="two field lines are one list: chunked, chunked"),
        Case("te-chunked-not-final", S, "6.1, 6.3", post(b"Transfer-Encoding: chunked, gzip\r\n", HELLO_CHUNKS),
             REJECT_OR_NOT_IMPLEMENTED, CLOSED, note="chunked not final: 400 and close"),
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
        Case("chunk-ext-token", S, "7.1.1", post(CHUNKED, b"5;a=b\r\nhello\r\n0\r\n\r\n"), BODY_READ),
        Case("chunk-ext-quoted", S, "7.1.1", post(CHUNKED, b'5;a="b c;d"\r\nhello\r\n0\r\n\r\n'), BODY_READ,
             note="chunk-ext-val = token / quoted-string"),
        Case("chunk-ext-name-only", S, "7.1.1", post(CHUNKED, b"5;a\r\nhello\r\n0\r\n\r\n"), BODY_READ),
        Case("chunk-ext-bws", S, "7.1.1", post(CHUNKED, b"5 ; a = b\r\nhello\r\n0\r\n\r\n"), BODY_READ, REJECT),
        Case("chunk-ext-bare-lf", S, "7.1.1, 2.2", post(CHUNKED, b"5;a\nb\r\nhello\r\n0\r\n\r\n"), REJECT,
             CLOSED, note="an extension is no place for a LF: a proxy may end the line there"),
        Case("chunk-ext-bare-cr", S, "7.1.1, 2.2", post(CHUNKED, b"5;a\rb\r\nhello\r\n0\r\n\r\n"), REJECT,
             CLOSED),
        Case("chunk-size-upper-hex", S, "7.1", post(CHUNKED, b"A\r\n0123456789\r\n0\r\n\r\n"), BODY_READ),
        Case("chunk-size-0x", S, "7.1", post(CHUNKED, b"0x5\r\nhello\r\n0\r\n\r\n"), REJECT, CLOSED),
        Case("chunk-size-plus", S, "7.1", post(CHUNKED, b"+5\r\nhello\r\n0\r\n\r\n"), REJECT, CLOSED),
        Case("chunk-size-negative", S, "7.1", post(CHUNKED, b"-5\r\nhello\r\n0\r\n\r\n"), REJECT, CLOSED),
        Case("chunk-size-underscore", S, "7.1", post(CHUNKED, b"0_5\r\nhello\r\n0\r\n\r\n"), REJECT, CLOSED,
             note="Python's int(s, 16) reads 0_5 as 5"),
        Case("chunk-size-leading-space", S, "7.1", post(CHUNKED, b" 5\r\nhello\r\n0\r\n\r\n"), REJECT, CLOSED),
        Case("chunk-size-trailing-space", S, "7.1", post(CHUNKED, b"5 \r\nhello\r\n0\r\n\r\n"), REJECT,
             CLOSED + BODY_READ, note="not in the grammar, but BWS is allowed before an extension's ';'"),
        Case("chunk-size-overflow", S, "7.1", post(CHUNKED, b"fffffffffffffffff5\r\nhello\r\n0\r\n\r\n"),
             REJECT, CLOSED, note="a recipient MUST anticipate large sizes and prevent integer overflow"),
        Case("chunk-size-missing", S, "7.1", post(CHUNKED, b"\r\nhello\r\n0\r\n\r\n"), REJECT, CLOSED),
        Case("chunk-data-too-long", S, "7.1", post(CHUNKED, b"5\r\nhelloXX\r\n0\r\n\r\n"), REJECT, CLOSED),
        Case("chunk-data-lf-only", S, "7.1, 2.2", post(CHUNKED, b"5\r\nhello\n0\r\n\r\n"), REJECT,
             CLOSED + BODY_READ, note="CRLF after chunk-data; a lenient LF is a known smuggling vector"),
        Case("chunk-size-not-hex-eof", O, "7.1", req(b"POST / HTTP/1.1", CHUNKED, b"zz\r\n"), REJECT + CLOSED,
             note="an invalid size, then EOF: answer or close, never hang"),
        Case("chunk-cut-eof", O, "7.1", req(b"POST / HTTP/1.1", CHUNKED, b"5\r\nhello\r\n"), REJECT + CLOSED,
             ("405",), note="no last chunk, then EOF"),
        Case("chunk-last-ext", S, "7.1.1", post(CHUNKED, b"5\r\nhello\r\n0;a=b\r\n\r\n"), BODY_READ),
        Case("trailer-field", S, "7.1.2", post(CHUNKED, b"5\r\nhello\r\n0\r\nX-T: v\r\n\r\n"), BODY_READ),
        Case("trailer-content-length", S, "7.1.2, 9110 6.5.1",
             post(CHUNKED, b"5\r\nhello\r\n0\r\nContent-Length: 40\r\n\r\n"), BODY_READ + REJECT,
             note="a trailer field cannot change the framing"),
        Case("trailer-invalid-name", S, "7.1.2, 5.1",
             post(CHUNKED, b"5\r\nhello\r\n0\r\nX T: v\r\n\r\n"), REJECT, CLOSED + BODY_READ,
             note="trailer fields may be discarded, but the line is still a field line"),
        # ------------------------------------------------------------------ limits (9110 15.5, 3)
        Case("target-64k", O, "3, 9110 15.5.15", req(b"GET /" + b"a" * big + b" HTTP/1.1"), REJECT,
             CLOSED + ("404",), note="414 beyond the server's limit; a server that takes it answers 404"),
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
             req(b"GET / HTTP/1.1") + post(b"Content-Length: 5\r\n", b"hello"), ("200 405 404", "200 405", "200"),
             ),
        Case("connection-close-then-more", O, "9.6", req(b"GET / HTTP/1.1", b"Connection: close\r\n") + CANARY,
             HELLO, note="a server MUST NOT process requests after one with Connection: close"),
        Case("http10-then-more", O, "9.3", b"GET / HTTP/1.0\r\n\r\n" + CANARY, HELLO, ("200 404",),
             note="HTTP/1.0 without keep-alive: the connection closes after the response"),
        Case("expect-100", S, "9110 10.1.1",
             post(b"Content-Length: 5\r\nExpect: 100-continue\r\n", b"hello"), BODY_READ),
        # ------------------------------------------------------------------ Host (3.2, 9110 7.2)
        Case("host-missing", O, "3.2", b"GET / HTTP/1.1\r\n\r\n", REJECT, CLOSED,
             note="a server MUST answer 400 to an HTTP/1.1 request without Host"),
        Case("host-twice", O, "3.2", req(b"GET / HTTP/1.1", HOST), REJECT, CLOSED,
             note="a server MUST answer 400 to more than one Host field line"),
        Case("host-invalid", O, "3.2, 9110 7.2", req(b"GET / HTTP/1.1", b"Host: a b/c\r\n", host=False), REJECT,
             CLOSED),
        Case("host-empty", O, "3.2, 9110 7.2", req(b"GET / HTTP/1.1", b"Host:\r\n", host=False), HELLO, REJECT),
        Case("host-with-port", O, "3.2", req(b"GET / HTTP/1.1", b"Host: 127.0.0.1:8080\r\n", host=False), HELLO),
    ]


CASES: tuple[Case, ...] = tuple(_cases())
BY_ID: dict[str, Case] = {case.id: case for case in CASES}
assert len(BY_ID) == len(CASES), "case ids are unique"
