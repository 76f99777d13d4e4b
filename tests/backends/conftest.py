"""Real redis-server and FerretDB (on its PostgreSQL) on free loopback ports in a temporary state dir, seeded once."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import psutil
import pymongo.monitoring
import pytest
import redis

from backends.local import LocalBackends
from backends.seed import DEFAULT_USERS, seed, seed_redis

# Every contract check: a dead or hung backend must answer within this many seconds.
CONTRACT_S = 2.0


def free_ports(count: int) -> list[int]:
    """Ports the kernel just handed out; all bound at once so that they are distinct."""
    socks = [socket.socket() for _ in range(count)]
    try:
        for sock in socks:
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in socks]
    finally:
        for sock in socks:
            sock.close()


class PoolEvents(pymongo.monitoring.ConnectionPoolListener):
    """Counts pymongo connection events (sync, async and motor clients alike)."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self._lock = threading.Lock()

    def _count(self, event: object) -> None:
        with self._lock:
            self.counts[type(event).__name__] += 1

    def snapshot(self) -> Counter[str]:
        with self._lock:
            return Counter(self.counts)

    pool_created = pool_ready = pool_cleared = pool_closed = _count
    connection_created = connection_ready = connection_closed = _count
    connection_check_out_started = connection_check_out_failed = _count
    connection_checked_out = connection_checked_in = _count


_pool_events = PoolEvents()
# Applies to clients created from now on, in every driver; it only counts.
pymongo.monitoring.register(_pool_events)


@pytest.fixture(scope="session")
def local_backends(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalBackends]:
    redis_port, mongo_port = free_ports(2)
    backends = LocalBackends(tmp_path_factory.mktemp("backends"), redis_port, mongo_port)
    try:
        backends.up()
        seed(backends.mongo_url, backends.redis_url, DEFAULT_USERS, backends.postgres_url)
        yield backends
    finally:
        backends.down()


@pytest.fixture
def backends(local_backends: LocalBackends) -> Iterator[LocalBackends]:
    """The session backends; a test that stops or pauses one gets it running and seeded again."""
    postgres_before = local_backends.pid("postgres") if "postgres" in local_backends.services else None
    yield local_backends
    if postgres_before is not None and local_backends.pid("postgres") != postgres_before:
        # PostgreSQL was restarted: FerretDB's pooled connections to it were terminated (SQLSTATE 57P01), and it
        # finds that out only by using one, answering that call with the error: the next test would get it.
        local_backends.down(["mongo"])
    for service in local_backends.services:
        pid = local_backends.pid(service)
        if pid:
            _signal_all([pid, *(child.pid for child in psutil.Process(pid).children(recursive=True))], signal.SIGCONT)
    if not all(local_backends.is_running(s) for s in local_backends.services):
        local_backends.up()
    # redis-server runs without persistence: a restart loses the key.
    seed_redis(local_backends.redis_url)


@pytest.fixture
def pool_events() -> PoolEvents:
    return _pool_events


@pytest.fixture
def redis_admin(backends: LocalBackends) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(backends.redis_url, decode_responses=True)
    yield client
    client.close()


@pytest.fixture
def redis_connections(redis_admin: redis.Redis) -> Callable[[], tuple[int, int]]:
    """(connections received since start, clients connected now), as redis-server counts them."""

    def read() -> tuple[int, int]:
        stats, clients = redis_admin.info("stats"), redis_admin.info("clients")
        return stats["total_connections_received"], clients["connected_clients"]

    return read


@pytest.fixture
def mongo_connections(backends: LocalBackends) -> Callable[[], int]:
    """Established TCP connections that the FerretDB process has on its port right now."""
    port = backends.mongo_port

    def count() -> int:
        server = psutil.Process(backends.pid("mongo"))
        return sum(
            1 for c in server.net_connections("tcp") if c.status == psutil.CONN_ESTABLISHED and c.laddr.port == port
        )

    return count


def _wait_until(predicate: Callable[[], bool], timeout: float = 2.0) -> bool:
    """Poll: the server notices a closed socket a moment after the client closed it."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def _all_threads_stopped(pid: int) -> bool:
    states = []
    for stat in Path(f"/proc/{pid}/task").glob("*/stat"):
        with contextlib.suppress(OSError):
            states.append(stat.read_text().rpartition(")")[2].split()[0])
    return bool(states) and all(state in ("T", "t") for state in states)


@contextlib.contextmanager
def _paused(backends: LocalBackends, service: str) -> Iterator[None]:
    """SIGSTOP the service: it keeps its port and connections but never answers (a hung backend).

    Its children too: PostgreSQL serves each connection from a child of its postmaster (each in a
    session of its own). A stopped postmaster forks no new ones.
    """
    pid = backends.pid(service)
    assert pid, f"{service} is not running"
    pids = [pid, *(child.pid for child in psutil.Process(pid).children(recursive=True))]
    _signal_all(pids, signal.SIGSTOP)
    try:
        # kill() returns before every thread has stopped; a request could still be served.
        for each in pids:
            assert _wait_until(lambda: _all_threads_stopped(each) or not psutil.pid_exists(each)), (
                f"{service} (pid {each}) did not stop"
            )
        yield
    finally:
        _signal_all(pids, signal.SIGCONT)


def _signal_all(pids: list[int], sig: signal.Signals) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)


# Test modules cannot import this conftest by name (tests/conftest.py shares it), hence fixtures.
@pytest.fixture
def wait_until() -> Callable[..., bool]:
    return _wait_until


@pytest.fixture
def paused(backends: LocalBackends) -> Callable[[str], contextlib.AbstractContextManager[None]]:
    return lambda service: _paused(backends, service)


@pytest.fixture
def contract_s() -> float:
    return CONTRACT_S


@pytest.fixture
def free_port() -> int:
    return free_ports(1)[0]
