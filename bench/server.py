"""One entrypoint as a process: started by servers.core.start.command, ready when it prints its ready line.

The benchmark never imports an entrypoint: it runs `servers.core.start.command(name, flags)` (the same
argv compose uses), optionally under `taskset`, in its own process group, with stderr to a log, and
waits with servers.core.start.wait_ready.
"""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

from servers.core.start import NotReady, command, wait_ready

from bench.procs import spawning, stop_tree

ROOT = Path(__file__).resolve().parent.parent
START_TIMEOUT = 60.0


class ServerFailed(RuntimeError):
    """The entrypoint exited or printed no ready line in time; the message has its stderr tail."""


class LocalServer:
    """start() -> waits for the ready line; stop() -> SIGTERM, then the process group is killed."""

    def __init__(self, name: str, args: list[str], log: Path, prefix: list[str] | None = None,
                 env: dict[str, str] | None = None):
        self.name = name
        self.args = args
        self.log = log
        self.prefix = prefix or []
        self.env = {**os.environ, **(env or {})}
        self.proc: subprocess.Popen | None = None
        self.workers: int | None = None
        self.url = ""
        self.stop_note = ""

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self, timeout: float = START_TIMEOUT) -> "LocalServer":
        argv = [*self.prefix, *command(self.name, self.args)]  # builds a Go entry on first use
        self.log.parent.mkdir(parents=True, exist_ok=True)
        err = self.log.open("ab")
        err.write(f"$ {' '.join(argv)}\n".encode())
        err.flush()
        try:
            with spawning():  # an interrupt now is raised once self.proc exists, so stop() can kill it
                self.proc = subprocess.Popen(argv, cwd=ROOT, env=self.env, stdout=subprocess.PIPE, stderr=err,
                                             text=True, errors="replace", start_new_session=True)
        finally:
            err.close()
        try:
            ready = wait_ready(self.proc, timeout)
        except NotReady as exc:
            self.stop()
            raise ServerFailed(f"{self.name} did not start ({exc}): {self.stderr_tail()}") from None
        self.url, self.workers = ready.url, ready.workers
        return self

    def stderr_tail(self) -> str:
        """What went wrong, in one line: a traceback's last frame and exception, else the last lines."""
        try:
            lines = [l.rstrip() for l in self.log.read_text(errors="replace").splitlines()]
        except OSError:
            return ""
        lines = [l for l in lines if l.strip() and not l.startswith("$ ")]
        if not lines:
            return "(nothing on stderr)"
        if any(l.startswith("Traceback") for l in lines):
            frames = [l.strip() for l in lines if l.strip().startswith("File ")]
            exc = next((l for l in reversed(lines) if not l.startswith((" ", "\t"))), lines[-1])
            return (f"{exc} (at {frames[-1]})" if frames else exc) + f"; log {self.log}"
        return " | ".join(l.strip() for l in lines[-3:]) + f"; log {self.log}"

    def stop(self) -> None:
        if self.proc is not None:
            self.stop_note, _ = stop_tree(self.proc)
            if self.proc.stdout:
                self.proc.stdout.close()
