"""Starting a catalog entry as a real process on a free loopback port, and stopping it."""
from __future__ import annotations

import http.client
import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import psutil

from bench.procs import kill_group, stop_tree
from servers.core.ready_line import ReadyLine
from servers.core.start import NotReady, command, free_port, wait_ready

ROOT = Path(__file__).resolve().parent.parent
START_TIMEOUT = 60.0
SEED_USERS = 200  # users 1..SEED_USERS are in the test backends
STOP_TIMEOUT = 5.0


def backend_args(backends) -> list[str]:
    """The flags that point an entry at the test backends (a LocalBackends)."""
    return ["--mongo-url", backends.mongo_url, "--redis-url", backends.redis_url]


class ServerProcess:
    """One entry's process: started, waited for its ready line, stopped by SIGTERM."""

    def __init__(self, name: str, args: list[str] | None = None, env: dict[str, str] | None = None):
        self.name = name
        self.port = free_port()
        self.args = ["--port", str(self.port), *(args or [])]
        self.env = {**os.environ, **(env or {})}
        self.stderr = tempfile.TemporaryFile()
        self.proc: subprocess.Popen | None = None
        self.ready: ReadyLine | None = None
        self.stdout_lines: list[str] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def request(self, path: str, method: str = "GET", timeout: float = 10.0) -> tuple[http.client.HTTPResponse, bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request(method, path)
            response = conn.getresponse()
            return response, response.read()
        finally:
            conn.close()

    def command(self) -> list[str]:
        return command(self.name, self.args)

    def start(self, timeout: float = START_TIMEOUT) -> "ServerProcess":
        self.proc = subprocess.Popen(self.command(), cwd=ROOT, env=self.env,
                                     stdout=subprocess.PIPE, stderr=self.stderr, text=True,
                                     start_new_session=True)
        try:
            self.ready = wait_ready(self.proc, timeout, on_line=self.stdout_lines.append)
        except NotReady as exc:
            self.kill()
            raise RuntimeError(f"{self.name} did not print its ready line ({exc}); "
                               f"stderr:\n{self.stderr_text()}") from None
        return self

    def stderr_text(self) -> str:
        self.stderr.seek(0)
        return self.stderr.read().decode(errors="replace")[-4000:]

    def tree(self) -> list[psutil.Process]:
        try:
            parent = psutil.Process(self.proc.pid)
            return [parent, *parent.children(recursive=True)]
        except psutil.NoSuchProcess:
            return []

    def terminate(self, timeout: float = STOP_TIMEOUT) -> tuple[int | None, float, list[psutil.Process]]:
        """SIGTERM; returns (exit code or None if it did not stop, seconds taken, survivors)."""
        tree = self.tree()
        started = time.monotonic()
        self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            code = None
        elapsed = time.monotonic() - started
        _, alive = psutil.wait_procs(tree, timeout=max(0.0, timeout - elapsed))
        return code, elapsed, [p for p in alive if not _exited(p)]

    def kill(self) -> None:
        if self.proc is None:
            return
        kill_group(self.proc.pid)
        self.proc.wait(10)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL of the group and every survivor (bench.procs.stop_tree)."""
        if self.proc is not None:
            stop_tree(self.proc, STOP_TIMEOUT)


def _exited(proc: psutil.Process) -> bool:
    """A zombie has exited: a worker whose supervisor exited first waits to be reaped by init, which
    in a container may be slow to do it (seen beside a CPU hog)."""
    try:
        return proc.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True
