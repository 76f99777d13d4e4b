"""One catalog entry as a real process: started by its command line (servers.core.command), ready
once it prints its ready line, stopped with its whole process tree (processes.tree).

bench, anatomy and the tests never import an entrypoint: they run the same argv compose uses,
optionally under a prefix (`taskset`), in a session of its own, with stderr to a log. Given an interpreter
(the benchmark's interpreter axis), the entry runs on that one's Python and is told so; it checks it and
says what it runs on (interpreter_facts).
"""
from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import psutil

from processes import tree as proctree
from processes.bounded import spawning
from processes.gobuild import GoBuildError
from servers.core import interpreters, ready_line
from servers.core.command import InterpreterMissing, command, environment
from servers.core.ready_line import ReadyLine

ROOT = Path(__file__).resolve().parent.parent
START_TIMEOUT = 60.0
STOP_GRACE_S = 5.0  # the contract: SIGTERM stops an entry, workers included, within 5 s


class NotReady(RuntimeError):
    """The process exited, or printed no ready line in time; the message says which."""


class EntryFailed(RuntimeError):
    """The entry could not be built, exited, or printed no ready line in time; the message has its
    stderr tail."""


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


class EntryProcess:
    """start() waits for the ready line; stop() SIGTERMs, then kills what is left of the tree.

    stderr goes to `log` (appended, after a `$ argv` line) or, without one, to a temporary file.
    """

    def __init__(self, name: str, args: list[str], log: Path | None = None, prefix: list[str] | None = None,
                 env: dict[str, str] | None = None, interpreter: str | None = None):
        self.name = name
        self.args = list(args)
        self.log = log
        self.prefix = prefix or []
        self.interpreter = interpreter  # None: the entry's own, and the process is not asked to say it
        told = environment(name, interpreter) if interpreter is not None else {}
        self.env = {**os.environ, **(env or {}), **told}
        self._facts: dict | None = None  # read once: the launcher says it before its ready line
        self.proc: subprocess.Popen | None = None
        self.ready: ReadyLine | None = None
        self.stdout_lines: list[str] = []
        self.stop_note = ""
        self._stderr_file = None if log else tempfile.TemporaryFile()

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    @property
    def url(self) -> str:
        return self.ready.url if self.ready else ""

    @property
    def workers(self) -> int | None:
        return self.ready.workers if self.ready else None

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def command(self) -> list[str]:
        return [*self.prefix, *command(self.name, self.args, self.interpreter)]  # builds a Go entry on first use

    def start(self, timeout: float = START_TIMEOUT) -> "EntryProcess":
        try:
            argv = self.command()
        except GoBuildError as exc:
            raise EntryFailed(f"{self.name} did not build: {exc}") from None
        except (InterpreterMissing, ValueError) as exc:
            raise EntryFailed(str(exc)) from None
        if self.log is not None:
            self.log.parent.mkdir(parents=True, exist_ok=True)
            err = self.log.open("ab")
        else:
            err = self._stderr_file
        err.write(f"$ {' '.join(argv)}\n".encode())
        err.flush()
        try:
            with spawning():  # an interrupt now is raised once self.proc exists, so stop() can kill it
                self.proc = subprocess.Popen(argv, cwd=ROOT, env=self.env, stdout=subprocess.PIPE, stderr=err,
                                             text=True, errors="replace", start_new_session=True)
        finally:
            if self.log is not None:
                err.close()
        try:
            self.ready = wait_ready(self.proc, timeout, on_line=self.stdout_lines.append)
        except NotReady as exc:
            self.stop()
            raise EntryFailed(f"{self.name} did not start ({exc}): {self.stderr_tail()}") from None
        return self

    def stderr_text(self, limit: int = 4000) -> str:
        """The end of what the entry wrote on stderr."""
        try:
            if self.log is not None:
                text = self.log.read_text(errors="replace")
            else:
                self._stderr_file.seek(0)
                text = self._stderr_file.read().decode(errors="replace")
        except (OSError, ValueError):
            return ""
        return text[-limit:]

    def interpreter_facts(self) -> dict:
        """What the entry said it runs on (servers/core/launch.py, when started with an interpreter): key,
        version, build, GIL on or off at start, executable; {} when it said nothing."""
        if self._facts is None and self.ready is not None:
            self._facts = interpreters.said(self.stderr_text(1 << 20)) or {}
        return self._facts or {}

    def stderr_tail(self) -> str:
        """What went wrong, in one line: a traceback's last frame and exception, else the last lines."""
        lines = [l.rstrip() for l in self.stderr_text(1 << 20).splitlines()]
        lines = [l for l in lines if l.strip() and not l.startswith("$ ")]
        where = f"; log {self.log}" if self.log else ""
        if not lines:
            return "(nothing on stderr)"
        if any(l.startswith("Traceback") for l in lines):
            frames = [l.strip() for l in lines if l.strip().startswith("File ")]
            exc = next((l for l in reversed(lines) if not l.startswith((" ", "\t"))), lines[-1])
            return (f"{exc} (at {frames[-1]})" if frames else exc) + where
        return " | ".join(l.strip() for l in lines[-3:]) + where

    def tree(self) -> list[psutil.Process]:
        """The entry's process and its descendants right now."""
        root = proctree.process(self.proc.pid) if self.proc else None
        return proctree.tree(root) if root else []

    def terminate(self, timeout: float = STOP_GRACE_S) -> tuple[int | None, float, list[psutil.Process]]:
        """SIGTERM alone (what the contract promises to honour); returns the exit code or None if it
        did not stop, the seconds it took, and the processes of its tree still running after timeout."""
        procs = self.tree()
        started = time.monotonic()
        self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            code = None
        elapsed = time.monotonic() - started
        return code, elapsed, proctree.wait_gone(procs[1:], timeout - elapsed)

    def stop(self, grace: float = STOP_GRACE_S) -> str:
        """SIGTERM, then SIGKILL of the group and every survivor; how it stopped ("exited N", "killed ...")."""
        if self.proc is not None:
            self.stop_note = proctree.stop(self.proc, grace).how
            if self.proc.stdout:
                self.proc.stdout.close()
        return self.stop_note

    def kill(self) -> None:
        """SIGKILL at once (a test that is done with a server it hurt)."""
        if self.proc is not None:
            proctree.stop(self.proc, grace=0, first_signal=signal.SIGKILL)
