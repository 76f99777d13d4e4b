"""The tests' entry process: the harness's EntryProcess on a free loopback port, plus a request helper."""
from __future__ import annotations

import http.client

from harness.entry import ROOT, EntryProcess
from processes.ports import free_port

__all__ = ["ROOT", "SEED_USERS", "ServerProcess", "backend_args", "free_port"]

SEED_USERS = 200  # users 1..SEED_USERS are in the test backends


def backend_args(backends) -> list[str]:
    """The flags that point an entry at the test backends (a LocalBackends)."""
    return ["--mongo-url", backends.mongo_url, "--redis-url", backends.redis_url]


class ServerProcess(EntryProcess):
    """An entry on a free port of 127.0.0.1, its stderr kept for the assertion messages."""

    def __init__(self, name: str, args: list[str] | None = None, env: dict[str, str] | None = None):
        self.port = free_port()
        super().__init__(name, ["--port", str(self.port), *(args or [])], env=env)

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
