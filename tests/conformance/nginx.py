"""A private nginx in front of one entry: the proxy users deploy to shield a lenient HTTP parser.

Debian's nginx (apt-packages.txt), started as our own process with a generated config on a free
loopback port, proxying everything to the entry over HTTP/1.1 with upstream keep-alive (the setup
in which a proxy and a server that disagree on framing can smuggle a request). Nothing of the
system's nginx (its config, logs, service) is used.
"""
from __future__ import annotations

import os
import shutil
import subprocess

from .privatefront import PrivateFront


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


class Nginx(PrivateFront):
    """start() -> nginx listening on self.port in front of 127.0.0.1:upstream; stop() ends it."""

    name = "nginx"

    def command(self) -> list[str]:
        # As root, nginx's workers would switch to nobody, who cannot use our private directory.
        user = "user root;\n" if os.geteuid() == 0 else ""
        conf = self.dir / "nginx.conf"
        conf.write_text(CONFIG.format(user=user, prefix=self.dir, upstream=self.upstream, port=self.port))
        return [binary() or "nginx", "-p", str(self.dir), "-e", str(self.dir / "error.log"), "-c", str(conf)]
