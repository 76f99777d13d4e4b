"""A private HAProxy in front of one entry: the second front users deploy, beside nginx (nginx.py).

Debian's haproxy (apt-packages.txt), started as our own process (-db: foreground) with a generated
config on a free loopback port, proxying to the entry over HTTP/1.1 with server-side connection
reuse across clients (`http-reuse always`: the setup in which a front and a server that disagree on
framing can smuggle a request). Request buffering is left off, HAProxy's default (nginx buffers by
default): each front is run as it ships. Nothing of the system's haproxy (config, service) is used.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from .privatefront import PrivateFront


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


class Haproxy(PrivateFront):
    """start() -> haproxy listening on self.port in front of 127.0.0.1:upstream; stop() ends it."""

    name = "haproxy"

    def command(self) -> list[str]:
        conf = self.dir / "haproxy.cfg"
        conf.write_text(CONFIG.format(upstream=self.upstream, port=self.port))
        return [binary() or "haproxy", "-db", "-f", str(conf)]
