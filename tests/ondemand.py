"""The tests' backends, started only when a test first needs one, and shared by every pytest worker.

Their ports are fixed when the run begins (so every entry can be given its URLs at start, whether or
not the backend is up yet); a backend is started, and seeded, by the first test that asks for it
(`ensure`), under a lock file that the parallel workers share, so it starts once per run. Hello and
conformance tests ask for none, so a run of those starts none. The run's controller stops them at
the end (stop_all). A test that stops or kills a backend uses a private set instead (`private`): the
shared ones serve other workers' tests meanwhile.
"""
from __future__ import annotations

import json
from pathlib import Path

from filelock import FileLock

from processes.ports import free_port

SEED_USERS = 200  # users 1..SEED_USERS are in the test backends
SERVICES = ("redis", "mongo")
WIRING = "ondemand.json"


class OnDemandBackends:
    """redis-server and FerretDB (on PostgreSQL) under `state_dir`, started at their first `ensure`."""

    def __init__(self, state_dir: Path, seed_users: int = SEED_USERS):
        self.state_dir = Path(state_dir)
        self.state_dir.mkdir(parents=True, exist_ok=True)
        self.seed_users = seed_users
        self._lock = FileLock(str(self.state_dir / ".lock"))
        with self._lock:
            wiring = self.state_dir / WIRING
            if not wiring.exists():
                wiring.write_text(json.dumps({"redis_port": free_port(), "mongo_port": free_port()}))
            ports = json.loads(wiring.read_text())
        self.redis_port, self.mongo_port = ports["redis_port"], ports["mongo_port"]
        self._ready: set[str] = set()

    @property
    def redis_url(self) -> str:
        return f"redis://127.0.0.1:{self.redis_port}/0"

    @property
    def mongo_url(self) -> str:
        return f"mongodb://127.0.0.1:{self.mongo_port}/test"

    def local(self):
        from backends.local import LocalBackends

        return LocalBackends(self.state_dir, redis_port=self.redis_port, mongo_port=self.mongo_port)

    @property
    def postgres_url(self) -> str | None:
        return self.ensure("mongo").postgres_url

    def ensure(self, *services: str):
        """Start (and seed) each of these that is not running yet; the LocalBackends that runs them."""
        from backends.seed import seed_mongo, seed_redis

        unknown = set(services) - set(SERVICES)
        if unknown:
            raise ValueError(f"unknown backend {sorted(unknown)}: one of {', '.join(SERVICES)}")
        local = self.local()
        wanted = [s for s in services if s not in self._ready]
        if not wanted:
            return local
        with self._lock:
            for service in wanted:
                seeded = self.state_dir / f".seeded-{service}"
                if not local.is_running(service):
                    seeded.unlink(missing_ok=True)
                    local.up([service])
                if not seeded.exists():
                    if service == "mongo":
                        seed_mongo(local.mongo_url, self.seed_users, local.postgres_url)
                    else:
                        seed_redis(local.redis_url)
                    seeded.touch()
                self._ready.add(service)
        return local

    def for_routes(self, ops) -> "OnDemandBackends":
        """ensure() the backends these operations of the contract need; returns self."""
        from servers.core import catalog

        needed = {catalog.backend_of(op) for op in ops} - {None}
        if needed:
            self.ensure(*sorted(needed))
        return self

    def for_path(self, path: str) -> None:
        """ensure() the backend a request to this path of the contract needs."""
        for prefix, service in (("/mongo/", "mongo"), ("/redis/", "redis"), ("/fortunes", "mongo")):
            if path.startswith(prefix):
                self.ensure(service)

    def down(self, *services: str) -> None:
        """Stop these (a private set's outage test); the next ensure() starts and seeds them again."""
        with self._lock:
            self.local().down(list(services))
            for service in services:
                (self.state_dir / f".seeded-{service}").unlink(missing_ok=True)
                self._ready.discard(service)

    def pid(self, service: str) -> int | None:
        return self.local().pid(service)

    def is_running(self, service: str) -> bool:
        return self.local().is_running(service)

    def server_flags(self) -> list[str]:
        return ["--mongo-url", self.mongo_url, "--redis-url", self.redis_url]

    def stop_all(self) -> None:
        """Stop whatever of them runs (the run's end)."""
        with self._lock:
            self.local().down()
            for seeded in self.state_dir.glob(".seeded-*"):
                seeded.unlink()
            self._ready.clear()
