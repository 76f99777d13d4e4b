"""The reference framing: a strict RFC 9112 request-stream parser of the suite's own.

frame(data) takes the bytes one client wrote on one connection and returns how RFC 9112 frames
them: the requests, each with its method, target, version, field lines, body and byte offsets, and
then either every byte consumed, bytes that need more to end a message (`incomplete`), or an error
at the next request (the reason, the RFC section, whether the connection must then close). A request
that is framed but must be refused (a missing Host, `GET *`) carries its refusal and the stream goes
on; one after which the connection closes (Connection: close, HTTP/1.0) ends the stream.

Leniencies are named options (LENIENCIES). A *permitted* one is a choice the RFC leaves to the
recipient (a bare LF as a line end, obs-fold replaced by SP, a Content-Length list of one repeated
value): a server that frames so conforms. The others are what real parsers do with invalid input
(chunk extensions skipped whatever they hold, a Transfer-Encoding it does not understand ignored):
framings a lenient front would produce, which name how a server that accepts invalid input framed it.
framings() runs the strict parser and its variants over one stream.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

CRLF = b"\r\n"
OWS = b" \t"
TCHAR = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
VERSION = re.compile(rb"HTTP/(\d)\.(\d)")
HEXDIG = re.compile(rb"[0-9A-Fa-f]+")
DIGITS = re.compile(rb"[0-9]+")
# RFC 3986 characters of an origin-form (pchar, "/", "?", and "%" of pct-encoded, checked apart)
TARGET_CHARS = re.compile(rb"[A-Za-z0-9\-._~!$&'()*+,;=:@/?%]*")
PCT = re.compile(rb"%(?![0-9A-Fa-f]{2})")
ABSOLUTE = re.compile(rb"([A-Za-z][A-Za-z0-9+.\-]*)://([^/?#]*)([^#]*)")
AUTHORITY = re.compile(rb"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~!$&'()*+,;=%]*):(\d*)")
HOST = re.compile(rb"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~!$&'()*+,;=%]*)(:\d*)?")
CHUNK_EXT = re.compile(rb"""(?:[ \t]*;[ \t]*[!#$%&'*+\-.^_`|~0-9A-Za-z]+"""
                       rb"""(?:[ \t]*=[ \t]*(?:[!#$%&'*+\-.^_`|~0-9A-Za-z]+|"(?:[\t !#-\[\]-~\x80-\xff]|\\[\t -~\x80-\xff])*"))?)*""")
TRANSFER_CODING = re.compile(rb"""([!#$%&'*+\-.^_`|~0-9A-Za-z]+)((?:[ \t]*;[ \t]*[!#$%&'*+\-.^_`|~0-9A-Za-z]+[ \t]*=[ \t]*"""
                             rb"""(?:[!#$%&'*+\-.^_`|~0-9A-Za-z]+|"(?:[\t !#-\[\]-~\x80-\xff]|\\[\t -~\x80-\xff])*"))*)""")
H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
# Python's str.strip() removes these around a latin-1 value as well as OWS (\x1c-\x1f, NEL, NBSP, VT, FF)
PY_SPACE = b" \t\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0"
_CTL = re.compile(rb"[\x00-\x08\x0a-\x1f\x7f]")
_NOT_VISIBLE = re.compile(rb"[\x00-\x20\x7f-\xff]")
LIMIT = 8 * 1024  # a target or head longer than this a server may refuse (414, 431)


@dataclass(frozen=True)
class Leniency:
    name: str
    permitted: bool  # the RFC leaves this choice to the recipient: a server framing so conforms
    section: str
    text: str  # what it does (and, for the others, which parsers are known to)


LENIENCIES: dict[str, Leniency] = {lenient.name: lenient for lenient in (
    # ---------------------------------------------------------------- the RFC's own choices
    Leniency("lf-line-end", True, "9112 2.2", "a bare LF ends the request line or a field line"),
    Leniency("bare-cr-as-sp", True, "9112 2.2", "a bare CR is replaced by SP"),
    Leniency("lf-as-sp", True, "9110 5.5", "a bare LF inside a field line is replaced by SP"),
    Leniency("nul-as-sp", True, "9110 5.5", "a NUL in a field value is replaced by SP"),
    Leniency("ctl-retained", True, "9110 5.5", "other control characters in a field value are kept"),
    Leniency("request-line-ws", True, "9112 3",
             "the request line is split on any whitespace (SP, HTAB, VT, FF, bare CR), surrounding whitespace ignored"),
    Leniency("obs-fold-sp", True, "9112 5.2", "obs-fold replaced by SP"),
    Leniency("ws-line-skipped", True, "9112 2.2",
             "a whitespace-preceded line before the first field line consumed without processing it"),
    Leniency("cl-list-same", True, "9110 8.6", "a Content-Length list of one repeated value read as that value"),
    Leniency("te-over-cl", True, "9112 6.3", "Transfer-Encoding and Content-Length: framed by Transfer-Encoding, "
                                             "then the connection closed"),
    Leniency("te-http10", True, "9112 6.1", "Transfer-Encoding in HTTP/1.0: processed, then the connection closed"),
    # ---------------------------------------------------------------- what lenient parsers do with invalid input
    Leniency("chunk-ext-any", False, "9112 7.1.1", "a chunk extension skipped up to the CRLF whatever it holds "
                                                   "(llhttp before 9.1, most servers that ignore extensions)"),
    Leniency("chunk-lf", False, "9112 7.1", "a bare LF ends a chunk line, chunk data and the trailer section"),
    Leniency("chunk-size-loose", False, "9112 7.1", "a chunk size read as Python's int(s, 16) reads it (whitespace "
                                                    "around it, 0x, a sign, _ between digits accepted)"),
    Leniency("chunk-size-strtoul", False, "9112 7.1", "a chunk size read as C's strtoul(s, NULL, 16) reads it: leading "
                                                      "whitespace, a sign and 0x skipped, the hex digits up to the "
                                                      "first other byte taken, the rest of the line ignored"),
    Leniency("chunk-data-any", False, "9112 7.1", "the two bytes after chunk data skipped without checking for CRLF"),
    Leniency("cl-loose", False, "9110 8.6", "Content-Length read as Python's int() reads it (sign, _, whitespace, "
                                            "any Unicode digit)"),
    Leniency("cl-first", False, "9110 8.6", "differing Content-Length values: the first taken"),
    Leniency("cl-last", False, "9110 8.6", "differing Content-Length values: the last taken"),
    Leniency("te-stripped", False, "9112 6.1", "a coding name compared after Python's str.strip() and lower() "
                                               "(\\x0b, \\x0c, \\x1c-\\x1f, NEL and NBSP removed, quotes kept)"),
    Leniency("te-ignored", False, "9112 6.1", "a Transfer-Encoding it cannot use ignored: framed by Content-Length"),
    Leniency("te-params-ignored", False, "9112 7", "parameters of chunked ignored"),
    Leniency("te-chunked-anywhere", False, "9112 6.1", "chunked anywhere in the list frames the body as chunked"),
    Leniency("cl-over-te", False, "9112 6.3", "Transfer-Encoding and Content-Length: framed by Content-Length"),
    Leniency("name-loose", False, "9112 5.1", "a field name with whitespace before the colon, or invalid "
                                              "characters, taken as the name without them"),
    Leniency("line-ignored", False, "9112 5.1", "an invalid field line ignored"),
    Leniency("semantics-unchecked", False, "9112 3.2, 3.2.3, 3.2.4",
             "Host, the asterisk-form and the authority-form not checked: the request served"),
    Leniency("h2c-upgrade", False, "9113 3.1", "Upgrade: h2c honoured: the connection switches to HTTP/2 "
                                               "(deprecated by RFC 9113)"),
    Leniency("h2-prior-knowledge", False, "9113 3.3", "the HTTP/2 preface answered on an HTTP/1.1 port"),
    Leniency("http09", False, "9112 2.3", "a request line without a version taken as HTTP/0.9"),
)}
PERMITTED = frozenset(n for n, lenient in LENIENCIES.items() if lenient.permitted)


@dataclass(frozen=True)
class Refusal:
    reason: str
    section: str
    must_close: bool = True  # RFC 9112 says (or makes it the only safe course) to close after refusing
    in_body: bool = False  # found in the body: a server that hands the head to the app first finds it late
    status: tuple[int, ...] = (400,)


@dataclass
class Request:
    start: int
    head_end: int  # offset after the empty line ending the head
    end: int  # offset after the body
    method: bytes
    target: bytes
    version: bytes
    fields: list[tuple[bytes, bytes]]
    body: bytes = b""
    closes: bool = False  # the connection closes after its answer
    refusal: Refusal | None = None  # framed, but a server must refuse it (the stream goes on)
    may_refuse: str = ""  # why a server may refuse this valid request ("" : it may not)
    switches: bool = False  # the connection leaves HTTP/1.1 after its answer (h2c, the HTTP/2 preface)
    framed_by: str = ""  # "content-length", "chunked" or "" (no body)

    def field(self, name: bytes) -> list[bytes]:
        return [v for n, v in self.fields if n.lower() == name]

    @property
    def path(self) -> bytes:
        """The target as an origin-form (an absolute-form's path and query)."""
        found = ABSOLUTE.fullmatch(self.target)
        return (found.group(3) or b"/") if found else self.target


@dataclass
class Framing:
    requests: list[Request] = field(default_factory=list)
    error: Refusal | None = None  # the request after the last cannot be framed
    error_at: int = -1
    incomplete: bool = False  # the data ends inside a message
    consumed: int = 0  # offset where the requests end (the error's or the incomplete message's start)
    close_after: int | None = None  # the index of the request after whose answer the connection closes
    pending: Request | None = None  # the head of the incomplete or erroneous message, where it was framed
    leniencies: frozenset[str] = frozenset()
    queried: set[str] = field(default_factory=set, repr=False)  # the leniencies that could change it
    essential: tuple[str, ...] = ()  # the leniencies without which it would differ (essential() sets it)

    @property
    def processed(self) -> list[Request]:
        """The requests a server processes: up to the one after which the connection closes."""
        return self.requests if self.close_after is None else self.requests[:self.close_after + 1]

    @property
    def valid(self) -> bool:
        """Framed without an error or a refusal, as far as the connection goes."""
        ends_early = self.close_after is not None and self.close_after < len(self.requests) - 1
        return (ends_early or self.error is None) and not any(r.refusal for r in self.processed)

    def shape(self) -> tuple:
        """What a server's answers can tell apart: requests (method, target, body) and how the stream ends."""
        return (tuple((r.method, r.target, r.body, r.refusal is not None, r.closes, r.switches, bool(r.may_refuse))
                      for r in self.requests),
                self.error is not None and self.error.in_body, self.error is not None, self.incomplete,
                self.close_after)

    def describe(self) -> str:
        parts = [f"{r.method.decode('latin-1')} {r.target[:40].decode('latin-1')} body {len(r.body)}"
                 + (f" (refuse: {r.refusal.reason})" if r.refusal else "")
                 + (", then close" if i == self.close_after else "") + (", then HTTP/2" if r.switches else "")
                 for i, r in enumerate(self.requests)]
        if self.error:
            parts.append(f"error: {self.error.reason} (RFC {self.error.section})")
        if self.incomplete:
            parts.append("incomplete")
        return "; ".join(parts) or "nothing"


class _Incomplete(Exception):
    pass


class _Error(Exception):
    def __init__(self, reason: str, section: str, must_close: bool = True, status: tuple[int, ...] = (400,),
                 in_body: bool = False):
        super().__init__(reason)
        self.refusal = Refusal(reason, section, must_close, in_body, status)


class _Parser:
    def __init__(self, data: bytes, options: frozenset[str]):
        self.data = data
        self.options = options
        self.queried: set[str] = set()  # the leniencies asked about: any other leaves this framing as it is
        self.current: Request | None = None  # the request whose head was parsed last

    def on(self, name: str) -> bool:
        self.queried.add(name)
        return name in self.options

    # ---------------------------------------------------------------- lines
    def line(self, pos: int, where: str) -> tuple[bytes, int]:
        """The line at pos without its terminator, and the offset after it. where: "start", "field", "chunk"."""
        data, scan = self.data, pos
        lf_ends = self.on("lf-line-end") if where in ("start", "field") else self.on("chunk-lf")
        replaced: list[int] = []
        while True:
            nl = data.find(b"\n", scan)
            if nl < 0:
                raise _Incomplete
            if nl > pos and data[nl - 1:nl] == b"\r":
                raw, after = data[pos:nl - 1], nl + 1
                break
            if lf_ends:
                raw, after = data[pos:nl], nl + 1
                break
            if where == "field" and _in_value(data[pos:nl]) and self.on("lf-as-sp"):
                # within a field value only (RFC 9110 5.5): a LF that ends an empty line is no part of a value
                replaced.append(nl - pos)
                scan = nl + 1
                continue
            if where == "chunk" and self.on("chunk-ext-any") and b";" in data[pos:nl]:
                scan = nl + 1  # the extension is skipped up to the CRLF, whatever it holds
                continue
            raise _Error("a bare LF", "9112 2.2")
        if replaced:
            raw = bytes(b if i not in replaced else 0x20 for i, b in enumerate(raw))
        if b"\r" in raw:
            if where == "chunk" and self.on("chunk-ext-any") and b";" in raw and raw.index(b"\r") > raw.index(b";"):
                pass  # the extension is skipped whatever it holds
            elif self.on("bare-cr-as-sp") or (where == "start" and self.on("request-line-ws")):
                raw = raw.replace(b"\r", b" ")
            else:
                raise _Error("a bare CR", "9112 2.2")
        return raw, after

    # ---------------------------------------------------------------- one request
    def request(self, pos: int) -> Request:
        data = self.data
        if data.startswith(H2_PREFACE[:min(len(H2_PREFACE), len(data) - pos)], pos) and self.on("h2-prior-knowledge"):
            if len(data) - pos < len(H2_PREFACE):
                raise _Incomplete
            return Request(pos, pos + len(H2_PREFACE), pos + len(H2_PREFACE), b"PRI", b"*", b"HTTP/2.0", [],
                           switches=True)
        start = pos
        line, pos = self.line(pos, "start")
        method, target, version = self.request_line(line)
        if version == b"HTTP/0.9":
            return Request(start, pos, pos, method, target, version, [], closes=True)
        fields, pos = self.fields(pos)
        request = self.current = Request(start, pos, pos, method, target, version, fields)
        self.semantics(request)
        self.limits(request)
        self.body(request)
        return request

    def limits(self, request: Request) -> None:
        """Valid requests a server may refuse: larger than it takes, or an expectation it cannot meet."""
        if len(request.target) > LIMIT:
            request.may_refuse = "a target longer than the server takes: 414 (RFC 9110 15.5.15)"
        elif request.head_end - request.start > LIMIT or len(request.fields) > 100:
            request.may_refuse = "a head larger than the server takes: 431 (RFC 6585 5, RFC 9110 5.4)"
        expect = [v.lower() for v in request.field(b"expect")]
        if expect and expect != [b"100-continue"]:
            request.may_refuse = "an expectation it cannot meet: 417 (RFC 9110 10.1.1)"

    def request_line(self, line: bytes) -> tuple[bytes, bytes, bytes]:
        if self.on("request-line-ws"):
            parts = re.split(rb"[ \t\x0b\x0c\r]+", line.strip(b" \t\x0b\x0c\r"))
        else:
            parts = line.split(b" ")
        if len(parts) == 2 and self.on("http09"):
            parts.append(b"HTTP/0.9")
        if len(parts) != 3:
            raise _Error(f"a request line of {len(parts)} parts", "9112 3")
        method, target, version = parts
        if not TCHAR.fullmatch(method):
            raise _Error("a method that is no token", "9112 3.1")
        if version == b"HTTP/0.9" and self.on("http09"):
            return method, target, version
        found = VERSION.fullmatch(version)
        if not found:
            raise _Error("an invalid HTTP-version", "9112 2.3")
        if found.group(1) != b"1":
            raise _Error(f"HTTP major version {found.group(1).decode()}", "9110 6.2, 15.6.6", status=(505, 400))
        if not target or _NOT_VISIBLE.search(target):
            raise _Error("a request target with a control, space or non-ASCII byte", "9112 3.2")
        return method, target, version

    def fields(self, pos: int) -> tuple[list[tuple[bytes, bytes]], int]:
        fields: list[tuple[bytes, bytes]] = []
        while True:
            line, after = self.line(pos, "field")
            if not line:
                return fields, after
            if line[:1] in (b" ", b"\t"):
                if not fields:
                    if not self.on("ws-line-skipped"):
                        raise _Error("whitespace before the first field line", "9112 2.2")
                elif self.on("obs-fold-sp"):
                    name, value = fields[-1]
                    fields[-1] = (name, (value + b" " + line.strip(OWS)).strip(OWS))
                else:
                    raise _Error("obs-fold", "9112 5.2")
                pos = after
                continue
            parsed = self.field_line(line)
            if parsed is not None:
                fields.append(parsed)
            pos = after

    def field_line(self, line: bytes) -> tuple[bytes, bytes] | None:
        name, colon, value = line.partition(b":")
        if not colon:
            if self.on("line-ignored"):
                return None
            raise _Error("a field line without a colon", "9112 5.1")
        if not TCHAR.fullmatch(name):
            cleaned = bytes(c for c in name if TCHAR.fullmatch(bytes([c])))
            if self.on("name-loose") and cleaned:
                name = cleaned
            elif self.on("line-ignored"):
                return None
            else:
                raise _Error("whitespace before the colon" if name.rstrip(OWS) != name else "a field name that is no token",
                             "9112 5.1" if name.rstrip(OWS) != name else "9110 5.1")
        value = value.strip(OWS)
        if b"\x00" in value:
            if not self.on("nul-as-sp"):
                raise _Error("a NUL in a field value", "9110 5.5")
            value = value.replace(b"\x00", b" ")
        if _CTL.search(value) and not self.on("ctl-retained"):
            raise _Error("a control character in a field value", "9110 5.5")
        return name, value

    # ---------------------------------------------------------------- what the head means
    def semantics(self, request: Request) -> None:
        version = request.version
        connection = {t.strip(OWS).lower() for v in request.field(b"connection") for t in v.split(b",")}
        if version == b"HTTP/1.0":
            request.closes = b"keep-alive" not in connection
        if b"close" in connection:
            request.closes = True
        target, method = request.target, request.method
        refusal = None
        if target == b"*":
            if method != b"OPTIONS":
                refusal = Refusal("the asterisk-form for a method other than OPTIONS", "9112 3.2.4", False)
        elif target.startswith(b"/"):
            if not TARGET_CHARS.fullmatch(target) or PCT.search(target):
                refusal = Refusal("a request target with characters RFC 3986 does not allow", "9112 3.2", False)
        elif ABSOLUTE.fullmatch(target):
            refusal = _absolute_refusal(ABSOLUTE.fullmatch(target))
        elif AUTHORITY.fullmatch(target):
            if method != b"CONNECT":
                refusal = Refusal("the authority-form for a method other than CONNECT", "9112 3.2.3", False)
        else:
            raise _Error("a request target in no form of RFC 9112", "9112 3.2")
        if method == b"CONNECT":
            request.may_refuse = "an origin server that is no proxy refuses CONNECT (RFC 9110 9.3.6)"
        # RFC 9112 3.2: 400 to an HTTP/1.1 request without Host, and to any request with more than one Host field
        # line or an invalid Host value, whatever its version
        hosts = request.field(b"host")
        if len(hosts) > 1 or (not hosts and version != b"HTTP/1.0"):
            refusal = refusal or Refusal(f"{len(hosts)} Host field lines", "9112 3.2", False)
        elif hosts and not HOST.fullmatch(hosts[0]):
            refusal = refusal or Refusal("an invalid Host", "9112 3.2, 9110 7.2", False)
        if refusal and not self.on("semantics-unchecked"):
            request.refusal = refusal
        upgrade = [t.strip(OWS).lower() for v in request.field(b"upgrade") for t in v.split(b",")]
        if (b"h2c" in upgrade and b"upgrade" in connection and len(request.field(b"http2-settings")) == 1
                and self.on("h2c-upgrade")):
            request.switches = True

    def body(self, request: Request) -> None:
        codings_fields = request.field(b"transfer-encoding")
        lengths = request.field(b"content-length")
        pos = request.head_end
        te = self.codings(codings_fields) if codings_fields else None
        if te is not None and lengths:
            if self.on("cl-over-te"):
                te = None
            elif self.on("te-over-cl"):
                request.closes = True
            elif self.on("te-ignored") and te == "ignore":
                te = None
            else:
                raise _Error("both Transfer-Encoding and Content-Length", "9112 6.3")
        if te == "ignore":
            te = None
        if te is not None and request.version == b"HTTP/1.0":
            if not self.on("te-http10"):
                raise _Error("Transfer-Encoding in an HTTP/1.0 request", "9112 6.1")
            request.closes = True
        if te is not None:
            if te != "chunked":
                request.may_refuse = f"a transfer coding it does not know ({te}): 501 (RFC 9112 7)"
            request.framed_by = "chunked"
            request.body, request.end = self.chunked(pos)
            return
        if lengths:
            size = self.content_length(lengths)
            request.framed_by = "content-length"
            if pos + size > len(self.data):
                if size > 2 ** 32:
                    request.may_refuse = "a body larger than the server takes: 413 (RFC 9110 15.5.14)"
                raise _Incomplete
            request.body, request.end = self.data[pos:pos + size], pos + size
            if size >= 2 ** 20:
                request.may_refuse = "a body larger than the server takes: 413 (RFC 9110 15.5.14)"
            return
        request.end = pos

    def codings(self, values: list[bytes]) -> str | None:
        """"chunked", another final coding name for a valid list ending in chunked (the server may answer 501),
        "ignore" (a lenient parser ignores the field), or an error."""
        elements: list[tuple[bytes, bytes]] = []
        for value in values:
            for element in _list_elements(value):
                element = element.strip(PY_SPACE if self.on("te-stripped") else OWS)
                if not element:
                    continue  # empty list elements are allowed (RFC 9110 5.6.1)
                found = TRANSFER_CODING.fullmatch(element)
                if not found:
                    if self.on("te-ignored"):
                        return "ignore"
                    raise _Error("a Transfer-Encoding element that is no transfer-coding", "9112 6.1, 9110 5.6.2")
                elements.append((found.group(1).lower(), found.group(2)))
        names = [n for n, _ in elements]
        if self.on("te-chunked-anywhere") and b"chunked" in names:
            return "chunked"
        if not names or names[-1] != b"chunked":
            if self.on("te-ignored"):
                return "ignore"
            raise _Error("chunked is not the final transfer coding", "9112 6.3")
        if elements[-1][1] and not self.on("te-params-ignored"):
            raise _Error("parameters on chunked", "9112 7")
        if names.count(b"chunked") > 1 and self.current is not None:
            # the final coding is chunked, so the framing holds (RFC 9112 6.3); the sender broke 7's MUST NOT apply
            # it more than once, which a server may refuse
            self.current.may_refuse = "chunked applied more than once, which a sender MUST NOT (RFC 9112 7): 400 or 501"
        unknown = [n for n in names if n != b"chunked"]
        return unknown[0].decode("latin-1") if unknown else "chunked"

    def content_length(self, values: list[bytes]) -> int:
        elements = [e.strip(OWS) for v in values for e in v.split(b",")]
        parsed: list[int] = []
        for element in elements:
            if DIGITS.fullmatch(element):
                parsed.append(int(element))
                continue
            if self.on("cl-loose"):
                value = _python_int(element)
                if value is not None:
                    parsed.append(value)
                    continue
            raise _Error("an invalid Content-Length", "9112 6.3, 9110 8.6")
        if len(set(parsed)) > 1 or (len(parsed) > 1 and not self.on("cl-list-same")):
            if self.on("cl-first"):
                return parsed[0]
            if self.on("cl-last"):
                return parsed[-1]
            raise _Error("a Content-Length list" if len(set(parsed)) == 1 else "differing Content-Length values",
                         "9112 6.3, 9110 8.6")
        if parsed[0] < 0:
            raise _Error("a negative Content-Length", "9110 8.6")
        return parsed[0]

    # ---------------------------------------------------------------- chunked (7.1)
    def chunked(self, pos: int) -> tuple[bytes, int]:
        body = b""
        while True:
            line, after = self.chunk_line(pos)
            size = self.chunk_size(line)
            if size > 2 ** 32 and self.current is not None:
                self.current.may_refuse = "a chunk larger than the server takes: 413 (RFC 9110 15.5.14)"
            if size == 0:
                return body, self.trailers(after)
            end = after + size
            if end + 2 > len(self.data):
                raise _Incomplete
            body += self.data[after:end]
            terminator = self.data[end:end + 2]
            if terminator == CRLF or self.on("chunk-data-any"):
                pos = end + 2
            elif terminator[:1] == b"\n" and self.on("chunk-lf"):
                pos = end + 1
            else:
                raise _Error("chunk data not followed by CRLF", "9112 7.1", in_body=True)

    def chunk_line(self, pos: int) -> tuple[bytes, int]:
        try:
            return self.line(pos, "chunk")
        except _Error as error:
            raise _Error(error.refusal.reason + " in a chunk line", "9112 7.1, 2.2", in_body=True) from None

    def chunk_size(self, line: bytes) -> int:
        size_text, semicolon, extension = line.partition(b";")
        if semicolon and not self.on("chunk-ext-any"):
            if not CHUNK_EXT.fullmatch(b";" + extension):
                raise _Error("an invalid chunk extension", "9112 7.1.1", in_body=True)
        stripped = size_text.rstrip(OWS) if semicolon else size_text  # BWS before ';' (RFC 9112 7.1.1)
        if HEXDIG.fullmatch(stripped):
            return int(stripped, 16)
        if self.on("chunk-size-loose"):
            try:
                value = int(size_text.decode("latin-1"), 16)
            except ValueError:
                value = -1
            if value >= 0:
                return value
        if self.on("chunk-size-strtoul"):
            value = _strtoul16(line)
            if value is not None:
                return value
        raise _Error("an invalid chunk size", "9112 7.1", in_body=True)

    def trailers(self, pos: int) -> int:
        """The trailer section (RFC 9112 7.1.2): field lines, where a bare LF may end a line as in the header section
        (lf-line-end, 2.2) and obs-fold is refused or replaced by SP (obs-fold-sp, 5.2); the CRLF that ends the
        chunked body is no field line, so only chunk-lf lets a bare LF end it."""
        fields = 0
        while True:
            try:
                line, after = self.line(pos, "chunk" if self.on("chunk-lf") else "field")
            except _Error as error:
                raise _Error(error.refusal.reason + " in the trailer section", "9112 7.1.2", in_body=True) from None
            if not line:
                if self.data[after - 2:after] != CRLF and not self.on("chunk-lf"):
                    raise _Error("a bare LF ending the chunked body", "9112 7.1, 2.2", in_body=True)
                return after
            if line[:1] in (b" ", b"\t"):
                if not fields or not self.on("obs-fold-sp"):
                    raise _Error("obs-fold in the trailer section", "9112 5.2, 7.1.2", in_body=True)
                pos = after
                continue
            try:
                self.field_line(line)
            except _Error as error:
                raise _Error(error.refusal.reason + " in the trailer section", "9112 7.1.2", in_body=True) from None
            fields += 1
            pos = after


def frame(data: bytes, options: frozenset[str] | set[str] = frozenset()) -> Framing:
    """How RFC 9112 frames the bytes of one connection, with these leniencies (LENIENCIES) on. The framing goes
    on past a request after which the connection closes (close_after): what a server that keeps it would read."""
    options = frozenset(options)
    unknown = options - set(LENIENCIES)
    if unknown:
        raise ValueError(f"unknown leniencies: {sorted(unknown)}")
    parser = _Parser(data, options)
    framing = Framing(leniencies=options, queried=parser.queried)
    pos = 0
    while True:
        pos = _skip_empty_lines(data, pos, "lf-line-end" in options)
        framing.consumed = pos
        if pos >= len(data):
            return framing
        parser.current = None
        try:
            request = parser.request(pos)
        except _Incomplete:
            framing.incomplete, framing.pending = True, parser.current
            return framing
        except _Error as error:
            framing.error, framing.error_at, framing.pending = error.refusal, pos, parser.current
            return framing
        framing.requests.append(request)
        pos = framing.consumed = request.end
        if request.closes and framing.close_after is None:
            framing.close_after = len(framing.requests) - 1
        if request.switches:
            return framing


def _in_value(before: bytes) -> bool:
    """Whether a LF after these bytes of a line falls within a field value: after a field name and colon, or in an
    obs-fold continuation (a line that starts with whitespace and holds more)."""
    return b":" in before or (before[:1] in (b" ", b"\t") and bool(before.strip(OWS)))


def _absolute_refusal(found: re.Match) -> Refusal | None:
    """An http(s) absolute-form a server must refuse: an empty host (RFC 9110 4.2.1: a recipient MUST reject it as
    invalid), userinfo (4.2.4: SHOULD treat its presence as an error), or an authority that is no uri-host[:port]."""
    if found.group(1).lower() not in (b"http", b"https"):
        return None
    authority = found.group(2)
    if b"@" in authority:
        return Refusal("userinfo in an http(s) URI", "9110 4.2.4", False)
    host = HOST.fullmatch(authority)
    if host is None:
        return Refusal("an invalid authority in an http(s) URI", "9110 4.2, 3986 3.2", False)
    if not host.group(1):
        return Refusal("an http(s) URI with an empty host", "9110 4.2.1", False)
    return None


def _list_elements(value: bytes) -> list[bytes]:
    """A field value split at the commas of its list (RFC 9110 5.6.1), not at those inside a quoted-string (5.6.4)."""
    elements, current, quoted, escaped = [], bytearray(), False, False
    for byte in value:
        char = bytes([byte])
        if escaped:
            escaped = False
        elif quoted and char == b"\\":
            escaped = True
        elif char == b'"':
            quoted = not quoted
        elif char == b"," and not quoted:
            elements.append(bytes(current))
            current = bytearray()
            continue
        current += char
    elements.append(bytes(current))
    return elements


def _strtoul16(line: bytes) -> int | None:
    """strtoul(line, &end, 16) of C: leading whitespace, then a sign, then 0x, then the hex digits up to the first other
    byte (None where there is no digit: strtoul returns 0 with end at the start, which a server checking end refuses);
    a negative value wraps modulo 2^64, as strtoul's does."""
    found = re.match(rb"[ \t\n\v\f\r]*([+-]?)(?:0[xX](?=[0-9A-Fa-f]))?([0-9A-Fa-f]+)", line)
    if found is None:
        return None
    value = min(int(found.group(2), 16), 2 ** 64 - 1)
    return (-value) % 2 ** 64 if found.group(1) == b"-" else value


def _python_int(text: bytes) -> int | None:
    """int() of the value decoded as latin-1 or UTF-8, as Python servers read a Content-Length."""
    for encoding in ("utf-8", "latin-1"):
        try:
            return int(text.decode(encoding))
        except (ValueError, UnicodeDecodeError):
            continue
    return None


def _skip_empty_lines(data: bytes, pos: int, lf: bool) -> int:
    """Empty lines before a request line are skipped (RFC 9112 2.2: SHOULD ignore at least one)."""
    while True:
        if data.startswith(CRLF, pos):
            pos += 2
        elif lf and data.startswith(b"\n", pos):
            pos += 1
        else:
            return pos


def essential(data: bytes, framing: Framing) -> tuple[str, ...]:
    """The leniencies of a framing without which it would differ: the ones that name it."""
    return tuple(sorted(name for name in framing.leniencies & framing.queried
                        if frame(data, framing.leniencies - {name}).shape() != framing.shape()))


@dataclass
class Framings:
    """The strict framing of a stream and its variants: conforming (the RFC's own choices) and lenient."""

    strict: Framing
    conforming: list[Framing]  # strict first, then each distinct framing the permitted leniencies give
    lenient: list[Framing]  # distinct framings only non-permitted leniencies give

    @property
    def forwarded(self) -> bool:
        """A conforming recipient may take it: the strict framing or a permitted one frames it without refusing."""
        return any(f.valid for f in self.conforming)

    def all(self) -> list[Framing]:
        return self.conforming + self.lenient


def framings(data: bytes, relevant: tuple[str, ...] = ()) -> Framings:
    """The strict framing, each permitted leniency alone, in pairs and all of them, then each lenient option alone,
    with each permitted one and with all of them (relevant: lenient options to try; default every one). A leniency the
    parser never asked about leaves a framing as it is, so only those asked about are tried."""
    lenient = [n for n in (relevant or LENIENCIES) if n not in PERMITTED]
    strict = frame(data)
    conforming: dict[tuple, Framing] = {strict.shape(): strict}
    singles = [frame(data, {name}) for name in sorted(PERMITTED & strict.queried)]
    for found in singles:
        conforming.setdefault(found.shape(), found)
    # pairs: a choice can matter only once another was made (a bare LF ends a line, then the line is obs-fold)
    asked = sorted(PERMITTED & set().union(strict.queried, *(f.queried for f in singles)))
    for i, first in enumerate(asked):
        for second in asked[i + 1:]:
            found = frame(data, {first, second})
            conforming.setdefault(found.shape(), found)
    permitted = frame(data, PERMITTED)
    conforming.setdefault(permitted.shape(), permitted)
    others: dict[tuple, Framing] = {}
    bases = [strict, *singles, permitted]
    for name in lenient:
        for base in bases:
            if name in base.queried:
                found = frame(data, base.leniencies | {name})
                if found.shape() not in conforming:
                    others.setdefault(found.shape(), found)
    return Framings(strict, list(conforming.values()), list(others.values()))
