"""Observing one case on a raw loopback socket: the answers as a response stream, then the connection's state.

observe() writes the case's parts on a fresh connection (a pause between parts, reading meanwhile), reads
the answers until as many as the reference awaits are in (or the server closes, or a deadline), then writes
a probe request and reads until the probe is answered (the connection was kept: and what the server read
before it shows in the answers) or the server closes; where neither comes at once, our EOF follows the probe
(a server that lingers before closing then closes, one that kept the connection still answers the probe
first). The connection's state is what happened on the wire, never what a header said. A case that ends its
side (`eof`) shuts down our writing half instead of probing.

responses() reads the bytes as HTTP/1.1 responses: a HEAD answer has no content (known from its X-Reflect,
else from the method of the request at that position), 1xx answers are interim, a 101 ends the HTTP/1.1
reading (the protocol switched), so does an HTTP/2 frame, and a response without a length runs to the close.
"""
from __future__ import annotations

import hashlib
import re
import socket
import time
from dataclasses import dataclass, field

from .reflection import NotAReflection, Reflection, parse_header

DEADLINE_S = 3.0  # after the last write: the awaited answers in, or the server closed, or it stalls
PROBE_QUICK_S = 0.3  # after the probe: its answer, or the close, before our EOF
PROBE_S = 2.0  # after our EOF: the probe's answer, or the close
PAUSE_S = 0.3  # between the parts of a case written apart

_STATUS = re.compile(rb"HTTP/1\.([01]) ([1-9]\d\d)(?: [\t !-~\x80-\xff]*)?")
_FIELD = re.compile(rb"([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*([\t !-~\x80-\xff]*?)[ \t]*")
_H2_SETTINGS = 0x04

# The connection's state once the answers are read (what a record pins as `close`). A reset is a close: whether
# a server closing on unread bytes resets or ends the connection is the kernel's race, not the server's choice.
CLOSED, KEPT, HELD = "closed", "kept", "held"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class Response:
    status: int
    fields: list[tuple[bytes, bytes]]
    body: bytes
    end: int  # offset in the received bytes after its last byte
    reflection: Reflection | None = None
    parts_before: int = 0  # how many of the case's parts were written before it was complete
    after_probe: bool = False  # complete only after the probe was written

    def field(self, name: bytes) -> list[bytes]:
        return [v for n, v in self.fields if n.lower() == name]


@dataclass
class Stream:
    """The responses in some received bytes, and how the bytes end."""

    responses: list[Response] = field(default_factory=list)  # final answers
    interim: list[int] = field(default_factory=list)  # 1xx other than 101
    interim_before: list[int] = field(default_factory=list)  # for each of interim: the final answers before it
    switched: str = ""  # "101" or "http2": the connection left HTTP/1.1 there
    malformed: str = ""  # why the bytes stop being HTTP/1.1 responses
    partial: bool = False  # the last response is not complete yet
    to_close: bool = False  # the last response's content runs until the server closes


def responses(data: bytes, methods: list[bytes], closed: bool) -> Stream:
    """The responses in data; methods[i]: the method of the i-th request (HEAD answers carry no content),
    where the response does not say it in its X-Reflect; closed: the server closed after data."""
    found = Stream()
    pos = 0
    while pos < len(data):
        if data[pos:pos + 5] != b"HTTP/"[:len(data) - pos]:
            if len(data) - pos >= 9 and data[pos + 3] == _H2_SETTINGS and data[pos + 5:pos + 9] == b"\0\0\0\0":
                found.switched = "http2"
            else:
                found.malformed = f"not a status line: {data[pos:pos + 40]!r}"
            return found
        end = data.find(b"\r\n\r\n", pos)
        if end < 0:
            found.partial = True
            return found
        lines = data[pos:end].split(b"\r\n")
        status_line = _STATUS.fullmatch(lines[0])
        if not status_line:
            found.malformed = f"status line {lines[0][:60]!r}"
            return found
        status = int(status_line.group(2))
        fields = []
        for line in lines[1:]:
            field_line = _FIELD.fullmatch(line)
            if not field_line:
                found.malformed = f"field line {line[:60]!r}"
                return found
            fields.append((field_line.group(1).lower(), field_line.group(2)))
        start = end + 4
        response = Response(status, fields, b"", start)
        if status == 101:
            found.switched = "101"
            found.interim.append(101)
            return found
        if 100 <= status < 200:
            found.interim.append(status)
            found.interim_before.append(len(found.responses))
            pos = start
            continue
        response.reflection = _reflection(response.field(b"x-reflect"))
        index = len(found.responses)
        method = (response.reflection.method if response.reflection
                  else methods[index] if index < len(methods) else b"GET")
        codings, lengths = response.field(b"transfer-encoding"), response.field(b"content-length")
        if method == b"HEAD" or status in (204, 304):
            stop = start
        elif codings:
            if codings[-1].lower().split(b",")[-1].strip() != b"chunked" or lengths:
                found.malformed = f"framing fields {codings + lengths!r}"
                return found
            stop = _chunked_end(data, start)
            if stop == -2:
                found.malformed = "invalid chunked content"
                return found
        elif lengths:
            if len(set(lengths)) != 1 or not lengths[0].isdigit():
                found.malformed = f"Content-Length {lengths!r}"
                return found
            stop = start + int(lengths[0])
            if stop > len(data):
                stop = -1
        else:
            found.to_close = True
            stop = len(data) if closed else -1
        if stop < 0:
            found.partial = True
            return found
        response.body, response.end = data[start:stop], stop
        found.responses.append(response)
        pos = stop
    return found


