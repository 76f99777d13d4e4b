"""The tests' entry process: the harness's EntryProcess on a free loopback port, plus a request helper."""
from __future__ import annotations

import http.client

from harness.entry import ROOT, EntryProcess
from ondemand import SEED_USERS
from processes.ports import free_port

__all__ = ["ROOT", "SEED_USERS", "ServerProcess", "backend_args", "free_port"]


def backend_args(backends) -> list[str]:
    """The flags that point an entry at the test backends (an OnDemandBackends, or a LocalBackends)."""
    return ["--mongo-url", backends.mongo_url, "--redis-url", backends.redis_url]


class ServerProcess(EntryProcess):
    """An entry on a free port of 127.0.0.1, its stderr kept for the assertion messages. Given the
    tests' on-demand backends, a request to a backend route starts that backend first."""

    def __init__(self, name: str, args: list[str] | None = None, env: dict[str, str] | None = None,
                 backends=None):
        self.port = free_port()
        self.backends = backends
        super().__init__(name, ["--port", str(self.port), *(args or [])], env=env)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def request(self, path: str, method: str = "GET", timeout: float = 10.0,
                ensure: bool = True) -> tuple[http.client.HTTPResponse, bytes]:
        """One request on a new connection; ensure=False sends it whether or not its backend is up."""
        if ensure and self.backends is not None and hasattr(self.backends, "for_path"):
            self.backends.for_path(path)
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request(method, path)
            response = conn.getresponse()
            return response, response.read()
        finally:
            conn.close()
