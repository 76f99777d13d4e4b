"""The command line that starts a catalog entry, Python or Go (a Go entry is built first if stale).

Python entries run as `python -m servers.NAME` (a free-threaded one, NAME_ft, by .venv-ft's Python); Go entries are built into .build/go/ (never
committed) if their binary is missing or older than the Go sources. compose, the harness (bench,
anatomy, the tests) and `python -m servers.run` use the same command lines.
"""
from __future__ import annotations

import sys
from pathlib import Path

from processes import gobuild
from processes.gobuild import GoBuildError
from servers.core import catalog, interpreters

ROOT = Path(__file__).resolve().parents[2]
GO_MODULE = ROOT / "servers" / "go"
GO_BIN = gobuild.BUILD_DIR / "go"

__all__ = ["GO_MODULE", "FreeThreadedMissing", "GoBuildError", "build_go", "command", "go_binary"]


def go_binary(name: str) -> Path:
    return GO_BIN / name


def build_go(name: str, force: bool = False) -> Path:
    """Build cmd/NAME of the Go module (processes.gobuild: locked, atomic, a no-op when current);
    GoBuildError says what is missing or what failed."""
    binary = go_binary(name)
    gobuild.build(GO_MODULE, binary, force, package=f"./cmd/{name}")
    return binary


def command(name: str, args: list[str]) -> list[str]:
    """The command line that starts entry NAME (compose and the benchmark use the same one)."""
    entry = catalog.get(name)
    if entry.language == "go":
        return [str(build_go(name)), *args]
    if entry.free_threaded:
        python = interpreters.python(entry.interpreter)
        if not python.exists():
            raise FreeThreadedMissing(f"{name} runs on free-threaded CPython 3.13t: {python} is missing "
                                      f"(run {interpreters.SETUP_HINT})")
        return [str(python), "-m", entry.module, *args]
    return [sys.executable, "-m", entry.module, *args]


class FreeThreadedMissing(RuntimeError):
    """A free-threaded entry was asked for on a machine without its interpreter."""
