"""A proxy run privately in front of one entry (nginx.py, haproxy.py): its own directory and free port,
started, waited for until it accepts, and stopped with its process tree. Each front says only how to write
its config and the command that runs it.
"""
from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from processes import tree
from processes.ports import free_port

START_TIMEOUT_S = 10.0


class PrivateFront:
    """start() -> the front listening on self.port in front of 127.0.0.1:upstream; stop() ends it."""

    name = "front"

    def __init__(self, upstream: int):
        self.upstream = upstream
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix=f"conformance-{self.name}-"))
        self.proc: subprocess.Popen | None = None

    def command(self) -> list[str]:
        """Write the front's config into self.dir and return the command that runs it in the foreground."""
        raise NotImplementedError

    def start(self):
        self.proc = subprocess.Popen(self.command(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     start_new_session=True)
        ends = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < ends:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited: {self.proc.stderr.read().decode(errors='replace')}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"{self.name} did not listen on {self.port} within {START_TIMEOUT_S} s")

    def stop(self) -> None:
        if self.proc is not None:
            tree.stop(self.proc, 5.0)
            self.proc = None
        shutil.rmtree(self.dir, ignore_errors=True)
