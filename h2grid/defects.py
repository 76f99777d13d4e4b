"""The upstream-reportable defects the grid found, each with its minimal reproduction, the version it was found
on and the RFC section, and a check that it still shows (the tests run every check: a defect fixed upstream
fails its test, and then this entry and its caveat go). docs/http2-grid.md lists them.

A reproduction is either a few lines of Python on the library alone, or frames as bytes sent after the client
preface and an empty SETTINGS frame to an endpoint of the grid (`wire`: what the check sends).
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from hyperframe.frame import ContinuationFrame, Frame, GoAwayFrame

from h2grid.wire import PREFACE, Closed, RawConnection, error_name

SETTINGS_EMPTY = bytes.fromhex("000000040000000000")
SETTINGS_ACK = bytes.fromhex("000000040100000000")


@dataclass(frozen=True)
class Defect:
    key: str
    title: str
    library: str  # a key of endpoints.LIBRARIES
    found_on: str  # the versions it was found on
    rfc: str
    what: str  # what happens, and what the RFC asks
    reproduction: str  # the Python lines, or the frames in hex, as the docs show them
    check: Callable[..., str]  # "" when it no longer shows; else what showed (wire checks take port, tls, ca_file, pid)
    endpoint: str = ""  # the grid endpoint a wire reproduction runs against ("" : the library alone)


# -- python-hyper's priority: an exclusive reprioritization under a descendant corrupts the tree ---------

PRIORITY_STEPS = ((1, 3), (3, 5), (5, 3), (1, 5), (3, 1))


def priority_loop() -> str:
    import priority

    tree = priority.PriorityTree()
    for stream in (1, 3, 5):
        tree.insert_stream(stream)
    try:
        for stream, parent in PRIORITY_STEPS:
            tree.reprioritize(stream, depends_on=parent, exclusive=True)
    except priority.PriorityLoop as exc:
        return f"PriorityLoop at reprioritize({stream}, depends_on={parent}): {exc}"
    return ""


def _priority_frames() -> bytes:
    from hyperframe.frame import PriorityFrame

    frames = b"".join(PriorityFrame(s, depends_on=0, stream_weight=15).serialize() for s in (1, 3, 5))
    return frames + b"".join(PriorityFrame(s, depends_on=p, stream_weight=15, exclusive=True).serialize()
                             for s, p in PRIORITY_STEPS)


def hypercorn_priority_drop(port: int, tls: bool, ca_file: str = "", pid: int = 0) -> str:
    conn = RawConnection("127.0.0.1", port, tls, ca_file)
    try:
        conn.send(PREFACE + SETTINGS_EMPTY + _priority_frames())
        started = time.monotonic()
        while time.monotonic() - started < 5:
            conn.read_available(wait=0.5)
    except Closed:
        if not conn.received.goaway:
            return "the connection was dropped without a GOAWAY after valid PRIORITY frames"
    finally:
        conn.close()
    return ""


# -- python-hyper's h2: an HPACK decoding error is a GOAWAY PROTOCOL_ERROR, not COMPRESSION_ERROR ---------

def h2_compression_error_code() -> str:
    import h2.config
    import h2.connection
    import h2.exceptions

    server = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False))
    server.initiate_connection()
    server.data_to_send()
    try:
        server.receive_data(PREFACE + SETTINGS_EMPTY + bytes.fromhex("000001010500000001") + b"\x80")
    except h2.exceptions.ProtocolError:
        pass
    data = server.data_to_send()
    while data:
        frame, length = Frame.parse_frame_header(memoryview(data[:9]))
        if isinstance(frame, GoAwayFrame):
            frame.parse_body(memoryview(data[9:9 + length]))
            code = error_name(frame.error_code)
            return "" if code == "COMPRESSION_ERROR" else f"GOAWAY {code} for an HPACK decoding error"
        data = data[9 + length:]
    return "no GOAWAY for an HPACK decoding error"


# -- Twisted: after the GOAWAY of a connection error the connection stays open ------------------------------

TWISTED_WAIT_S = 10.0
TWISTED_FRAME = bytes.fromhex("000006060000000001000000000000")  # PING of 6 octets on stream 1: a connection error


def twisted_open_after_goaway(port: int, tls: bool, ca_file: str = "", pid: int = 0) -> str:
    conn = RawConnection("127.0.0.1", port, tls, ca_file)
    try:
        conn.send(PREFACE + SETTINGS_EMPTY)
        conn.read_available(wait=1.0)
        conn.send(SETTINGS_ACK + TWISTED_FRAME)
        started = time.monotonic()
        while time.monotonic() - started < TWISTED_WAIT_S:
            conn.read_available(wait=0.5)
    except Closed:
        return ""
    finally:
        conn.close()
    if not conn.received.goaway:
        return ""
    return f"GOAWAY {conn.received.goaway} sent, and the connection still open {TWISTED_WAIT_S:g} s later"


# -- Twisted and h2: bytes sent after the connection error are buffered without end --------------------------

CONTINUATION_BYTES = 64 << 20
GROWTH_SHOWN_MIB = 32


def h2_buffers_after_error() -> str:
    import h2.config
    import h2.connection
    import h2.exceptions

    from h2grid.attacks.continuation_flood import FRAGMENT

    server = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False))
    server.initiate_connection()
    headers = bytes.fromhex("000003010100000001") + b"\x82\x86\x84"  # END_STREAM, no END_HEADERS
    continuation = ContinuationFrame(1, FRAGMENT).serialize()
    try:
        server.receive_data(PREFACE + SETTINGS_EMPTY + headers + continuation * 100)
    except h2.exceptions.ProtocolError:
        pass
    before = len(server.incoming_buffer._data)
    for _ in range(100):
        try:
            server.receive_data(continuation * 4)
        except h2.exceptions.ProtocolError:
            pass
    grown = len(server.incoming_buffer._data) - before
    return f"{grown:,} more bytes buffered by 100 receive_data calls after the connection error" if grown > 1 << 20 else ""


def twisted_continuation_memory(port: int, tls: bool, ca_file: str = "", pid: int = 0) -> str:
    import psutil

    from h2grid.attacks.continuation_flood import FRAGMENT
    from h2grid.sampler import measure

    root = psutil.Process(pid)
    before = measure(root).rss
    conn = RawConnection("127.0.0.1", port, tls, ca_file)
    continuation = ContinuationFrame(1, FRAGMENT).serialize()
    try:
        conn.send(PREFACE + SETTINGS_EMPTY + bytes.fromhex("000003010100000001") + b"\x82\x86\x84")
        conn.sock.settimeout(10)
        conn.send(continuation * (CONTINUATION_BYTES // len(continuation)))
        time.sleep(1.0)
        grown = (measure(root).rss - before) / 2**20
    except Closed:
        return ""
    finally:
        conn.close()
    return f"RSS +{grown:.0f} MiB for {CONTINUATION_BYTES >> 20} MiB of CONTINUATION frames on one connection" \
        if grown > GROWTH_SHOWN_MIB else ""


# -- granian: an invalid preface on a connection that chose h2 by ALPN gets an HTTP/1.1 answer -------------

INVALID_PREFACE = b"INVALID CONNECTION PREFACE\r\n\r\n"


def granian_http1_on_h2(port: int, tls: bool, ca_file: str = "", pid: int = 0) -> str:
    conn = RawConnection("127.0.0.1", port, tls, ca_file)  # ALPN h2, or the check refuses
    raw = bytearray()
    conn._take = raw.extend  # the raw bytes: the answer is not HTTP/2
    try:
        conn.send(INVALID_PREFACE)
        conn.read_available(wait=2.0)
    except Closed:
        pass
    finally:
        conn.close()
    return f"answered {bytes(raw[:40])!r} on a connection that selected h2" if raw.startswith(b"HTTP/1.1") else ""


DEFECTS: tuple[Defect, ...] = (
    Defect("priority-exclusive-loop", "An exclusive reprioritization under one of the stream's own dependents "
           "corrupts the tree", "priority", "priority 1.3.0 (installed; twisted[http2] pins <2) and 2.0.0 (its latest, "
           "2021)", "RFC 7540 section 5.3.3",
           "Made an exclusive dependent of its own dependent, stream 5 ends up with stream 1 as its child twice; the "
           "next exclusive move makes stream 1 its own parent, and the one after raises PriorityLoop: a tree of "
           "valid PRIORITY frames the library cannot hold. RFC 7540 section 5.3.3 says the dependent is first moved "
           "to the stream's former parent (RFC 9113 section 5.3.2 deprecates the scheme; a server that keeps it must "
           "still not corrupt it).",
           "import priority\ntree = priority.PriorityTree()\nfor s in (1, 3, 5):\n    tree.insert_stream(s)\n"
           "for stream, parent in ((1, 3), (3, 5), (5, 3), (1, 5), (3, 1)):\n"
           "    tree.reprioritize(stream, depends_on=parent, exclusive=True)  # the last raises PriorityLoop",
           lambda: priority_loop()),
    Defect("hypercorn-priority-drop", "Valid PRIORITY frames drop the connection, with a traceback in the log",
           "hypercorn", "Hypercorn 0.18.0 (priority 1.3.0)", "RFC 9113 sections 5.3.2 and 5.4.1",
           "The frames of the priority defect above reach H2Protocol._priority_updated, which catches only "
           "MissingStreamError: PriorityLoop ends the connection's task, the connection is dropped without a "
           "GOAWAY and the worker logs a traceback holding the raw bytes read. RFC 9113 lets a server ignore "
           "PRIORITY frames (section 5.3.2); ending a connection is a connection error, which is a GOAWAY first "
           "(section 5.4.1). Each such connection costs a logged traceback: a cheap way to fill a log.",
           "after the preface and SETTINGS, over h2c or h2:\n" + _priority_frames().hex(),
           hypercorn_priority_drop, endpoint="bare_asgi_hypercorn-h2c"),
    Defect("h2-compression-error-code", "An HPACK decoding error is answered with PROTOCOL_ERROR, not "
           "COMPRESSION_ERROR", "h2", "h2 4.4.1 (hpack 4.2.0)", "RFC 9113 section 4.3",
           "A field block that does not decode (an indexed field of index 0, RFC 7541 section 6.1) makes "
           "h2.connection._decode_headers raise ProtocolError, whose GOAWAY carries PROTOCOL_ERROR; RFC 9113 "
           "section 4.3 says a decoding error is a connection error of type COMPRESSION_ERROR. Hypercorn hides it "
           "(it closes at once, which h2spec accepts); on Twisted, which does not close (below), h2spec's seven "
           "hpack cases and http2/4.3/1 fail for it.",
           "import h2.connection, h2.config\nserver = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False))\n"
           "server.initiate_connection(); server.data_to_send()\n"
           "server.receive_data(b'PRI * HTTP/2.0\\r\\n\\r\\nSM\\r\\n\\r\\n' + bytes.fromhex('000000040000000000'\n"
           "                    '000001010500000001' '80'))  # raises ProtocolError\n"
           "server.data_to_send()  # GOAWAY with error code 0x1 (PROTOCOL_ERROR), not 0x9",
           lambda: h2_compression_error_code()),
    Defect("twisted-open-after-goaway", "After the GOAWAY of a connection error the connection stays open",
           "twisted", "Twisted 26.10.0 (h2 4.4.1)", "RFC 9113 section 5.4.1",
           "A frame that is a connection error gets its GOAWAY, but twisted.web._http2.H2Connection._terminate's "
           "loseConnection leaves the TLS connection open: it closed 75 s later here, when the connection's timers "
           "(the 60 s idle timeout, then the 15 s abort) ended it: RFC 9113 section 5.4.1 says the endpoint MUST close the TCP connection after the GOAWAY "
           "of an error. h2spec counts 15 cases as timeouts for it; a client that errs holds its connection.",
           "over TLS (ALPN h2), after the preface, SETTINGS and the ACK of the server's SETTINGS:\n"
           + TWISTED_FRAME.hex() + "  (a PING of 6 octets on stream 1)", twisted_open_after_goaway,
           endpoint="bare_twisted-h2"),
    Defect("h2-buffers-after-error", "After its connection error, every byte given to receive_data is buffered",
           "h2", "h2 4.4.1", "RFC 9113 section 10.5",
           "Once a connection error has been raised (here the 65th CONTINUATION frame of one header block), each "
           "later receive_data() appends its bytes to the frame buffer and raises the same error again without "
           "draining it: a server that keeps reading (Twisted, below) keeps everything the client sends. h2 could "
           "refuse data once its connection is closed.",
           "import h2.connection, h2.config\nfrom hyperframe.frame import ContinuationFrame\n"
           "server = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False)); server.initiate_connection()\n"
           "cont = ContinuationFrame(1, b'\\x00\\x01a\\x01b' * 3000).serialize()\n"
           "try: server.receive_data(b'PRI * HTTP/2.0\\r\\n\\r\\nSM\\r\\n\\r\\n' + bytes.fromhex('000000040000000000'\n"
           "                         '000003010100000001' '828684') + cont * 100)\nexcept Exception as e: print(e)  # Too many continuation frames\n"
           "for _ in range(100):\n    try: server.receive_data(cont * 4)\n    except Exception: pass\n"
           "print(len(server.incoming_buffer._data))  # grows by every call's bytes",
           lambda: h2_buffers_after_error()),
    Defect("twisted-continuation-memory", "A CONTINUATION flood grows the worker's memory without bound",
           "twisted", "Twisted 26.10.0 (h2 4.4.1)", "RFC 9113 sections 5.4.1 and 10.5",
           "h2 ends the header block at its 65th CONTINUATION frame with a connection error and Twisted sends the "
           "GOAWAY, but keeps the connection open and reading (the defect above), and h2 buffers everything read "
           "after its error (the one before): the worker's RSS grows with every byte the client sends. The grid's "
           "CONTINUATION probe grew twisted's RSS by hundreds of MiB in 3 s on one connection.",
           "over TLS (ALPN h2), after the preface and SETTINGS: a HEADERS frame without END_HEADERS, "
           "000003010100000001828684, then CONTINUATION frames of stream 1 (type 0x9), 16 KiB each, without end",
           twisted_continuation_memory, endpoint="bare_twisted-h2"),
    Defect("granian-http1-on-h2", "An invalid preface on a connection that chose h2 by ALPN gets an HTTP/1.1 answer",
           "granian", "granian 2.8.9 (hyper 1.12.0, h2 0.4.20)", "RFC 9113 section 3.4",
           "With h2 selected by ALPN, bytes that are not the client preface are answered as an HTTP/1.1 request "
           "(400) instead of being a connection error: the server guesses the protocol from the bytes where TLS "
           "has already settled it (h2spec http2/3.5/2). On the cleartext port, which serves HTTP/1.1 and h2c "
           "alike, the same answer is expected.",
           "over TLS (ALPN h2), instead of the preface:\n" + INVALID_PREFACE.hex(), granian_http1_on_h2,
           endpoint="bare_granian-h2"),
)
