"""A private nginx in front of one entry: the proxy users deploy to shield a lenient HTTP parser.

Debian's nginx (apt-packages.txt), started as our own process with a generated config on a free
loopback port, proxying everything to the entry over HTTP/1.1 with upstream keep-alive (the setup
in which a proxy and a server that disagree on framing can smuggle a request). Nothing of the
system's nginx (its config, logs, service) is used.
"""
from __future__ import annotations

import os
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
{user}worker_processes 1;
daemon off;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
events {{ worker_connections 256; }}
http {{
    access_log off;
    client_body_temp_path {prefix}/body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    upstream entry {{
        server 127.0.0.1:{upstream};
        keepalive 8;
    }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://entry;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $host;
        }}
    }}
}}
"""


def binary() -> str | None:
    return shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None)


def version() -> str:
    done = subprocess.run([binary() or "nginx", "-v"], capture_output=True, text=True, timeout=10)
    return (done.stderr or done.stdout).strip().split("/")[-1]


class Nginx:
    """start() -> nginx listening on self.port in front of 127.0.0.1:upstream; stop() ends it."""

    def __init__(self, upstream: int):
        self.upstream = upstream
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="conformance-nginx-"))
        self.proc: subprocess.Popen | None = None

    def start(self) -> "Nginx":
        # As root, nginx's workers would switch to nobody, who cannot use our private directory.
        user = "user root;\n" if os.geteuid() == 0 else ""
        conf = self.dir / "nginx.conf"
        conf.write_text(CONFIG.format(user=user, prefix=self.dir, upstream=self.upstream, port=self.port))
        self.proc = subprocess.Popen([binary() or "nginx", "-p", str(self.dir), "-e", str(self.dir / "error.log"),
                                      "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     start_new_session=True)
        ends = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < ends:
            if self.proc.poll() is not None:
                raise RuntimeError(f"nginx exited: {self.proc.stderr.read().decode(errors='replace')}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"nginx did not listen on {self.port} within {START_TIMEOUT_S} s")

    def stop(self) -> None:
        if self.proc is not None:
            tree.stop(self.proc, 5.0)
            self.proc = None
        shutil.rmtree(self.dir, ignore_errors=True)
