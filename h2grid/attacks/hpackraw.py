"""Header blocks written by hand (RFC 7541), for the probes that need what an encoder would never emit or
that must know exactly what the server's dynamic table holds: a request from the static table alone,
literal fields with and without indexing, a reference to the newest dynamic entry.
"""
from __future__ import annotations

from hpack.hpack import encode_integer

from h2grid.wire import RawConnection

NEWEST = bytes([0x80 | 62])  # indexed field: the newest entry of the dynamic table (RFC 7541 section 2.3.3)
_METHODS = {"GET": 0x82, "POST": 0x83}  # static table entries 2 and 3
_PATH_ROOT = 0x84  # :path /
_SCHEMES = {"http": 0x86, "https": 0x87}


def _string(data: bytes) -> bytes:
    return bytes(encode_integer(len(data), 7)) + data


def literal(name: bytes, value: bytes, indexing: bool = False) -> bytes:
    """A literal field with a literal name: with incremental indexing (added to the dynamic table) or without."""
    return bytes([0x40 if indexing else 0x00]) + _string(name) + _string(value)


def request(conn: RawConnection, method: str = "GET", path: str = "/") -> bytes:
    """A request's pseudo-header fields, changing nothing in the server's dynamic table."""
    block = bytes([_METHODS[method], _SCHEMES["https" if conn.tls else "http"]])
    if path == "/":
        block += bytes([_PATH_ROOT])
    else:  # literal without indexing, indexed name :path (static entry 4)
        block += bytes(encode_integer(4, 4)) + _string(path.encode())
    return block + bytes(encode_integer(1, 4)) + _string(conn.authority.encode())  # :authority, static entry 1
