"""Versions of what a stack runs (the catalog's Entry.packages): its framework, server and driver
packages (importlib.metadata; asked of the interpreter's own Python for one in a virtualenv of its own:
.venv-ft, the GIL twin's .venv-313), or for a Go entry the module versions in servers/go/go.mod and the
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


_VENV_VERSIONS = ("import json, platform, sysconfig; from importlib import metadata; print(json.dumps({'python': "
                  "platform.python_version() + ('t' if sysconfig.get_config_var('Py_GIL_DISABLED') else ''), "
                  "**{d.metadata['Name'].lower(): d.version for d in metadata.distributions()}}))")


@functools.lru_cache(maxsize=None)
def venv_versions(interpreter: str) -> dict[str, str]:
    """Every distribution of an interpreter's virtualenv and its Python ('3.13.5t' on a free-threaded build),
    asked of that interpreter ({} where it is not set up)."""
    python = interpreters.python(interpreter)
    try:
        out = subprocess.run([str(python), "-c", _VENV_VERSIONS], capture_output=True, text=True, timeout=60).stdout
        return json.loads(out)
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return {}


@functools.lru_cache(maxsize=None)
def for_entry(name: str, interpreter: str | None = None, http2: bool = False, websocket: bool = False) -> dict[str, str]:
    """The versions of what entry NAME runs, on its own interpreter or the one given (the benchmark's axis); with
    http2, of its server's HTTP/2 framing packages too (Http2.packages: h2, hpack, hyperframe, zttp, ...), which an
    HTTP/1.1 run does not use; with websocket, of what frames its WebSockets (WebSocket.packages: websockets,
    wsproto, autobahn, a Go library)."""
    key = interpreter or catalog.get(name).interpreter
    entry = catalog.on_interpreter(catalog.get(name), key)
    packages = tuple(dict.fromkeys((*entry.packages, *(entry.http2.packages if http2 else ()),
                                    *(entry.websocket.packages if websocket else ()))))
    if entry.language == "python" and interpreters.get(key).venv is not None:
        installed = venv_versions(key)
        return {k: installed[k] for k in ("python", *packages) if k in installed}
    if entry.language == "go":
        requires = go_mod_requires()
        versions = {"go": go_version()}
        for module in packages:
            if module in requires:
                versions[module] = requires[module]
        return {k: v for k, v in versions.items() if v}
    versions = {"python": platform.python_version()}
    for package in packages:
        version = package_version(package)
        if version:
            versions[package] = version
    return versions
