"""Versions of what a stack runs (the catalog's Entry.packages): its framework, server and driver
packages (importlib.metadata), or for a Go entry the module versions in servers/go/go.mod and the
Go toolchain.
"""
from __future__ import annotations

import functools
import platform
import re
import subprocess
from importlib import metadata
from pathlib import Path

from servers.core import catalog

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


@functools.lru_cache(maxsize=None)
def for_entry(name: str) -> dict[str, str]:
    entry = catalog.get(name)
    if entry.language == "go":
        requires = go_mod_requires()
        versions = {"go": go_version()}
        for module in entry.packages:
            if module in requires:
                versions[module] = requires[module]
        return {k: v for k, v in versions.items() if v}
    versions = {"python": platform.python_version()}
    for package in entry.packages:
        version = package_version(package)
        if version:
            versions[package] = version
    return versions
