"""The command line that starts a catalog entry, Python or Go (a Go entry is built first if stale).

Python entries run as `python -m servers.NAME` by the Python of their interpreter (servers/core/interpreters.py):
the project's own, .venv-ft's for a free-threaded one (NAME_ft), or, asked for, another interpreter with the
GIL (the GIL twin, .venv-313: the benchmark's interpreter axis); environment() is what such a process is
told, so that its launcher checks it runs there. Go entries are built into .build/go/ (never committed) if
their binary is missing or older than the Go sources. compose, the harness (bench, anatomy, the tests) and
`python -m servers.run` use the same command lines.
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

__all__ = ["GO_MODULE", "FreeThreadedMissing", "GoBuildError", "InterpreterMissing", "build_go", "command",
           "environment", "go_binary", "interpreter_of"]


def go_binary(name: str) -> Path:
    return GO_BIN / name


def build_go(name: str, force: bool = False) -> Path:
    """Build cmd/NAME of the Go module (processes.gobuild: locked, atomic, a no-op when current);
    GoBuildError says what is missing or what failed."""
    binary = go_binary(name)
    gobuild.build(GO_MODULE, binary, force, package=f"./cmd/{name}")
    return binary


def interpreter_of(name: str, interpreter: str | None = None) -> str:
    """The interpreter entry NAME runs on: its own (the catalog's), or `interpreter` where the entry can run
    there: an entry with the GIL on any interpreter with the GIL, an _ft entry on 3.13t only. ValueError else."""
    entry = catalog.get(name)
    if interpreter is None or interpreter == entry.interpreter:
        return entry.interpreter
    interpreters.get(interpreter)  # a KeyError names the known ones
    if entry.language != "python":
        raise ValueError(f"{name} is a {entry.language} entry: it has no Python interpreter to choose")
    gil = ", ".join(interpreters.GIL_INTERPRETERS)
    if entry.free_threaded:
        raise ValueError(f"{name} runs on {entry.interpreter} only; its base entry "
                         f"{name.removesuffix(interpreters.ENTRY_SUFFIX)} runs on {gil}")
    if interpreters.get(interpreter).free_threaded:
        raise ValueError(f"{name} runs on {gil}; the free-threaded stack is {name}{interpreters.ENTRY_SUFFIX}")
    return interpreter


def command(name: str, args: list[str], interpreter: str | None = None) -> list[str]:
    """The command line that starts entry NAME (compose and the benchmark use the same one), on its own
    interpreter or the one asked for (interpreter_of)."""
    entry = catalog.get(name)
    if entry.language == "go":
        return [str(build_go(name)), *args]
    chosen = interpreters.get(interpreter_of(name, interpreter))
    if chosen.venv is None:
        return [sys.executable, "-m", entry.module, *args]
    if not chosen.available:
        missing = FreeThreadedMissing if chosen.free_threaded else InterpreterMissing
        raise missing(f"{name} runs on {chosen.title}: {chosen.python} is missing (run {chosen.setup_hint})")
    return [str(chosen.python), "-m", entry.module, *args]


def environment(name: str, interpreter: str | None = None) -> dict[str, str]:
    """What the process of entry NAME is told besides its flags: the interpreter it must run on (its
    launcher checks it and says what it runs on: servers/core/launch.py). {} for a Go entry."""
    if catalog.get(name).language != "python":
        return {}
    return {interpreters.ENV: interpreter_of(name, interpreter)}


class InterpreterMissing(RuntimeError):
    """An entry was asked for on an interpreter this machine has not set up."""


class FreeThreadedMissing(InterpreterMissing):
    """A free-threaded entry was asked for on a machine without its interpreter."""
