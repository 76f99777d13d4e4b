"""The protocols a stack is measured on: one axis of the benchmark (`bench.sh --protocol h1,h1-tls`) and of
the anatomy (`--protocol`).

h1 is HTTP/1.1 in plaintext; h1-tls is HTTP/1.1 over TLS, terminated by the stack's own server (its
spec's Tls) with the suite's local pair (harness.tls). A protocol says what the entry is started with
and how a client reaches it; the load tools say which protocols they speak (loadtools.base.Tool.protocols).
HTTP/2 joins as two more entries of PROTOCOLS (h2 over TLS by ALPN, h2c in cleartext).
"""
from __future__ import annotations

from dataclasses import dataclass

from harness import tls
from servers.core.catalog import Entry


@dataclass(frozen=True)
class Protocol:
    name: str  # a result's `protocol`, the report's axis
    title: str
    tls: bool  # the entry serves HTTPS with the suite's pair, and clients trust its CA

    @property
    def scheme(self) -> str:
        return "https" if self.tls else "http"

    def server_flags(self) -> list[str]:
        """The flags that make an entry serve this protocol (the pair is made on first use)."""
        return tls.ensure().server_flags() if self.tls else []

    def ca_file(self) -> str:
        """The CA a client of this protocol trusts ("" in plaintext)."""
        return str(tls.ensure().ca) if self.tls else ""

    def unsupported(self, entry: Entry) -> str:
        """Why entry cannot serve this protocol ("" when it can): its server's spec says."""
        if self.tls and not entry.tls.terminates:
            return entry.tls.cannot
        return ""


H1 = Protocol("h1", "HTTP/1.1 in plaintext", tls=False)
H1_TLS = Protocol("h1-tls", "HTTP/1.1 over TLS (the server's own)", tls=True)
PROTOCOLS: dict[str, Protocol] = {p.name: p for p in (H1, H1_TLS)}
DEFAULT = H1.name


def get(name: str) -> Protocol:
    try:
        return PROTOCOLS[name]
    except KeyError:
        raise KeyError(f"unknown protocol {name!r}; one of {', '.join(PROTOCOLS)}") from None
