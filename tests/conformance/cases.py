"""The HTTP/1.1 conformance cases, as data: request bytes written on one connection, with the RFC sections.

A case is a template rendered in two modes (render()):
- REFLECT, for a server's parser owner (its bare app, catalog.parser_owner): every target is a /reflect
  route, which answers with what the server handed the app (X-Reflect: method, version, the body it
  read, the target), so the judge sees how the server framed each request;
- CONTRACT, for a framework stack's app-sensitive cases: the route contract's targets (POST / answered
  405 by the app, its body unread; GET /json 200; GET /nope 404), so the judge sees what the server
  does with a body the app leaves unread, and the framework's own routing and Host rules.
Placeholders: {/} the route prefix (/reflect/ or /), {d} a body that is itself a request (GET {/}json),
{c} the canary that follows (GET {/}nope), {n} {x} {X} the body's length in decimal, hex and upper-case
hex (always with a letter in it), {d1} {d2} and {x1} {x2} the body and its hex length cut in two, {m}
the canary's length, {w} {wx} 2^64 + the body's length in decimal and hex (a parser that wraps modulo 2^64 frames the body "right"), {xl} the length of "{x}\r\n".

No case says what its answers must be: the reference parser (reference.py) frames the rendered bytes,
and the judge (verdict.py) compares the server's answers with that framing. A case only says what the
reference cannot: a refusal the RFC allows of this request (`may_refuse`), that the client ends its
side after writing (`eof`: an incomplete message, answer or close), that the app matters (`app`: it
runs on every framework stack in contract mode too), its class and its RFC sections.

Classes: "smuggling" for cases that decide where a message ends (Content-Length, Transfer-Encoding,
chunk syntax, line terminators and field syntax that can hide or forge a framing header, protocol
switches): a server that frames one of these otherwise than a front is a request-smuggling risk.
"other" for the rest (request-line forms and versions, limits, Host, pipelining order).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

SMUGGLING = "smuggling"
OTHER = "other"
CLASSES = (SMUGGLING, OTHER)

REFLECT, CONTRACT = "reflect", "contract"
MODES = (REFLECT, CONTRACT)
PREFIX = {REFLECT: b"/reflect/", CONTRACT: b"/"}
HOST = b"Host: 127.0.0.1\r\n"
BODY_SIZE = 0x3d  # the body request's length in both modes (padded): 61, hex 3d (a letter in it)
WRAP = 2 ** 64


def body(mode: str) -> bytes:
    """A request to a route of its own (GET {/}json), padded to BODY_SIZE: a body read as a request shows."""
    head = b"GET " + PREFIX[mode] + b"json HTTP/1.1\r\n" + HOST + b"X-B: "
    return head + b"b" * (BODY_SIZE - len(head) - 4) + b"\r\n\r\n"


def canary(mode: str) -> bytes:
    return b"GET " + PREFIX[mode] + b"nope HTTP/1.1\r\n" + HOST + b"\r\n"


def probe(mode: str) -> bytes:
    """Written after the answers: EOF (closed) or an answer (kept), and what it reflects. In contract mode
    GET / (200, Hello, World!): no other request of a case gets that answer after the probe is written."""
    return b"GET " + (b"/reflect/probe" if mode == REFLECT else b"/") + b" HTTP/1.1\r\n" + HOST + b"\r\n"


@dataclass(frozen=True)
class Case:
    id: str
    cls: str
    rfc: str  # the sections its framing and its refusals come from (RFC 9112's unless marked)
    template: bytes | tuple[bytes, ...]  # a tuple: parts written apart, a pause between them
    note: str = ""
    may_refuse: str = ""  # why the RFC lets a server refuse its first request, where the reference cannot tell
    eof: bool = False  # the client ends its side after writing: no probe
    app: bool = False  # app-sensitive: runs in contract mode on every framework stack too
    leniencies: tuple[str, ...] = ()  # lenient options worth trying (default: every one)
    _cache: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def parts_template(self) -> tuple[bytes, ...]:
        return self.template if isinstance(self.template, tuple) else (self.template,)

    def parts(self, mode: str) -> tuple[bytes, ...]:
        if mode not in self._cache:
            self._cache[mode] = tuple(render(part, mode) for part in self.parts_template)
        return self._cache[mode]

    def request(self, mode: str) -> bytes:
        return b"".join(self.parts(mode))

    def digest(self) -> str:
        """What the records' hashes take of this case: its bytes in both modes and what the reference needs."""
        text = repr((self.id, self.cls, self.rfc, self.may_refuse, self.eof, self.app, self.leniencies,
                     [self.request(mode) for mode in MODES]))
        return hashlib.sha256(text.encode("latin-1", "backslashreplace")).hexdigest()


def render(template: bytes, mode: str) -> bytes:
    d = body(mode)
    n, x = len(d), b"%x" % len(d)
    values = {b"{n}": b"%d" % n, b"{x}": x, b"{X}": x.upper(), b"{xl}": b"%d" % (len(x) + 2),
              b"{w}": b"%d" % (WRAP + n), b"{wx}": b"%x" % (WRAP + n), b"{m}": b"%d" % len(canary(mode)),
              b"{x1}": x[:1], b"{x2}": x[1:], b"{d1}": d[:10], b"{d2}": d[10:], b"{d}": d, b"{c}": canary(mode),
              b"{/}": PREFIX[mode]}
    for key, value in values.items():
        template = template.replace(key, value)
    return template