def _reflection(values: list[bytes]) -> Reflection | None:
    """An answer's X-Reflect (reflection.py reads it), None where it has none or not one of five fields."""
    if len(values) != 1:
        return None
    try:
        return parse_header(values[0].decode("latin-1"))
    except NotAReflection:
        return None


def _chunked_end(data: bytes, pos: int) -> int:
    """The offset after a chunked content at pos; -1 where it is not complete, -2 where it is invalid."""
    while True:
        end = data.find(b"\r\n", pos)
        if end < 0:
            return -1
        size_text = data[pos:end].split(b";")[0].strip()
        if not re.fullmatch(rb"[0-9A-Fa-f]{1,16}", size_text):
            return -2
        size = int(size_text, 16)
        pos = end + 2
        if size == 0:
            end = data.find(b"\r\n\r\n", pos - 2)
            return end + 4 if end >= 0 else -1
        pos += size + 2
        if pos > len(data):
            return -1


@dataclass
class Observation:
    """What one connection showed."""

    stream: Stream = field(default_factory=Stream)
    state: str = ""  # CLOSED, KEPT (the probe answered), HELD (neither answered nor closed)
    closed_before_probe: bool = False  # the server closed before the probe was written
    closed_after_eof: bool = False  # the server closed only once our EOF came (it still read when we ended)
    stalled: bool = False  # fewer answers than awaited by the deadline, the connection neither answered nor closed
    probed: bool = False
    data: bytes = b""
    connect_error: str = ""

    @property
    def responses(self) -> list[Response]:
        return self.stream.responses


def observe(port: int, parts: tuple[bytes, ...], awaited: int, methods: list[bytes], probe: bytes | None,
            probe_answered, host: str = "127.0.0.1") -> Observation:
    """Write the parts, read `awaited` answers, then probe (None: end our side instead). probe_answered(response)
    tells the probe's own answer; methods: the request methods by position, for answers without X-Reflect."""
    seen = Observation()
    try:
        sock = socket.create_connection((host, port), timeout=DEADLINE_S)
    except OSError as exc:
        seen.connect_error = type(exc).__name__
        return seen
    data = bytearray()
    marks: list[int] = []  # len(data) when each part was written
    probe_mark = -1
    closed = False

    def read(until: float, enough) -> None:
        nonlocal closed
        while not closed and time.monotonic() < until and not enough():
            sock.settimeout(max(0.005, until - time.monotonic()))
            try:
                block = sock.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                block = b""
            if not block:
                closed = True
                return
            data.extend(block)

    def stream() -> Stream:
        return responses(bytes(data), methods, closed)

    def settled(stream_: Stream) -> bool:
        return bool(stream_.switched or stream_.malformed)

    try:
        for index, part in enumerate(parts):
            if index:
                read(time.monotonic() + PAUSE_S, lambda: False)
            marks.append(len(data))
            try:
                sock.sendall(part)
            except OSError:
                closed = True  # it stopped reading: what it said is in data
                break
        read(time.monotonic() + DEADLINE_S, lambda: (lambda s: settled(s) or (
            len(s.responses) >= awaited and not s.partial))(stream()))
        current = stream()
        seen.closed_before_probe = closed
        if not closed and not settled(current):
            seen.stalled = len(current.responses) < awaited or current.partial
            if probe is None:
                _shutdown(sock)
                read(time.monotonic() + DEADLINE_S, lambda: False)
            else:
                seen.probed = True
                probe_mark = len(data)
                try:
                    sock.sendall(probe)
                except OSError:
                    closed = True
                def probe_done() -> bool:
                    found = stream()
                    return settled(found) or any(r.end > probe_mark and probe_answered(r) for r in found.responses)

                read(time.monotonic() + PROBE_QUICK_S, probe_done)
                if not closed and not probe_done():
                    # Neither an answer nor EOF at once: our EOF ends a lingering close at once, and a server that
                    # kept the connection still answers the probe before it sees the EOF.
                    _shutdown(sock)
                    read(time.monotonic() + PROBE_S, probe_done)
                    seen.closed_after_eof = closed
    finally:
        sock.close()
    seen.data = bytes(data)
    seen.stream = stream()
    for response in seen.stream.responses:
        response.parts_before = sum(1 for mark in marks if mark < response.end)
        response.after_probe = 0 <= probe_mark < response.end
    answered = any(r.after_probe and probe_answered(r) for r in seen.stream.responses)
    seen.state = KEPT if answered else CLOSED if closed else HELD
    return seen


def _shutdown(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_WR)
    except OSError:
        pass
