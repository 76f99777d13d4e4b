"""The backends a benchmark or an anatomy needs (Mongo, Redis): local ones from backends.local,
seeded, stopped after.

Local backends run on free loopback ports under a state directory of the results, so they never
clash with backends someone else started on the default ports. Given --mongo-url/--redis-url the
run uses (and seeds) those instead and stops nothing. Given cpus, the local ones are pinned there
once started (harness/pinning.py places them).
"""
from __future__ import annotations

from pathlib import Path

from harness.pinning import pin_tree
from processes.ports import free_port


class BackendsFailed(RuntimeError):
    """A backend did not start or could not be seeded."""


class BackendSession:
    """with BackendSession(["mongo", "redis"], state_dir, users) as b: b.mongo_url, b.redis_url."""

    def __init__(self, needed: list[str], state_dir: Path, users: int, mongo_url: str = "",
                 redis_url: str = "", cpus: list[int] | None = None):
        self.needed = list(needed)
        self.state_dir = Path(state_dir)
        self.users = users
        self.mongo_url = mongo_url
        self.redis_url = redis_url
        self.local = None
        self.started: list[str] = []
        self.notes: list[str] = []
        self.cpus = list(cpus or [])

    def __enter__(self) -> "BackendSession":
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def to_start(self) -> list[str]:
        """The backends started here (the others were given by URL)."""
        return [s for s in self.needed if not (self.mongo_url if s == "mongo" else self.redis_url)]

    def pids(self) -> list[int]:
        """The pids of the local backends running (redis-server, FerretDB, PostgreSQL)."""
        if self.local is None or not self.started:
            return []
        return [s.pid for s in self.local.status() if s.running and s.pid]

    def start(self) -> None:
        to_start = self.to_start
        if to_start:
            try:
                from backends.local import BackendError, LocalBackends
            except ImportError as exc:
                raise BackendsFailed(f"backends.local is not importable ({exc}); "
                                     f"pass --mongo-url/--redis-url of running backends") from None
            self.state_dir.mkdir(parents=True, exist_ok=True)
            self.local = LocalBackends(self.state_dir, redis_port=free_port(), mongo_port=free_port())
            try:
                self.started = to_start  # down() stops whatever of them came up, even on failure
                self.local.up(to_start)
            except BackendError as exc:
                raise BackendsFailed(f"local backends did not start: {exc}") from exc
            if "mongo" in to_start:
                self.mongo_url = self.local.mongo_url
            if "redis" in to_start:
                self.redis_url = self.local.redis_url
            urls = {"mongo": self.mongo_url, "redis": self.redis_url}
            self.notes.append(f"local {', '.join(f'{s} at {urls[s]}' for s in to_start)} (state {self.state_dir})")
            if self.cpus:
                pinned = [pid for pid in self.pids() for pid in pin_tree(pid, self.cpus)]
                self.notes.append(f"local backends pinned to cpu {','.join(map(str, self.cpus))} "
                                  f"({len(pinned)} processes)")
        self.seed()

    def seed(self) -> None:
        from backends.seed import seed_mongo, seed_redis

        try:
            if "mongo" in self.needed:
                # The GIN index that serves FerretDB's lookups, on local backends (PostgreSQL engine).
                seed_mongo(self.mongo_url, self.users, self.local.postgres_url if self.local else None)
                self.notes.append(f"seeded {self.mongo_url}: users 1..{self.users}")
            if "redis" in self.needed:
                seed_redis(self.redis_url)
                self.notes.append(f"seeded {self.redis_url}: key name")
        except Exception as exc:  # noqa: BLE001 - pymongo and redis errors alike
            raise BackendsFailed(f"seeding failed: {exc}") from exc

    def stop(self) -> None:
        if self.local is not None and self.started:
            try:
                self.local.down(self.started)
            except Exception as exc:  # noqa: BLE001 - stopping must not hide the real error
                self.notes.append(f"stopping local backends: {exc}")
            self.started = []

    def server_flags(self) -> list[str]:
        flags = []
        if self.mongo_url:
            flags += ["--mongo-url", self.mongo_url]
        if self.redis_url:
            flags += ["--redis-url", self.redis_url]
        return flags