def req(line: bytes, headers: bytes = b"", body_: bytes = b"", host: bool = True) -> bytes:
    return line + b"\r\n" + (HOST if host else b"") + headers + b"\r\n" + body_


def post(headers: bytes, body_: bytes = b"{d}", line: bytes = b"POST {/} HTTP/1.1") -> bytes:
    """A POST with these framing headers and body, then the canary request."""
    return req(line, headers, body_) + b"{c}"


GET = b"GET {/} HTTP/1.1"
CHUNKED = b"Transfer-Encoding: chunked\r\n"
CHUNKS = b"{x}\r\n{d}\r\n0\r\n\r\n"
CL = b"Content-Length: {n}\r\n"
BIG = 64 * 1024


def _cases() -> list[Case]:
    S, O = SMUGGLING, OTHER
    return [
        # ------------------------------------------------------------------ request line (3, 3.2, 2.3)
        Case("origin-form", O, "3.2.1", req(GET)),
        Case("origin-form-query", O, "3.2.1", req(b"GET {/}?a=b&c HTTP/1.1"), app=True),
        Case("absolute-form", O, "3.2.2", req(b"GET http://127.0.0.1{/} HTTP/1.1"), app=True,
             note="a server MUST accept the absolute-form in requests"),
        Case("absolute-form-other-host", O, "3.2.2, 9110 7.4", req(b"GET http://example.com{/} HTTP/1.1"), app=True,
             may_refuse="421 Misdirected Request: the target's authority is not this server (RFC 9110 15.5.20)",
             note="the target's authority wins over Host"),
        Case("authority-form-get", O, "3.2.3", req(b"GET 127.0.0.1:80 HTTP/1.1"), app=True,
             note="the authority-form is only used for CONNECT"),
        Case("connect", O, "3.2.3, 9110 9.3.6", req(b"CONNECT 127.0.0.1:443 HTTP/1.1"), app=True,
             note="an origin server that is no proxy refuses CONNECT"),
        Case("connect-ipv6", O, "3.2.3, 9110 9.3.6", req(b"CONNECT [::1]:443 HTTP/1.1"), app=True),
        Case("asterisk-options", O, "3.2.4, 9110 9.3.7", req(b"OPTIONS * HTTP/1.1"), app=True,
             may_refuse="a server may refuse OPTIONS (501 for a method it does not implement)"),
        Case("asterisk-get", O, "3.2.4", req(b"GET * HTTP/1.1"), app=True,
             note="the asterisk-form is only used for OPTIONS: GET * is not GET /"),
        Case("http10", O, "2.3, 9110 6.2", b"GET {/} HTTP/1.0\r\n\r\n", app=True),
        Case("http12-minor", O, "2.3, 9110 6.2", req(b"GET {/} HTTP/1.2"), app=True,
             note="a higher minor version is processed as the highest one the recipient speaks"),
        Case("version-20", O, "2.3, 9110 15.6.6", req(b"GET {/} HTTP/2.0")),
        Case("version-lower-case", O, "2.3", req(b"GET {/} http/1.1"), note="HTTP-name is case-sensitive"),
        Case("version-two-digits", O, "2.3", req(b"GET {/} HTTP/1.10")),
        Case("version-111", O, "2.3", req(b"GET {/} HTTP/111")),
        Case("version-ftp", O, "2.3", req(b"GET {/} FTP/1.1")),
        Case("version-missing", O, "2.3, 3", b"GET {/}\r\n\r\n",
             note="HTTP/0.9 is not HTTP/1.1: no status line can answer it"),
        Case("method-lower-case", O, "3.1, 9110 9.1", req(b"get {/} HTTP/1.1"), app=True,
             may_refuse="an unknown method: 501 or the app's 405",
             note="methods are case-sensitive: get is an unknown method, not GET"),
        Case("method-unknown", O, "3.1, 9110 9.1", req(b"FOO {/} HTTP/1.1"), app=True,
             may_refuse="an unknown method: 501 or the app's 405"),
        Case("method-not-token", O, "3.1", req(b"G@T {/} HTTP/1.1"), app=True),
        Case("request-line-double-space", O, "3", req(b"GET  {/} HTTP/1.1"),
             note="recipients MAY parse on whitespace word boundaries"),
        Case("request-line-tabs", O, "3", req(b"GET\t{/}\tHTTP/1.1")),
        Case("request-line-trailing-space", O, "3", req(b"GET {/} HTTP/1.1 ")),
        Case("target-with-space", O, "3, 3.2", req(b"GET {/}a b HTTP/1.1")),
        Case("target-nul", O, "3.2", req(b"GET {/}\x00 HTTP/1.1")),
        Case("leading-empty-line", O, "2.2", b"\r\n" + req(GET),
             may_refuse="a server SHOULD (not MUST) ignore an empty line before the request line",
             note="a server SHOULD ignore at least one empty line before the request-line"),
        Case("lf-line-endings", O, "2.2", b"GET {/} HTTP/1.1\nHost: 127.0.0.1\n\n",
             note="a recipient MAY recognize a single LF as a line terminator"),
        Case("bare-cr-request-line", S, "2.2", b"GET {/} HTTP/1.1\rHost: 127.0.0.1\r\n\r\n",
             note="a bare CR is invalid or replaced by SP: never a line terminator"),
        Case("lf-in-request-line", S, "2.2, 3", b"GET {/}\nHTTP/1.1\r\n" + HOST + b"\r\n{c}",
             note="a bare LF before the version: a line end (an HTTP/0.9 line, invalid) or invalid; a parser "
                  "that takes it for a space frames a request no other parser sees"),
        Case("head-ends-cr-x", S, "2.2", b"GET {/} HTTP/1.1\r\n" + HOST + b"\rX{c}",
             note="a head ended by CRLF CR X: a parser that takes CR and any byte for a line end ends the head "
                  "there, and serves the canary as the next request"),
        # ------------------------------------------------------------------ field syntax (5, 9110 5.5)
        Case("space-before-colon", O, "5.1", req(GET, b"X-A : b\r\n"),
             note="a server MUST reject whitespace between a field name and colon with 400"),
        Case("space-before-colon-cl", S, "5.1", post(b"Content-Length : {n}\r\n")),
        Case("tab-before-colon-te", S, "5.1", post(b"Transfer-Encoding\t: chunked\r\n", CHUNKS)),
        Case("obs-fold", O, "5.2", req(GET, b"X-A: a\r\n b\r\n"), note="reject with 400, or replace the fold with SP"),
        Case("obs-fold-te", S, "5.2", post(b"Transfer-Encoding:\r\n chunked\r\n", CHUNKS)),
        Case("obs-fold-cl", S, "5.2", post(b"X-A: a\r\n Content-Length: {n}\r\n"),
             note="unfolded, the Content-Length is part of X-A's value: the body is the next request; a parser "
                  "that takes the folded line for a field of its own reads it as the body"),
        Case("whitespace-before-first-field", S, "2.2", b"GET {/} HTTP/1.1\r\n Content-Length: {m}\r\n"
             + HOST + b"\r\n{c}", note="reject, or consume each whitespace-preceded line without processing it"),
        Case("bare-lf-in-value-cl", S, "2.2, 9110 5.5", req(GET, b"X-A: a\nContent-Length: {m}\r\n") + b"{c}",
             note="a LF is a line terminator (the Content-Length counts, the canary is body) or replaced by SP "
                  "(the canary is a request): both allowed, and a front that took the other reading smuggles"),
        Case("bare-cr-in-value-cl", S, "2.2, 9110 5.5", req(GET, b"X-A: a\rContent-Length: {m}\r\n") + b"{c}",
             note="a bare CR is invalid or replaced by SP, never a line terminator"),
        Case("nul-in-value", O, "9110 5.5", req(GET, b"X-A: a\x00b\r\n"), note="reject, or replace NUL with SP"),
        Case("ctl-in-value", O, "9110 5.5", req(GET, b"X-A: a\x01b\r\n"),
             note="other CTLs are invalid; recipients MAY retain them"),
        Case("del-in-value", O, "9110 5.5", req(GET, b"X-A: a\x7fb\r\n")),
        Case("obs-text-in-value", O, "9110 5.5", req(GET, b"X-A: caf\xe9\r\n")),
        Case("value-surrounding-ows", O, "5.1", req(GET, b"X-A: \t b \t\r\n")),
        Case("empty-value", O, "5.1", req(GET, b"X-A:\r\n")),
        Case("name-with-space", O, "5.1, 9110 5.1", req(GET, b"X A: b\r\n")),
        Case("name-with-paren", O, "9110 5.1", req(GET, b"X(A): b\r\n")),
        Case("name-with-nul", O, "9110 5.1", req(GET, b"X\x00A: b\r\n")),
        Case("name-non-ascii", O, "9110 5.1", req(GET, "X-\u00c4: b\r\n".encode())),
        Case("name-empty", O, "5.1", req(GET, b": b\r\n")),
        Case("line-without-colon", O, "5.1", req(GET, b"X-A b\r\n")),
        Case("line-without-colon-te", S, "5.1", post(b"Transfer-Encoding chunked\r\n" + CL)),
        Case("underscore-cl", S, "9110 5.1, 3875 4.1.18", post(b"Content_Length: {n}\r\n"),
             note="Content_Length is a field of its own (no framing): the body is the next request; a WSGI "
                  "environ turns both names into HTTP_CONTENT_LENGTH"),
        Case("underscore-cl-collides", S, "9110 5.1, 3875 4.1.18", post(b"Content-Length: 0\r\nContent_Length: {n}\r\n"),
             note="the real Content-Length is 0: the body is the next request, whatever Content_Length says"),
        Case("underscore-te", S, "9110 5.1, 3875 4.1.18", post(b"Transfer_Encoding: chunked\r\n" + CL),
             note="Transfer_Encoding is no framing field: the body is framed by Content-Length"),
        # ------------------------------------------------------------------ Content-Length (6.3, 9110 8.6)
        Case("cl-valid", S, "6.3", post(CL), app=True),
        Case("cl-no-ows", S, "6.3", post(b"Content-Length:{n}\r\n")),
        Case("cl-trailing-ows", S, "5.1", post(b"Content-Length: {n} \t\r\n")),
        Case("cl-leading-zeros", S, "9110 8.6", post(b"Content-Length: 00{n}\r\n")),
        Case("cl-20-digits", S, "9110 8.6", post(b"Content-Length: 0000000000000000000{n}\r\n"),
             note="1*DIGIT: 21 digits of leading zeros and the body's length still frame the body"),
        Case("cl-zero-get", S, "6.3", req(GET, b"Content-Length: 0\r\n") + b"{c}"),
        Case("cl-get-with-body", S, "6.3, 9110 9.3.1", req(GET, CL, b"{d}") + b"{c}", app=True,
             note="a GET body has no meaning, but its length still frames it"),
        Case("cl-body-no-crlf", S, "6.3", req(b"POST {/} HTTP/1.1", b"Content-Length: 16\r\n", b"abcdefghijklmnop")
             + req(b"GET {/}json HTTP/1.1"), app=True,
             note="a body that ends in no CRLF, then GET {/}json: a drain short or long by any count glues bytes to "
                  "the next request line (`pGET`, `ET`), which no longer asks for {/}json; a body ending in CRLF "
                  "CRLF hides a drain 2 or 4 short (the leftover is skipped as empty lines)"),
        Case("cl0-unknown-route", S, "6.3", req(b"POST {/}nope HTTP/1.1", CL, b"{d}") + b"{c}", app=True,
             note="CL.0: a request answered without reading its body (an unknown route's 404): the body must "
                  "still be consumed, never read as the next request"),
        Case("cl-1m-unread", S, "6.3", req(b"POST {/} HTTP/1.1", b"Content-Length: 1048576\r\n",
                                           b"a" * (1024 * 1024)) + req(b"GET {/}json HTTP/1.1"), app=True,
             note="a 1 MiB body the app never reads, then GET {/}json: drained, or the connection closed; a server "
                  "that refuses it (413) and reads on must still drain it, else `aaa...GET {/}json` is no GET"),
        Case("head-with-body", S, "6.3, 9110 9.3.2", req(b"HEAD {/} HTTP/1.1", CL, b"{d}") + b"{c}", app=True,
             note="a HEAD body has no meaning, but its length frames it; the answer has no content"),
        Case("options-asterisk-body", S, "6.3, 3.2.4", req(b"OPTIONS * HTTP/1.1", CL, b"{d}") + b"{c}", app=True,
             may_refuse="a server may refuse OPTIONS (501 for a method it does not implement)",
             note="a server-wide OPTIONS with a body, which servers answer themselves"),
        Case("cl-list-same", S, "9110 8.6", post(b"Content-Length: {n}, {n}\r\n"),
             note="reject, or replace a list of one repeated value by that value"),
        Case("cl-list-same-no-ows", S, "9110 8.6", post(b"Content-Length: {n},{n}\r\n")),
        Case("cl-list-three", S, "9110 8.6", post(b"Content-Length: {n}, {n}, {n}\r\n")),
        Case("cl-duplicate-same", S, "9110 8.6", post(CL + CL)),
        Case("cl-list-differ", S, "6.3", post(b"Content-Length: {n}, 6\r\n"), note="invalid: 400 and close"),
        Case("cl-duplicate-differ", S, "6.3", post(CL + b"Content-Length: 6\r\n")),
        Case("cl-plus-sign", S, "6.3, 9110 8.6", post(b"Content-Length: +{n}\r\n")),
        Case("cl-negative", S, "6.3, 9110 8.6", post(b"Content-Length: -{n}\r\n")),
        Case("cl-hex", S, "6.3, 9110 8.6", post(b"Content-Length: 0x{x}\r\n")),
        Case("cl-underscore", S, "6.3, 9110 8.6", post(b"Content-Length: 0_{n}\r\n"),
             note="Python's int() reads 0_5 as 5"),
        Case("cl-non-ascii-digit", S, "6.3, 9110 8.6", post("Content-Length: \u0666\u0661\r\n".encode()),
             note="Arabic-Indic digits (61): str.isdigit() and int() accept them"),
        Case("cl-inner-space", S, "6.3, 9110 8.6", post(b"Content-Length: 1 {n}\r\n")),
        Case("cl-empty", S, "6.3, 9110 8.6", post(b"Content-Length:\r\n")),
        Case("cl-huge", S, "6.3, 9110 8.6", post(b"Content-Length: {w}\r\n"),
             note="2^64 + the body's length: 413, or wait for it; a parser that wraps frames the body by the rest"),
        Case("cl-short-body-eof", O, "6.3, 8", req(b"POST {/} HTTP/1.1", b"Content-Length: 10\r\n", b"abc"),
             eof=True, note="incomplete: answer or close, never hang, never hand the app a short body"),
        Case("cl-name-vtab", S, "5.1, 9110 5.1", post(b"Content-Length\x0b: {n}\r\n"),
             note="VT before the colon: no token, refused; Python's str.strip() trims it, and the name is "
                  "Content-Length"),
        Case("cl-nul", S, "6.3, 9110 5.5, 8.6", post(b"Content-Length: {n}\x00\r\n"),
             note="a NUL after the length: invalid, or replaced by SP (then 61 followed by a space: still no "
                  "1*DIGIT); a C parser stops at it"),
        Case("connection-content-length", S, "9110 7.6.1, 6.3", post(CL + b"Connection: Content-Length\r\n"),
             note="Content-Length named as hop-by-hop: a front that honours Connection drops it before forwarding; "
                  "the origin still frames by it (its Connection options are for proxies)"),
        Case("cl0-after-414", S, "6.3, 9110 15.5.15", req(b"POST {/}" + b"a" * BIG + b" HTTP/1.1", CL, b"{d}") + b"{c}",
             note="a target too long (414): a server that refuses it and reads on must still skip the body, else "
                  "the body is the next request (CL.0)"),
        Case("cl0-after-431", S, "6.3, 9110 15.5.20", req(b"POST {/} HTTP/1.1", b"X-Big: " + b"v" * BIG + b"\r\n" + CL,
                                                          b"{d}") + b"{c}",
             note="a head too large (431): a server that refuses it and reads on must still skip the body"),
        Case("cl-and-te", S, "6.1, 6.3", post(b"Content-Length: 3\r\n" + CHUNKED, CHUNKS),
             note="reject, or frame by Transfer-Encoding alone; either way the server MUST close after"),
        Case("te-and-cl", S, "6.1, 6.3", post(CHUNKED + b"Content-Length: 3\r\n", CHUNKS)),
        # ------------------------------------------------------------------ Transfer-Encoding (6.1, 7)
        Case("te-chunked", S, "7.1", post(CHUNKED, CHUNKS), app=True),
        Case("te-chunked-upper-case", S, "7, 9110 8.4", post(b"Transfer-Encoding: CHUNKED\r\n", CHUNKS),
             note="transfer coding names are case-insensitive"),
        Case("te-tab-ows", S, "5.1", post(b"Transfer-Encoding:\tchunked\r\n", CHUNKS)),
        Case("te-empty-element-first", S, "9110 5.6.1", post(b"Transfer-Encoding: , chunked\r\n", CHUNKS),
             note="a recipient MUST accept empty list elements: the list is chunked"),
        Case("te-empty-element-last", S, "9110 5.6.1", post(b"Transfer-Encoding: chunked,\r\n", CHUNKS)),
        Case("te-http10", S, "6.1", post(CHUNKED, CHUNKS, line=b"POST {/} HTTP/1.0"),
             note="Transfer-Encoding in HTTP/1.0: faulty framing, close after processing"),
        Case("te-chunked-twice", S, "6.1, 7", post(b"Transfer-Encoding: chunked, chunked\r\n", CHUNKS),
             note="chunked MUST NOT be applied more than once"),
        Case("te-two-lines", S, "6.1, 7, 9110 5.3", post(CHUNKED + CHUNKED, CHUNKS),
             note="two field lines are one list: chunked, chunked"),
        Case("te-chunked-not-final", S, "6.1, 6.3", post(b"Transfer-Encoding: chunked, gzip\r\n", CHUNKS),
             note="chunked not final: 400 and close"),
        Case("te-gzip-chunked", S, "6.1, 7", post(b"Transfer-Encoding: gzip, chunked\r\n", CHUNKS),
             note="a coding the server does not know: SHOULD 501; chunked is final, so the framing holds"),
        Case("te-identity", S, "6.1, 7", post(b"Transfer-Encoding: identity\r\n", CHUNKS),
             note="identity is no longer a transfer coding, and chunked is not final"),
        Case("te-xchunked", S, "6.1", post(b"Transfer-Encoding: xchunked\r\n", CHUNKS)),
        Case("te-vtab", S, "5.1, 6.1", post(b"Transfer-Encoding: \x0bchunked\r\n", CHUNKS), note="VT is not OWS"),
        Case("te-empty", S, "6.1", post(b"Transfer-Encoding:\r\n", CHUNKS)),
        Case("te-http10-keepalive", S, "6.1, 9.3", post(b"Connection: keep-alive\r\n" + CHUNKED, CHUNKS,
                                                        line=b"POST {/} HTTP/1.0"),
             note="Transfer-Encoding in HTTP/1.0 is faulty framing: close after processing, keep-alive or not"),
        Case("te-cl-http10-keepalive", S, "6.1, 6.3, 9.3",
             post(b"Connection: keep-alive\r\n" + CHUNKED + b"Content-Length: {xl}\r\n", CHUNKS,
                  line=b"POST {/} HTTP/1.0"),
             note="the Content-Length covers the chunk-size line only: framed by it, the chunk data is a request"),
        Case("te-identity-chunked", S, "6.1, 7", post(b"Transfer-Encoding: identity, chunked\r\n", CHUNKS),
             note="identity is no transfer coding (any more): SHOULD 501; chunked is final, so framing by it holds"),
        Case("te-second-line-identity", S, "6.1, 9110 5.3", post(CHUNKED + b"Transfer-Encoding: identity\r\n", CHUNKS),
             note="two lines are one list, chunked, identity: chunked is not final, 400 and close"),
        Case("te-chunked-param", S, "7, 9110 10.1.4", post(b"Transfer-Encoding: chunked;x=y\r\n", CHUNKS),
             note="chunked defines no parameter: their presence SHOULD be treated as an error"),
        Case("te-quoted-chunked", S, "6.1, 9110 5.6.2", post(b'Transfer-Encoding: "chunked"\r\n', CHUNKS),
             note="a transfer-coding is a token, not a quoted-string"),
        Case("te-fs-chunked", S, "5.1, 6.1", post(b"Transfer-Encoding: \x1cchunked\r\n", CHUNKS),
             note="\\x1c is no OWS, but Python's str.strip() removes it"),
        Case("te-chunked-us", S, "5.1, 6.1", post(b"Transfer-Encoding: chunked\x1f\r\n", CHUNKS),
             note="\\x1f: str.strip() removes it"),
        Case("te-nbsp-chunked", S, "5.1, 6.1", post(b"Transfer-Encoding: \xa0chunked\r\n", CHUNKS),
             note="NBSP (latin-1 \\xa0): str.strip() removes it from the decoded value"),
        Case("te-chunked-nel", S, "5.1, 6.1", post(b"Transfer-Encoding: chunked\x85\r\n", CHUNKS),
             note="NEL (latin-1 \\x85): str.strip() removes it from the decoded value"),
        Case("te-name-long-s", S, "9110 5.1, 5.1", post("Tran\u017ffer-Encoding: chunked\r\n".encode(), CHUNKS),
             note="not a token; str.upper() makes TRANSFER-ENCODING of it (U+017F, long s)"),
        Case("te-name-dotless-i", S, "9110 5.1, 5.1", post("Transfer-Encod\u0131ng: chunked\r\n".encode(), CHUNKS),
             note="not a token; str.upper() makes TRANSFER-ENCODING of it (U+0131, dotless i)"),
        Case("cl-fs-prefix", S, "6.3, 9110 8.6", post(b"Content-Length: \x1c{n}\r\n"),
             note="Python's int() skips \\x1c as whitespace"),
        Case("cl-nbsp-prefix", S, "6.3, 9110 8.6", post(b"Content-Length: \xa0{n}\r\n"),
             note="Python's int() skips NBSP in the decoded value"),
        # ------------------------------------------------------------------ chunks (7.1)
        Case("chunk-ext-token", S, "7.1.1", post(CHUNKED, b"{x};a=b\r\n{d}\r\n0\r\n\r\n")),
        Case("chunk-ext-quoted", S, "7.1.1", post(CHUNKED, b'{x};a="b c;d"\r\n{d}\r\n0\r\n\r\n'),
             note="chunk-ext-val = token / quoted-string"),
        Case("chunk-ext-name-only", S, "7.1.1", post(CHUNKED, b"{x};a\r\n{d}\r\n0\r\n\r\n")),
        Case("chunk-ext-bws", S, "7.1.1", post(CHUNKED, b"{x} ; a = b\r\n{d}\r\n0\r\n\r\n")),
        Case("chunk-ext-bare-lf", S, "7.1.1, 2.2", post(CHUNKED, b"{x};a\nb\r\n{d}\r\n0\r\n\r\n"),
             note="an extension is no place for a LF: a proxy may end the line there"),
        Case("chunk-ext-bare-cr", S, "7.1.1, 2.2", post(CHUNKED, b"{x};a\rb\r\n{d}\r\n0\r\n\r\n")),
        Case("chunk-ext-cr-cr-x", S, "7.1.1, 2.2", post(CHUNKED, b"{x};a\r\rX\r\n{d}\r\n0\r\n\r\n"),
             note="CR CR X in an extension: a parser that takes CR and any byte for a line end starts the data at X"),
        Case("chunk-size-upper-hex", S, "7.1", post(CHUNKED, b"{X}\r\n{d}\r\n0\r\n\r\n")),
        Case("chunk-size-0x", S, "7.1", post(CHUNKED, b"0x{x}\r\n{d}\r\n0\r\n\r\n")),
        Case("chunk-size-plus", S, "7.1", post(CHUNKED, b"+{x}\r\n{d}\r\n0\r\n\r\n")),
        Case("chunk-size-negative", S, "7.1", post(CHUNKED, b"-{x}\r\n{d}\r\n0\r\n\r\n")),
        Case("chunk-size-underscore", S, "7.1", post(CHUNKED, b"0_{x}\r\n{d}\r\n0\r\n\r\n"),
             note="Python's int(s, 16) reads 0_5 as 5"),
        Case("chunk-size-leading-space", S, "7.1", post(CHUNKED, b" {x}\r\n{d}\r\n0\r\n\r\n")),
        Case("chunk-size-trailing-space", S, "7.1", post(CHUNKED, b"{x} \r\n{d}\r\n0\r\n\r\n"),
             note="not in the grammar, but BWS is allowed before an extension's ';'"),
        Case("chunk-size-lf", S, "7.1, 2.2", post(CHUNKED, b"{x}\n{d}\r\n0\r\n\r\n"),
             note="a chunk-size line ended by a bare LF"),
        Case("chunk-size-cr", S, "7.1, 2.2", post(CHUNKED, b"{x}\r{d}\r\n0\r\n\r\n"),
             note="a chunk-size line ended by a bare CR: no parser should take it for a line end"),
        Case("chunk-size-leading-zeros", S, "7.1", post(CHUNKED, b"0000000000000000000{x}\r\n{d}\r\n0\r\n\r\n"),
             note="21 hex digits whose value is the body's length: 1*HEXDIG, valid; a recipient MUST anticipate "
                  "large numerals"),
        Case("chunk-size-overflow", S, "7.1", post(CHUNKED, b"{wx}\r\n{d}\r\n0\r\n\r\n"),
             note="a recipient MUST anticipate large sizes and prevent integer overflow: 2^64 + the body's "
                  "length, a wrapping parser frames the body by it"),
        Case("chunk-size-signed-wrap", S, "7.1", post(CHUNKED, b"ffffffffffffffc3\r\n{d}\r\n0\r\n\r\n"),
             note="2^64 - 61: a parser that reads it as a signed 64-bit integer gets a negative size"),
        Case("chunk-size-missing", S, "7.1", post(CHUNKED, b"\r\n{d}\r\n0\r\n\r\n")),
        Case("chunk-data-too-long", S, "7.1", post(CHUNKED, b"{x}\r\n{d}XX\r\n0\r\n\r\n")),
        Case("chunk-data-lf-only", S, "7.1, 2.2", post(CHUNKED, b"{x}\r\n{d}\n0\r\n\r\n"),
             note="CRLF after chunk-data; a lenient LF is a known smuggling vector"),
        Case("chunk-size-not-hex-eof", O, "7.1", req(b"POST {/} HTTP/1.1", CHUNKED, b"zz\r\n"), eof=True,
             note="an invalid size, then EOF: answer or close, never hang"),
        Case("chunk-cut-eof", O, "7.1", req(b"POST {/} HTTP/1.1", CHUNKED, b"{x}\r\n{d}\r\n"), eof=True,
             note="no last chunk, then EOF"),
        Case("chunk-last-ext", S, "7.1.1", post(CHUNKED, b"{x}\r\n{d}\r\n0;a=b\r\n\r\n")),
        Case("last-chunk-split", S, "7.1", (req(b"POST {/} HTTP/1.1", CHUNKED, b"{x}\r\n{d}\r\n0\r\n"), b"\r\n{c}"),
             note="the CRLF that ends the chunked body comes after a pause: a reader that stops after `0\\r\\n` "
                  "answers before it"),
        Case("trailer-field", S, "7.1.2", post(CHUNKED, b"{x}\r\n{d}\r\n0\r\nX-T: v\r\n\r\n")),
        Case("trailer-content-length", S, "7.1.2, 9110 6.5.1",
             post(CHUNKED, b"{x}\r\n{d}\r\n0\r\nContent-Length: 40\r\n\r\n"),
             note="a trailer field cannot change the framing"),
        Case("trailer-transfer-encoding", S, "7.1.2, 9110 6.5.1",
             post(CHUNKED, b"{x}\r\n{d}\r\n0\r\nTransfer-Encoding: chunked\r\n\r\n")),
        Case("trailer-host", S, "7.1.2, 9110 6.5.1", post(CHUNKED, b"{x}\r\n{d}\r\n0\r\nHost: evil.example\r\n\r\n"),
             note="a Host in the trailers must not be merged into the header section"),
        Case("trailer-invalid-name", S, "7.1.2, 5.1", post(CHUNKED, b"{x}\r\n{d}\r\n0\r\nX T: v\r\n\r\n"),
             note="trailer fields may be discarded, but the line is still a field line"),
        # ------------------------------------------------------------------ funky chunks (7.1, 7.1.1)
        Case("chunk-data-two-byte-terminator", S, "7.1", post(CHUNKED, b"{x}\r\n{d}XX0\r\n\r\n"),
             note="the two bytes after chunk-data must be CRLF: a parser that skips any two frames on"),
        Case("chunk-ext-nul", S, "7.1.1", post(CHUNKED, b"{x};a=\x00\r\n{d}\r\n0\r\n\r\n")),
        Case("chunk-ext-quoted-lf", S, "7.1.1, 2.2", post(CHUNKED, b'{x};a="b\nc"\r\n{d}\r\n0\r\n\r\n'),
             note="a quoted-string holds no LF: a proxy may end the line there"),
        Case("last-chunk-bare-lf", S, "7.1, 2.2", post(CHUNKED, b"{x}\r\n{d}\r\n0\n\r\n"),
             note="a LF alone after the last chunk"),
        Case("trailer-line-bare-lf", S, "7.1.2, 2.2", post(CHUNKED, b"{x}\r\n{d}\r\n0\r\nX-T: v\n\r\n"),
             note="a trailer field line ended by a bare LF: a recipient MAY take it for a line end, as in the header "
                  "section (RFC 9112 2.2), or refuse it"),
        Case("trailer-section-bare-lf", S, "7.1, 7.1.2, 2.2", post(CHUNKED, b"{x}\r\n{d}\r\n0\r\nX-T: v\r\n\n"),
             note="the chunked body ended by a bare LF: no field line, so invalid; a parser that takes it for the end "
                  "and one that waits for CRLF frame the next request apart"),
        Case("chunk-data-x-lf", S, "7.1", post(CHUNKED, b"{x}\r\n{d}X\n0\r\n\r\n"),
             note="chunk data followed by X LF: a parser that checks only the LF of the CRLF frames on"),
        Case("chunk-data-cr-x", S, "7.1", post(CHUNKED, b"{x}\r\n{d}\rX0\r\n\r\n"),
             note="chunk data followed by CR X: a parser that checks only the CR of the CRLF frames on"),
        Case("last-chunk-ext-bare-lf", S, "7.1.1, 2.2", post(CHUNKED, b"{x}\r\n{d}\r\n0;a\nb\r\n\r\n"),
             note="a bare LF in the last chunk's extension: a proxy may end the last-chunk line there and take b as "
                  "a trailer line"),
        Case("chunk-size-nul", S, "7.1", post(CHUNKED, b"{x}\x00\r\n{d}\r\n0\r\n\r\n"),
             note="a NUL after the chunk size: strtoul stops at it and a C string ends there"),
        Case("chunk-ext-64k", S, "7.1.1", post(CHUNKED, b"{x};a=" + b"b" * BIG + b"\r\n{d}\r\n0\r\n\r\n"),
             may_refuse="a server ought to limit the length of chunk extensions (RFC 9112 7.1.1)"),
        # ------------------------------------------------------------------ limits (9110 15.5, 3)
        Case("target-64k", O, "3, 9110 15.5.15", req(b"GET {/}" + b"a" * BIG + b" HTTP/1.1")),
        Case("header-1m", O, "9110 15.5.20, 5.4", req(GET, b"X-Big: " + b"v" * (1024 * 1024) + b"\r\n")),
        Case("headers-10000", O, "9110 15.5.20, 5.4", req(GET, b"".join(b"X-%d: v\r\n" % i for i in range(10000)))),
        Case("headers-50", O, "5", req(GET, b"".join(b"X-%d: v\r\n" % i for i in range(50)))),
        # ------------------------------------------------------------------ pipelining, persistence (9)
        Case("pipeline-two", O, "9.3.2", req(GET) + req(b"GET {/}json HTTP/1.1"),
             note="a server MUST answer pipelined requests in order (or close after the first)"),
        Case("pipeline-three", O, "9.3.2", req(GET) + req(b"GET {/}nope HTTP/1.1") + req(GET)),
        Case("pipeline-after-body", S, "9.3.2, 6.3", req(GET) + post(CL), app=True),
        Case("connection-close-then-more", O, "9.6", req(GET, b"Connection: close\r\n") + b"{c}",
             note="a server MUST NOT process requests after one with Connection: close"),
        Case("http10-then-more", O, "9.3", b"GET {/} HTTP/1.0\r\n\r\n{c}", app=True,
             note="HTTP/1.0 without keep-alive: the connection closes after the response"),
        Case("expect-100", S, "9110 10.1.1", post(CL + b"Expect: 100-continue\r\n"), app=True),
        # ------------------------------------------------------------------ Expect, bodies in several writes
        Case("expect-100-early", S, "9110 10.1.1, 9.3",
             (req(b"POST {/} HTTP/1.1", CL + b"Expect: 100-continue\r\n"), b"{d}{c}"), app=True,
             note="the body follows a pause: a server answering first must still read (or close on) the body"),
        Case("expect-100-http10", S, "9110 10.1.1, 15.2",
             (req(b"POST {/} HTTP/1.0", CL + b"Expect: 100-continue\r\n"), b"{d}{c}"),
             note="an HTTP/1.0 request with Expect: 100-continue: the server MUST ignore the expectation and MUST NOT "
                  "send a 1xx to an HTTP/1.0 client, which reads it as the answer"),
        Case("expect-unknown", S, "9110 10.1.1",
             (req(b"POST {/} HTTP/1.1", CL + b"Expect: 100-continuex\r\n"), b"{d}{c}"),
             note="an unknown expectation: MAY 417"),
        Case("expect-folded", S, "9110 10.1.1, 5.2",
             (req(b"POST {/} HTTP/1.1", CL + b"Expect:\r\n 100-continue\r\n"), b"{d}{c}"),
             note="obs-fold: reject, or replace by SP"),
        Case("crlf-split", S, "2.2", (b"GET {/} HTTP/1.1\r\n" + HOST + b"\r", b"\n{c}"),
             note="the CRLF that ends the head split across two writes: a parser that decides on the CR alone ends "
                  "the head early or refuses"),
        Case("cl-body-after-pause", S, "6.3", (req(b"POST {/} HTTP/1.1", CL), b"{d}{c}"), app=True,
             note="headers, a pause, then the body (0.CL: a server answering before the body reads it as a request)"),
        Case("cl-body-split", S, "6.3", (req(b"POST {/} HTTP/1.1", CL) + b"{d1}", b"{d2}{c}"), app=True,
             note="a body split across two writes"),
        Case("chunk-split-size", S, "7.1", (req(b"POST {/} HTTP/1.1", CHUNKED) + b"{x1}", b"{x2}\r\n{d}\r\n0\r\n\r\n{c}"),
             note="the chunk size split across two writes"),
        # ------------------------------------------------------------------ protocol switches (9110 7.8, 9113 3)
        Case("h2c-upgrade", S, "9110 7.8, 9113 3.1",
             req(GET, b"Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n")
             + b"{c}", note="RFC 9113 deprecates the h2c upgrade: a server MAY ignore Upgrade; one that switches "
                           "lets a client past a front that forwards Upgrade (the h2c smuggling class)"),
        Case("h2-preface", S, "9113 3.3, 9112 2.3", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n{c}",
             note="the HTTP/2 connection preface on an HTTP/1.1 port: version 2.0, refused, or HTTP/2 with "
                  "prior knowledge (a front that forwards the bytes as HTTP/1.1 lets HTTP/2 through)"),
        # ------------------------------------------------------------------ Host (3.2, 9110 7.2)
        Case("host-missing", O, "3.2", b"GET {/} HTTP/1.1\r\n\r\n", app=True,
             note="a server MUST answer 400 to an HTTP/1.1 request without Host"),
        Case("host-twice", O, "3.2", req(GET, HOST), app=True,
             note="a server MUST answer 400 to more than one Host field line"),
        Case("host-invalid", O, "3.2, 9110 7.2", req(GET, b"Host: a b/c\r\n", host=False), app=True),
        Case("host-list", O, "3.2, 9110 7.2", req(GET, b"Host: a, b\r\n", host=False), app=True,
             note="Host is no list: `a, b` is no uri-host (the space); a server that takes the first element "
                  "routes by a Host the front did not see"),
        Case("host-empty", O, "3.2, 9110 7.2", req(GET, b"Host:\r\n", host=False), app=True),
        Case("host-reg-name", O, "9110 7.2, 3986 3.2.2", req(GET, b"Host: 0.0.0.0=5000\r\n", host=False), app=True,
             note="a valid reg-name: sub-delims (=) are allowed in a host"),
        Case("host-with-port", O, "3.2", req(GET, b"Host: 127.0.0.1:8080\r\n", host=False), app=True),
    ]


CASES: tuple[Case, ...] = tuple(_cases())
BY_ID: dict[str, Case] = {case.id: case for case in CASES}
assert len(BY_ID) == len(CASES), "case ids are unique"
APP_SENSITIVE: tuple[Case, ...] = tuple(case for case in CASES if case.app)


def digest(selected: tuple[Case, ...] | list[Case] = CASES) -> str:
    """One hash of these cases (what a record says it was run with)."""
    return hashlib.sha256("".join(case.digest() for case in selected).encode()).hexdigest()
