"""Starting any catalog entry: its command line, Python or Go (a Go entry is built first if stale),
a free port for it, and the wait for its ready line (the benchmark and the tests start entries so).

Python entries run as `python -m servers.NAME`; Go entries are built into .build/go/ (never
committed) if their binary is missing or older than the Go sources. compose and the benchmark use
the same command lines; `python -m servers.run` execs them.
"""
from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable

from backends import gobuild
from servers.core import catalog, ready_line
from servers.core.ready_line import ReadyLine

ROOT = Path(__file__).resolve().parents[2]
GO_MODULE = ROOT / "servers" / "go"
GO_BIN = gobuild.BUILD_DIR / "go"


def go_binary(name: str) -> Path:
    return GO_BIN / name


def build_go(name: str, force: bool = False) -> Path:
    """Build cmd/NAME of the Go module (backends.gobuild: locked, atomic, a no-op when current)."""
    binary = go_binary(name)
    try:
        gobuild.build(GO_MODULE, binary, force, package=f"./cmd/{name}")
    except gobuild.GoBuildError as exc:
        sys.exit(f"error: {exc}")
    return binary


def command(name: str, args: list[str]) -> list[str]:
    """The command line that starts entry NAME (compose and the benchmark use the same one)."""
    entry = catalog.get(name)
    if entry.language == "go":
        return [str(build_go(name)), *args]
    return [sys.executable, "-m", entry.module, *args]


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


class NotReady(RuntimeError):
    """The process exited, or printed no ready line in time; the message says which."""


def wait_ready(proc: subprocess.Popen, timeout: float,
               on_line: Callable[[str], None] | None = None) -> ReadyLine:
    """Read proc's stdout (text mode) on a thread until the ready line; raise NotReady when the
    process exits first or `timeout` seconds pass. on_line sees every line, also after the ready one."""
    found: list[ReadyLine] = []
    ready = threading.Event()

    def read() -> None:
        for line in proc.stdout:
            line = line.rstrip("\n")
            if on_line is not None:
                on_line(line)
            if not ready.is_set() and (parsed := ready_line.parse(line)) is not None:
                found.append(parsed)
                ready.set()

    threading.Thread(target=read, name="ready-line", daemon=True).start()
    deadline = time.monotonic() + timeout
    while not ready.wait(0.05):
        code = proc.poll()
        if code is not None and not ready.wait(0.2):  # the line may still be in the pipe
            raise NotReady(f"exit {code}")
        if time.monotonic() > deadline:
            raise NotReady(f"no ready line within {timeout:.0f} s")
    return found[0]
