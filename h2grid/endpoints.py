"""The HTTP/2 endpoints of the grid: one per server, interpreter and mode (h2 over TLS by ALPN, h2c by
prior knowledge), each run on the server's parser owner (catalog.parser_owner): HTTP/2 framing, HPACK and
the stream state machine are the server's, never the app's, so one entry stands for every stack of it.

Which servers speak h2, in which modes, and which of those modes need the entries' --http2, is the server's
fact: its spec's Http2 (servers/core/specs.py). The grid takes every mode a server serves (an h2c upgrade needs
an HTTP/1.1 request first: not a grid mode), started the way it serves it: with no flag where its docs serve it
by default (Hypercorn, granian's `--http auto`, twisted.web over TLS with h2 installed, Go's ServeTLS), with
--http2 where the server's own setting turns it on (gunicorn's gthread, gevent and ASGI workers' http_protocols,
uvicorn's zttp, Go's cleartext Protocols). tests/test_h2grid_run.py checks each speaks h2 as declared.
The libraries a record keeps the versions of are the server's distribution and its Http2.packages, with the Rust
crates LIBRARIES names in that distribution (Go: the toolchain).
"""
from __future__ import annotations

from dataclasses import dataclass

from servers.core import catalog, interpreters
from servers.core.specs import ALPN, GO, PRIOR_KNOWLEDGE, ServerSpec


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
    flagged: frozenset[str]  # the modes (names) it serves only when started with --http2


_MODE_OF = {ALPN: H2, PRIOR_KNOWLEDGE: H2C}


def _libraries(server: ServerSpec) -> tuple[str, ...]:
    if server.interface == GO:
        return ("go",)
    distribution = server.pip_packages[0]
    for dist in (distribution, *server.http2.packages):  # a Python distribution is its own version's source
        LIBRARIES.setdefault(dist, (dist, f"dist:{dist}"))
    crates = [key for key, (_, source) in LIBRARIES.items() if source.startswith(f"crate:{distribution}:")]
    return (distribution, *server.http2.packages, *crates)


def _speaks() -> dict[str, Speaks]:
    """server name -> how it speaks h2 (its spec's Http2), for the servers that do."""
    found = {}
    for server in catalog.SERVERS.values():
        modes = tuple(_MODE_OF[m] for m in (ALPN, PRIOR_KNOWLEDGE) if m in server.http2.modes)
        if modes:
            flagged = frozenset(_MODE_OF[m].name for m in server.http2.flag_adds if m in _MODE_OF)
            found[server.name] = Speaks(modes, _libraries(server), flagged)
    return found


# The HTTP/2 libraries: key -> (what it is, where its version comes from: a Python distribution, a Rust crate
# compiled into a distribution's extension, or the Go toolchain whose net/http bundles its HTTP/2). A crate is
# named here, not in the server's spec: a distribution's metadata cannot name what its extension compiled in. A
# server's distribution and its Http2.packages need no line (_libraries adds them, titled by their name): a line
# here gives one a title of its own.
LIBRARIES: dict[str, tuple[str, str]] = {
    "hypercorn": ("Hypercorn", "dist:hypercorn"),
    "gunicorn": ("gunicorn (gunicorn/http2)", "dist:gunicorn"),
    "uvicorn": ("uvicorn (its zttp protocols)", "dist:uvicorn"),
    "zttp": ("zttp (its Zig H2Connection)", "dist:zttp"),
    "h2": ("python-hyper's h2", "dist:h2"),
    "hpack": ("python-hyper's hpack", "dist:hpack"),
    "hyperframe": ("python-hyper's hyperframe", "dist:hyperframe"),
    "priority": ("python-hyper's priority", "dist:priority"),
    "twisted": ("Twisted (twisted.web._http2)", "dist:twisted"),
    "granian": ("granian", "dist:granian"),
    "h2-rust": ("the h2 crate (hyperium/h2), in granian", "crate:granian:h2"),
    "hyper-rust": ("hyper, in granian", "crate:granian:hyper"),
    "go": ("Go's net/http (its bundled HTTP/2)", "go"),
}

SPEAKS_H2: dict[str, Speaks] = _speaks()


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

    @property
    def flags(self) -> tuple[str, ...]:
        """What the entry is started with for this mode beyond its port: --http2 where the server needs it."""
        return ("--http2",) if self.mode.name in SPEAKS_H2[self.server].flagged else ()


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
