"""The settings every app and adapter receives, parsed from the shared flags by servers.core.launch."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Options:
    name: str
    host: str
    port: int
    workers: int
    mongo_url: str
    redis_url: str
    mongo_driver: str  # pymongo, flask-pymongo or motor (the async stacks' pymongo is AsyncMongoClient)
    redis_client: str = "hiredis"  # a key of backends.redis_clients.CLIENTS
    certfile: str = ""  # with keyfile: serve HTTPS (the entry's server terminates TLS), "" plain HTTP
    keyfile: str = ""
    # --http2: HTTP/2 where the server does not speak it by default (the spec's Http2): over TLS by ALPN when
    # certfile is given, in cleartext (h2c) otherwise
    http2: bool = False

    @property
    def tls(self) -> bool:
        return bool(self.certfile)

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'https' if self.tls else 'http'}://{host}:{self.port}"
