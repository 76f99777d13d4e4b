"""Starting a catalog entry as a real process on a free loopback port, and stopping it."""
from __future__ import annotations

import http.client
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
READY = re.compile(r"^listening on http://(?P<host>[^ ]+):(?P<port>\d+) \((?P<name>[^,]+), (?P<workers>\d+) workers\)$")
START_TIMEOUT = 60.0
SEED_USERS = 200  # users 1..SEED_USERS are in the test backends
STOP_TIMEOUT = 5.0


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def backend_args(backends) -> list[str]:
    """The flags that point an entry at the test backends (a LocalBackends)."""
    return ["--mongo-url", backends.mongo_url, "--redis-url", backends.redis_url]


def command(name: str, args: list[str]) -> list[str]:
    from servers.run import command as run_command

    return run_command(name, args)


class ServerProcess:
    """One entry's process: started, waited for its ready line, stopped by SIGTERM."""

    def __init__(self, name: str, args: list[str] | None = None, env: dict[str, str] | None = None):
        self.name = name
        self.port = free_port()
        self.args = ["--port", str(self.port), *(args or [])]
        self.env = {**os.environ, **(env or {})}
        self.stderr = tempfile.TemporaryFile()
        self.proc: subprocess.Popen | None = None
        self.ready_line = ""
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
        found = threading.Event()

        def read() -> None:
            for line in self.proc.stdout:
                line = line.rstrip("\n")
                self.stdout_lines.append(line)
                if not found.is_set() and READY.match(line):
                    self.ready_line = line
                    found.set()

        threading.Thread(target=read, daemon=True).start()
        deadline = time.monotonic() + timeout
        while not found.wait(0.05):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.kill()
                raise RuntimeError(f"{self.name} did not print its ready line "
                                   f"(exit {self.proc.returncode}); stderr:\n{self.stderr_text()}")
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
        return code, elapsed, alive

    def kill(self) -> None:
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            code, _, alive = self.terminate()
            if code is None or alive:
                self.kill()
        else:
            self.kill()


