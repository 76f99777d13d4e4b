"""Versions of what a stack runs: its framework, server and driver packages (importlib.metadata),
or for a Go entry the module versions in servers/go/go.mod and the Go toolchain.
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

FRAMEWORK_PACKAGES: dict[str, tuple[str, ...]] = {
    "flask": ("flask", "werkzeug"),
    "falcon": ("falcon",),
    "sanic": ("sanic",),
    "tornado": ("tornado",),
    "twisted": ("twisted",),
    "stdlib": (),
    "starlette": ("starlette",),
    "fastapi": ("fastapi", "starlette"),
}
SERVER_PACKAGES: dict[str, tuple[str, ...]] = {
    "werkzeug": ("werkzeug",), "werkzeug-threaded": ("werkzeug",), "werkzeug-processes": ("werkzeug",),
    "gunicorn-sync": ("gunicorn",), "gunicorn-gthread": ("gunicorn",), "gunicorn-gevent": ("gunicorn", "gevent"),
    "gevent": ("gevent",), "tornado-wsgi": ("tornado",), "twisted-wsgi": ("twisted",), "wsgiref": (),
    "sanic": ("sanic", "uvloop"), "tornado": ("tornado",), "twisted": ("twisted",),
    "http.server": (), "http.server-threaded": (),
    "uvicorn": ("uvicorn", "uvloop", "httptools"), "granian-asgi": ("granian", "uvloop"),
}
DRIVER_PACKAGES: dict[str, tuple[str, ...]] = {
    "pymongo": ("pymongo",), "flask-pymongo": ("flask-pymongo", "pymongo"), "motor": ("motor", "pymongo"),
}
GO_MODULES: dict[str, tuple[str, ...]] = {
    "echo": ("github.com/labstack/echo/v4",),
    "gin": ("github.com/gin-gonic/gin",),
    "nethttp": (),
}
GO_DRIVERS = ("github.com/redis/go-redis/v9", "go.mongodb.org/mongo-driver/v2")


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
        for module in (*GO_MODULES.get(entry.framework, ()), *GO_DRIVERS):
            if module in requires:
                versions[module] = requires[module]
        return {k: v for k, v in versions.items() if v}
    versions = {"python": platform.python_version()}
    names = (*FRAMEWORK_PACKAGES.get(entry.framework, ()), *SERVER_PACKAGES.get(entry.server, ()),
             *DRIVER_PACKAGES.get(entry.mongo_driver, ()), "redis")
    for package in dict.fromkeys(names):
        version = package_version(package)
        if version:
            versions[package] = version
    return versions
