"""A private HAProxy in front of one entry: the second front users deploy, beside nginx (nginx.py).

Debian's haproxy (apt-packages.txt), started as our own process (-db: foreground) with a generated
config on a free loopback port, proxying to the entry over HTTP/1.1 with server-side connection
reuse across clients (`http-reuse always`: the setup in which a front and a server that disagree on
framing can smuggle a request). Request buffering is left off, HAProxy's default (nginx buffers by
default): each front is run as it ships. Nothing of the system's haproxy (config, service) is used.
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

CONFIG = """\
global
    maxconn 256
defaults
    mode http
    timeout connect 2s
    timeout client 5s
    timeout server 5s
    timeout http-request 2s
    option http-keep-alive
    http-reuse always
frontend front
    bind 127.0.0.1:{port}
    default_backend entry
backend entry
    server entry 127.0.0.1:{upstream}
"""


def binary() -> str | None:
    return shutil.which("haproxy") or next((p for p in ("/usr/sbin/haproxy",) if Path(p).exists()), None)


def version() -> str:
    done = subprocess.run([binary() or "haproxy", "-v"], capture_output=True, text=True, timeout=10)
    return done.stdout.split()[2] if done.stdout.startswith("HAProxy version") else done.stdout.strip()


class Haproxy:
    """start() -> haproxy listening on self.port in front of 127.0.0.1:upstream; stop() ends it."""

    def __init__(self, upstream: int):
        self.upstream = upstream
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="conformance-haproxy-"))
        self.proc: subprocess.Popen | None = None

    def start(self) -> "Haproxy":
        conf = self.dir / "haproxy.cfg"
        conf.write_text(CONFIG.format(upstream=self.upstream, port=self.port))
        self.proc = subprocess.Popen([binary() or "haproxy", "-db", "-f", str(conf)], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, start_new_session=True)
        ends = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < ends:
            if self.proc.poll() is not None:
                raise RuntimeError(f"haproxy exited: {self.proc.stderr.read().decode(errors='replace')}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"haproxy did not listen on {self.port} within {START_TIMEOUT_S} s")

    def stop(self) -> None:
        if self.proc is not None:
            tree.stop(self.proc, 5.0)
            self.proc = None
        shutil.rmtree(self.dir, ignore_errors=True)
