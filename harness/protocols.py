"""The protocols a stack is measured on: one axis of the benchmark (`bench.sh --protocol h1,h1-tls,h2,h2c`) and
of the anatomy (`--protocol`).

h1 is HTTP/1.1 in plaintext; h1-tls is HTTP/1.1 over TLS, terminated by the stack's own server (its spec's Tls)
with the suite's local pair (harness.tls); h2 is HTTP/2 over that TLS, chosen by ALPN; h2c is HTTP/2 in cleartext
by prior knowledge (the connection opens with the client preface). A protocol says what the entry is started
with (its --certfile/--keyfile, and --http2 for HTTP/2: the entries' one flag, which changes nothing on a server
that serves HTTP/2 by default) and how a client reaches it; the load tools say which protocols they speak
(loadtools.base.Tool.protocols); the server's spec (Tls, Http2) says which it can serve, and why not.
"""
from __future__ import annotations

from dataclasses import dataclass

from harness import tls
from servers.core.catalog import Entry
from servers.core.specs import ALPN, PRIOR_KNOWLEDGE


@dataclass(frozen=True)
class Protocol:
    name: str  # a result's `protocol`, the report's axis
    title: str
    tls: bool  # the entry serves HTTPS with the suite's pair, and clients trust its CA
    http2: bool = False  # the client speaks HTTP/2 (over TLS by ALPN, else by prior knowledge)

    @property
    def scheme(self) -> str:
        return "https" if self.tls else "http"

    @property
    def http2_mode(self) -> str:
        """The server's Http2 mode this protocol needs ("" for HTTP/1.1)."""
        return (ALPN if self.tls else PRIOR_KNOWLEDGE) if self.http2 else ""

    def server_flags(self) -> list[str]:
        """The flags that make an entry serve this protocol (the pair is made on first use)."""
        return [*(tls.ensure().server_flags() if self.tls else []), *(["--http2"] if self.http2 else [])]

    def ca_file(self) -> str:
        """The CA a client of this protocol trusts ("" in plaintext)."""
        return str(tls.ensure().ca) if self.tls else ""

    def unsupported(self, entry: Entry) -> str:
        """Why entry cannot serve this protocol ("" when it can): its server's spec says."""
        if self.tls and not entry.tls.terminates:
            return entry.tls.cannot
        if self.http2 and not entry.http2.speaks:
            return entry.http2.cannot
        if self.http2 and self.http2_mode not in entry.http2.modes:
            how = "over TLS by ALPN" if self.tls else "in cleartext by prior knowledge"
            return f"{entry.server} serves no HTTP/2 {how}: {entry.http2.missing}"
        return ""


H1 = Protocol("h1", "HTTP/1.1 in plaintext", tls=False)
H1_TLS = Protocol("h1-tls", "HTTP/1.1 over TLS (the server's own)", tls=True)
H2 = Protocol("h2", "HTTP/2 over TLS, by ALPN (the server's own)", tls=True, http2=True)
H2C = Protocol("h2c", "HTTP/2 in cleartext, by prior knowledge", tls=False, http2=True)
PROTOCOLS: dict[str, Protocol] = {p.name: p for p in (H1, H1_TLS, H2, H2C)}
DEFAULT = H1.name


def get(name: str) -> Protocol:
    try:
        return PROTOCOLS[name]
    except KeyError:
        raise KeyError(f"unknown protocol {name!r}; one of {', '.join(PROTOCOLS)}") from None
