"""The versions of an endpoint's HTTP/2 libraries (endpoints.LIBRARIES): a Python distribution's from its
metadata (on the entry's interpreter), a Rust crate's from the paths its compiled extension keeps
(`h2-0.4.20/src/...` in granian's panic messages: the crate versions built in), Go's from the toolchain.
"""
from __future__ import annotations

import functools
import re
from importlib import metadata
from pathlib import Path

from harness import versions as harness_versions
from h2grid.endpoints import LIBRARIES, Endpoint, libraries_of
from servers.core import catalog, interpreters


def _installed(distribution: str, venv: Path | None) -> metadata.Distribution:
    if venv is None:
        return metadata.distribution(distribution)
    path = [str(p) for p in venv.glob("lib/python*/site-packages")]
    for found in metadata.distributions(name=distribution, path=path):
        return found
    raise metadata.PackageNotFoundError(distribution)


@functools.lru_cache(maxsize=None)
def crates_in(distribution: str, venv: Path | None = None) -> dict[str, str]:
    """Rust crate -> version, read off the compiled extension modules of a distribution installed here (or in the
    virtualenv given: 3.13t's granian is another release than this interpreter's)."""
    try:
        files = _installed(distribution, venv).files or []
    except metadata.PackageNotFoundError:
        return {}
    found: dict[str, str] = {}
    for file in files:
        if file.suffix != ".so":
            continue
        data = Path(file.locate()).read_bytes()
        for name, version in re.findall(rb"/([a-z][a-z0-9_-]*?)-(\d+\.\d+\.\d+)/src/", data):
            found.setdefault(name.decode(), version.decode())
    return found


def of(endpoint: Endpoint) -> dict[str, str]:
    """The entry's versions with its server's HTTP/2 framing packages (harness.versions, asked of the entry's own
    interpreter: the distributions of LIBRARIES, Go's toolchain), and the Rust crates compiled into its server."""
    entry = catalog.get(endpoint.entry)
    found = dict(harness_versions.for_entry(endpoint.entry, http2=True))
    venv = interpreters.get(entry.interpreter).venv  # 3.13t's granian is another release than this interpreter's
    for library in libraries_of(entry.server):
        kind, _, rest = LIBRARIES[library][1].partition(":")
        if kind == "crate":
            distribution, _, crate = rest.partition(":")
            version = crates_in(distribution, venv).get(crate)
            if version:
                found[library] = version
    return found
