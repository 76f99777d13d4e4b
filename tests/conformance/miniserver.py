"""A tiny HTTP/1.1 server for the judge's own tests: the reflection contract and the route contract, with
one framing defect on request.

It answers /reflect routes as the design contract says (X-Reflect: method, version, body length and
SHA-256, target SHA-256; the body read whole), the hello routes as the route contract says (GET / and
/json 200, an unknown path 404, another method 405, the body left unread and drained after the answer),
refuses what RFC 9112 says to refuse (400, then close) and closes where it says close. Its own parser is
written plainly and apart from reference.py, so the judge is held to a second reading of the RFC.

A defect (DEFECTS) makes it go wrong in one way the issue's reviewer found the old judge blind to; the
judge's tests (tests/test_conformance_judge.py) run a case against the good server and the faulty one.
"""
from __future__ import annotations

import hashlib
import re
import socket
import threading

DEFECTS = {
    "": "none",
    "cl-short": "reads a Content-Length body 2 bytes short (the CRLF it leaves is skipped as an empty line)",
    "stop-after-last-chunk": "ends a chunked body after `0\\r\\n`, before the trailer section's CRLF",
    "says-close-keeps": "refuses invalid framing with 400 and `Connection: close`, then reads on",
    "http10-kept": "keeps an HTTP/1.0 connection without keep-alive open",
    "stall-unread": "answers a request whose body the app did not read, then neither drains it nor reads on",
    "bare-cr-line-end": "takes a bare CR for a line end in the head",
    "chunk-ext-any": "skips a chunk extension up to the CRLF whatever it holds",
    "no-drain": "leaves a body the app did not read in the buffer: it is read as the next request (CL.0)",
    "close-unread": "closes after answering a request whose body the app did not read",
    "racy-desync": "every other connection reads a Content-Length body 2 bytes short",
    "h2c": "honours Upgrade: h2c: 101, then HTTP/2 SETTINGS",
    "head-body": "sends content in answer to HEAD",
    "no-length-keep": "answers without Content-Length and keeps the connection open",
    "ignore-te": "ignores Transfer-Encoding when it is not exactly `chunked` (frames by Content-Length)",
    "early-answer": "answers a Content-Length request once its head is in, then reads the body as a request (0.CL)",
    # issue 45: every effect reached each way, in both modes
    "swallow-probe": "reads a request that comes after the connection idled (the probe) without answering it, then "
                     "waits for the client's EOF and closes",
    **{f"drain-short-{k}": f"hands the app the whole Content-Length body but leaves its last {k} byte(s) in the "
                           "buffer (a drain or read short by " + str(k) + "): they are glued to the next request"
       for k in (1, 2, 3, 4)},
    "refuse-large-keeps": "refuses a body of 1 MiB or more with 413 without reading it or closing: the body is read "
                          "as the next request",
    "refuse-500": "answers 500 (and closes) where it should refuse with 400",
    "te-over-cl": "frames a message with both Transfer-Encoding and Content-Length by the chunked coding (as RFC 9112 "
                  "6.3 permits) but keeps the connection open",
    "chunked-as-empty": "reads a chunked body as empty (it ignores Transfer-Encoding), answers, then closes",
    "connect-2xx": "answers CONNECT 200, then goes on reading HTTP requests on the connection",
    "continue-http10": "sends 100 Continue to an Expect: 100-continue request of HTTP/1.0 too (RFC 9110 15.2 forbids)",
}
TOKEN = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_T = rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
_EXTENSION = re.compile(rb'(?:[ \t]*;[ \t]*' + _T + rb'(?:[ \t]*=[ \t]*(?:' + _T + rb'|"[^"\\\r\n\x00]*"))?)*')
HELLO = b"Hello, World!"
JSON = b'{"message":"Hello, World!"}'


class _Refuse(Exception):
    def __init__(self, status: bytes = b"400 Bad Request"):
        self.status = status


class _Closed(Exception):
    pass


def _encode(text: bytes) -> bytes:
    return re.sub(rb"[^\x21-\x24\x26-\x7e]", lambda m: b"%%%02X" % m.group()[0], text) or b"-"


class MiniServer:
    """start() in a thread on a free loopback port; `port`; close()."""

    def __init__(self, defect: str = ""):
        if any(one not in DEFECTS for one in defect.split("+")):
            raise ValueError(f"unknown defect {defect!r}: one of {sorted(DEFECTS)}, or several joined by +")
        self.defect = defect
        self.connections = 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self) -> None:
        self.listener.close()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=_Connection(self, conn, self.connections).serve, daemon=True).start()


