"""The HTTP/2 endpoints of the grid: one per server, interpreter and mode (h2 over TLS by ALPN, h2c by
prior knowledge), each run on the server's parser owner (catalog.parser_owner): HTTP/2 framing, HPACK and
the stream state machine are the server's, never the app's, so one entry stands for every stack of it.

Which servers speak h2, and in which modes, is the server's fact: its spec's Http2 (servers/core/specs.py).
The grid takes the modes each serves with no flag at all (`Http2.default`), as a deployment left as its docs
configure it does; tests/test_h2grid_run.py checks them on the installed versions (an ALPN offer of h2 and
http/1.1 on its HTTPS port, a client preface on its plain port): Hypercorn and granian (its default
`--http auto`) in both modes, twisted.web over TLS (with h2 and priority installed), Go's net/http over TLS
(ServeTLS's bundled HTTP/2). The servers whose HTTP/2 is behind --http2 (gunicorn's gthread, gevent and ASGI
workers, uvicorn's zttp) are not in the grid yet.
"""
from __future__ import annotations

from dataclasses import dataclass

from servers.core import catalog, interpreters
from servers.core.specs import ALPN, PRIOR_KNOWLEDGE


@dataclass(frozen=True)
class Mode:
    name: str  # a record's and a test id's key
    title: str
    tls: bool  # HTTPS with the suite's pair (harness.tls) and ALPN h2; else cleartext prior knowledge

    @property
    def scheme(self) -> str:
        return "https" if self.tls else "http"


H2 = Mode("h2", "HTTP/2 over TLS (ALPN h2)", tls=True)
H2C = Mode("h2c", "HTTP/2 in cleartext (prior knowledge)", tls=False)
MODES: dict[str, Mode] = {m.name: m for m in (H2, H2C)}



@dataclass(frozen=True)
class Speaks:
    """How a server speaks HTTP/2: its modes, and the libraries its HTTP/2 is made of (keys of LIBRARIES), whose
    versions a record keeps and whose upstream fixes the docs put beside each attack's outcome."""

    modes: tuple[Mode, ...]
    libraries: tuple[str, ...]


# Which libraries' versions a record keeps for each server's HTTP/2 (keys of LIBRARIES, below): granian's come
# from the Rust crates compiled into it, which its spec's Http2.packages (Python distributions) cannot name.
_HYPER_RUST = ("granian", "h2-rust", "hyper")
_PYTHON_H2 = ("h2", "hpack", "priority")
_VERSIONED = {"hypercorn": ("hypercorn", *_PYTHON_H2), "granian-wsgi": _HYPER_RUST, "granian-asgi": _HYPER_RUST,
              "granian-rsgi": _HYPER_RUST, "twisted": ("twisted", *_PYTHON_H2), "twisted-wsgi": ("twisted", *_PYTHON_H2),
              "net/http": ("go",)}
_MODE_OF = {ALPN: H2, PRIOR_KNOWLEDGE: H2C}  # an h2c upgrade needs an HTTP/1.1 request first: not a grid mode


def _speaks() -> dict[str, Speaks]:
    """server name -> how it speaks h2 with no flag (its spec's Http2.default), for the servers that do."""
    found = {}
    for server in catalog.SERVERS.values():
        modes = tuple(_MODE_OF[m] for m in (ALPN, PRIOR_KNOWLEDGE) if m in server.http2.default)
        if modes:
            found[server.name] = Speaks(modes, _VERSIONED[server.name])
    return found


SPEAKS_H2: dict[str, Speaks] = _speaks()

# The HTTP/2 libraries: key -> (what it is, where its version comes from: a Python distribution, a Rust crate
# compiled into a distribution's extension, or the Go toolchain whose net/http bundles its HTTP/2).
LIBRARIES: dict[str, tuple[str, str]] = {
    "hypercorn": ("Hypercorn", "dist:hypercorn"),
    "h2": ("python-hyper's h2", "dist:h2"),
    "hpack": ("python-hyper's hpack", "dist:hpack"),
    "priority": ("python-hyper's priority", "dist:priority"),
    "twisted": ("Twisted (twisted.web._http2)", "dist:twisted"),
    "granian": ("granian", "dist:granian"),
    "h2-rust": ("the h2 crate (hyperium/h2), in granian", "crate:granian:h2"),
    "hyper": ("hyper, in granian", "crate:granian:hyper"),
    "go": ("Go's net/http (its bundled HTTP/2)", "go"),
}


@dataclass(frozen=True)
class Endpoint:
    entry: str  # the server's parser owner on one interpreter
    mode: Mode

    @property
    def id(self) -> str:
        return f"{self.entry}-{self.mode.name}"

    @property
    def server(self) -> str:
        return catalog.get(self.entry).server


def modes_of(server: str) -> tuple[Mode, ...]:
    speaks = SPEAKS_H2.get(server)
    return speaks.modes if speaks else ()


def libraries_of(server: str) -> tuple[str, ...]:
    speaks = SPEAKS_H2.get(server)
    return speaks.libraries if speaks else ()


def endpoints() -> list[Endpoint]:
    """Every endpoint, in catalog order: the parser owner of each server and interpreter, in each of its modes."""
    owners: dict[str, catalog.Entry] = {}
    for entry in catalog.ENTRIES:
        if modes_of(entry.server):
            owner = catalog.parser_owner(entry)
            owners.setdefault(owner.name, owner)
    return [Endpoint(name, mode) for name, owner in owners.items() for mode in modes_of(owner.server)]


def available(endpoint: Endpoint) -> str:
    """Why the endpoint cannot run on this machine ("" when it can)."""
    entry = catalog.get(endpoint.entry)
    if entry.free_threaded and not interpreters.available(interpreters.FREE_THREADED):
        return f"free-threaded CPython 3.13t is not set up ({interpreters.SETUP_HINT})"
    return ""


def get(endpoint_id: str) -> Endpoint:
    for endpoint in endpoints():
        if endpoint.id == endpoint_id:
            return endpoint
    raise KeyError(f"no HTTP/2 endpoint {endpoint_id!r}; one of {', '.join(e.id for e in endpoints())}")
