"""Versions of what a stack runs (the catalog's Entry.packages): its framework, server and driver
packages (importlib.metadata), or for a Go entry the module versions in servers/go/go.mod and the
Go toolchain.
"""
from __future__ import annotations

import functools
import json
import platform
import re
import subprocess
from importlib import metadata
from pathlib import Path

from servers.core import catalog, interpreters

ROOT = Path(__file__).resolve().parent.parent
GO_MOD = ROOT / "servers" / "go" / "go.mod"

def package_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


@functools.lru_cache(maxsize=1)
def go_mod_requires() -> dict[str, str]:
    try:
        text = GO_MOD.read_text()
    except OSError:
        return {}
    return dict(re.findall(r"^\s*(?:require\s+)?([\w./-]+\.[\w./-]+)\s+(v[\w.+-]+)", text, re.MULTILINE))


@functools.lru_cache(maxsize=1)
def go_version() -> str:
    try:
        out = subprocess.run(["go", "env", "GOVERSION"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return out.strip()


_FT_VERSIONS = ("import json, platform; from importlib import metadata; print(json.dumps({'python': "
                "platform.python_version() + 't', **{d.metadata['Name'].lower(): d.version for d in metadata.distributions()}}))")


@functools.lru_cache(maxsize=1)
def free_threaded_versions() -> dict[str, str]:
    """Every distribution of the free-threaded venv (.venv-ft) and its Python, asked of that interpreter."""
    python = interpreters.python(interpreters.FREE_THREADED)
    try:
        out = subprocess.run([str(python), "-c", _FT_VERSIONS], capture_output=True, text=True, timeout=60).stdout
        return json.loads(out)
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return {}


@functools.lru_cache(maxsize=None)
def for_entry(name: str, http2: bool = False) -> dict[str, str]:
    """The versions of what the entry runs; with http2, of its server's HTTP/2 framing packages too (Http2.packages:
    h2, hpack, hyperframe, zttp, ...), which an HTTP/1.1 run does not use."""
    entry = catalog.get(name)
    packages = (*entry.packages, *(entry.http2.packages if http2 else ()))
    if entry.free_threaded:
        installed = free_threaded_versions()
        return {k: installed[k] for k in ("python", *packages) if k in installed}
    if entry.language == "go":
        requires = go_mod_requires()
        versions = {"go": go_version()}
        for module in entry.packages:
            if module in requires:
                versions[module] = requires[module]
        return {k: v for k, v in versions.items() if v}
    versions = {"python": platform.python_version()}
    for package in packages:
        version = package_version(package)
        if version:
            versions[package] = version
    return versions