class _Connection:
    def __init__(self, server: MiniServer, conn: socket.socket, number: int):
        self.server, self.conn = server, conn
        self.defect = server.defect
        if self.defect == "racy-desync":
            self.defect = "cl-short" if number % 2 else ""
        self.defects = set(self.defect.split("+"))  # defects joined by + act together
        self.buffer = b""
        self.answered = 0
        self.close_after = False  # close once the request being read is answered
        conn.settimeout(3.0)

    # ---------------------------------------------------------------- reading
    def more(self) -> None:
        try:
            block = self.conn.recv(65536)
        except OSError:
            block = b""
        if not block:
            raise _Closed
        self.buffer += block

    def take(self, size: int) -> bytes:
        while len(self.buffer) < size:
            self.more()
        data, self.buffer = self.buffer[:size], self.buffer[size:]
        return data

    def line(self) -> bytes:
        while True:
            if "bare-cr-line-end" in self.defects:
                found = re.search(rb"\r\n|\r(?!\n)|(?<!\r)\n", self.buffer)
                if found and (found.group() != b"\r" or found.end() < len(self.buffer)):
                    line, self.buffer = self.buffer[:found.start()], self.buffer[found.end():]
                    return line
            else:
                end = self.buffer.find(b"\r\n")
                bare = self.buffer.find(b"\n")
                if 0 <= bare and (bare == 0 or self.buffer[bare - 1:bare] != b"\r"):
                    raise _Refuse
                if end >= 0:
                    line, self.buffer = self.buffer[:end], self.buffer[end + 2:]
                    if b"\r" in line or b"\n" in line:
                        raise _Refuse
                    return line
            if len(self.buffer) > 1 << 20:
                raise _Refuse(b"431 Request Header Fields Too Large")
            self.more()

    # ---------------------------------------------------------------- one request
    def serve(self) -> None:
        with self.conn:
            try:
                while self.one():
                    pass
            except _Closed:
                return

    def one(self) -> bool:
        try:
            fresh = not self.buffer  # the request comes in a later write than those answered (the probe)
            line = self.line()
            while line == b"":
                line = self.line()
            if "swallow-probe" in self.defects and self.answered and fresh:
                while True:
                    self.buffer = b""
                    self.more()  # until the client's EOF ends it (_Closed)
            parts = line.split(b" ")
            if len(parts) != 3 or not TOKEN.fullmatch(parts[0]):
                raise _Refuse
            method, target, version = parts
            if version not in (b"HTTP/1.0", b"HTTP/1.1"):
                raise _Refuse(b"505 HTTP Version Not Supported" if re.fullmatch(rb"HTTP/\d\.\d", version) else
                              b"400 Bad Request")
            fields = self.fields()
        except _Refuse as refusal:
            return self.refuse(refusal.status)
        names = [n for n, _ in fields]
        connection = b",".join(v for n, v in fields if n == b"connection").lower()
        close = (version == b"HTTP/1.0" and b"keep-alive" not in connection) or b"close" in connection
        if "http10-kept" in self.defects and version == b"HTTP/1.0":
            close = False
        upgrade = b",".join(v for n, v in fields if n == b"upgrade").lower()
        if "h2c" in self.defects and b"h2c" in upgrade:
            self.send(b"HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n"
                      + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00")
            return False
        if version == b"HTTP/1.1" and names.count(b"host") != 1:
            self.answer(b"400 Bad Request", b"", method, keep=True)
            return not close
        reflect = target == b"/reflect" or target.startswith(b"/reflect/") or target.startswith(b"/reflect?")
        try:
            reader = self.body_reader(fields)
        except _Refuse as refusal:
            return self.refuse(refusal.status)
        lengths = [v for n, v in fields if n == b"content-length"]
        if "refuse-large-keeps" in self.defects and lengths and lengths[0].isdigit() and int(lengths[0]) >= 1 << 20:
            self.answer(b"413 Content Too Large", b"", method)
            return True  # the body is left where it is: read as the next request
        expects = b"100-continue" in b",".join(v for n, v in fields if n == b"expect").lower()
        if expects and "continue-http10" in self.defects:
            self.send(b"HTTP/1.1 100 Continue\r\n\r\n")
        close = close or self.close_after
        if reflect:
            try:
                body = reader()
            except _Refuse as refusal:
                return self.refuse(refusal.status)
            digest = hashlib.sha256
            reflection = b" ".join((_encode(method), _encode(version), b"%d" % len(body),
                                    digest(body).hexdigest().encode(), digest(target).hexdigest().encode()))
            self.answer(b"200 OK", b"{}", method, extra=b"X-Reflect: " + reflection + b"\r\n",
                        close=close, keep=not close)
            return not close
        path = target.split(b"?")[0]
        if method == b"CONNECT" and "connect-2xx" in self.defects:
            self.answer(b"200 OK", b"", method)
            return True
        if path in (b"/", b"/json"):
            status = b"200 OK" if method in (b"GET", b"HEAD") else b"405 Method Not Allowed"
        else:
            status = b"404 Not Found"
        content = (HELLO if path == b"/" else JSON) if status.startswith(b"200") else b'{"error":"x"}'
        if "early-answer" in self.defects and any(n == b"content-length" for n in names):
            self.answer(status, content, method, keep=True)
            return True  # the body is left where it is: read as the next request
        self.answer(status, content, method, keep=True, close=close)
        if close:
            return False
        if "close-unread" in self.defects:
            return False
        if "stall-unread" in self.defects:
            threading.Event().wait(3)
            return False
        if "no-drain" in self.defects:
            return True
        try:
            reader()  # drain what the app did not read
        except _Refuse as refusal:
            return self.refuse(refusal.status)
        return True

    def fields(self) -> list[tuple[bytes, bytes]]:
        fields = []
        while True:
            line = self.line()
            if not line:
                return fields
            name, colon, value = line.partition(b":")
            if not colon or not TOKEN.fullmatch(name):
                raise _Refuse
            if any(c < 0x20 and c != 9 or c == 0x7f for c in value):
                raise _Refuse
            fields.append((name.lower(), value.strip(b" \t")))

    def body_reader(self, fields: list[tuple[bytes, bytes]]):
        codings = [v for n, v in fields if n == b"transfer-encoding"]
        lengths = [v for n, v in fields if n == b"content-length"]
        if codings and "ignore-te" in self.defects and [c.lower() for c in codings] != [b"chunked"]:
            codings = []
        if codings and "chunked-as-empty" in self.defects:
            self.close_after = True
            return lambda: b""
        if codings:
            elements = [e.strip(b" \t").lower() for c in codings for e in c.split(b",") if e.strip(b" \t")]
            if (lengths and "te-over-cl" not in self.defects) or elements != [b"chunked"]:
                raise _Refuse
            return self.chunked
        if lengths:
            if len(lengths) != 1 or not re.fullmatch(rb"[0-9]{1,18}", lengths[0]):
                raise _Refuse
            size = int(lengths[0])
            if "cl-short" in self.defects and size >= 2:
                size -= 2
            short = next((k for k in (1, 2, 3, 4) if f"drain-short-{k}" in self.defects), 0)
            if short:
                def read_short() -> bytes:
                    body = self.take(size)
                    self.buffer = body[len(body) - short:] + self.buffer
                    return body
                return read_short
            return lambda: self.take(size)
        return lambda: b""

    def chunked(self) -> bytes:
        body = b""
        while True:
            line = self.line()
            size_text, semicolon, extension = line.partition(b";")
            if semicolon and "chunk-ext-any" not in self.defects and not _EXTENSION.fullmatch(b";" + extension):
                raise _Refuse
            if not re.fullmatch(rb"[0-9A-Fa-f]{1,8}", size_text.rstrip(b" \t")):
                raise _Refuse
            size = int(size_text, 16)
            if size == 0:
                if "stop-after-last-chunk" in self.defects:
                    return body
                while self.line():
                    pass  # trailer fields, discarded
                return body
            body += self.take(size)
            if self.take(2) != b"\r\n":
                raise _Refuse

    # ---------------------------------------------------------------- answering
    def refuse(self, status: bytes) -> bool:
        if "refuse-500" in self.defects:
            status = b"500 Internal Server Error"
        self.send(b"HTTP/1.1 " + status + b"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        return "says-close-keeps" in self.defects

    def answer(self, status: bytes, content: bytes, method: bytes, extra: bytes = b"", keep: bool = True,
               close: bool = False) -> None:
        self.answered += 1
        length = b"" if "no-length-keep" in self.defects else b"Content-Length: %d\r\n" % len(content)
        head = (b"HTTP/1.1 " + status + b"\r\n" + length + extra
                + (b"Connection: close\r\n" if close else b"") + b"\r\n")
        send_content = method != b"HEAD" or "head-body" in self.defects
        self.send(head + (content if send_content else b""))

    def send(self, data: bytes) -> None:
        try:
            self.conn.sendall(data)
        except OSError:
            raise _Closed from None
