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
from servers.core import catalog


@functools.lru_cache(maxsize=None)
def crates_in(distribution: str) -> dict[str, str]:
    """Rust crate -> version, read off the compiled extension modules of an installed distribution."""
    try:
        files = metadata.distribution(distribution).files or []
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
    """The entry's versions (harness.versions) and its HTTP/2 libraries'."""
    entry = catalog.get(endpoint.entry)
    found = dict(harness_versions.for_entry(endpoint.entry))
    installed = harness_versions.free_threaded_versions() if entry.free_threaded else None
    for library in libraries_of(entry.server):
        source = LIBRARIES[library][1]
        kind, _, rest = source.partition(":")
        if kind == "dist":
            version = installed.get(rest) if installed is not None else harness_versions.package_version(rest)
        elif kind == "crate":
            distribution, _, crate = rest.partition(":")
            version = crates_in(distribution).get(crate)
        else:
            version = harness_versions.go_version()
        if version:
            found[library] = version
    return found
