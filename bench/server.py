"""One entrypoint as a process: started by servers.run.command, ready when it prints its ready line.

The benchmark never imports an entrypoint: it runs `servers.run.command(name, flags)` (the same
argv compose uses), optionally under `taskset`, in its own process group, with stderr to a log.
"""
from __future__ import annotations

import os
import re
import socket
import subprocess
import threading
import time
from pathlib import Path

from bench.procs import spawning, stop_tree

ROOT = Path(__file__).resolve().parent.parent
READY = re.compile(r"^listening on (?P<url>http://\S+) \((?P<name>[^,]+), (?P<workers>\d+) workers?\)$")
START_TIMEOUT = 60.0


class ServerFailed(RuntimeError):
    """The entrypoint exited or printed no ready line in time; the message has its stderr tail."""


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def entry_command(name: str, args: list[str]) -> list[str]:
    from servers.run import command  # builds a Go entry on first use

    return command(name, args)


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
        argv = [*self.prefix, *entry_command(self.name, self.args)]
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
        ready = threading.Event()

        def read() -> None:
            for line in self.proc.stdout:
                match = READY.match(line.rstrip("\n"))
                if match and not ready.is_set():
                    self.url, self.workers = match["url"], int(match["workers"])
                    ready.set()

        threading.Thread(target=read, daemon=True).start()
        deadline = time.monotonic() + timeout
        while not ready.wait(0.05):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                code = self.proc.poll()
                self.stop()
                why = f"exit {code}" if code is not None else f"no ready line within {timeout:.0f} s"
                raise ServerFailed(f"{self.name} did not start ({why}): {self.stderr_tail()}")
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
