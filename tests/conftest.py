"""Fixtures shared by the suite: real backends, and real servers of every catalog entry."""
from __future__ import annotations

import pytest

from servers.core import catalog
from serverproc import SEED_USERS, ServerProcess, backend_args, free_port


def pytest_collection_modifyitems(config, items):
    # Build the Go binaries once, up front, rather than inside a server's start timeout.
    go_names = [e.name for e in catalog.ENTRIES if e.language == "go"]
    if any(f"[{name}" in item.nodeid for item in items for name in go_names):
        from servers.core.command import build_go

        for name in go_names:
            build_go(name)


@pytest.fixture(scope="session")
def backends(tmp_path_factory):
    """Real redis-server and FerretDB (on PostgreSQL) on free loopback ports, seeded with users 1..SEED_USERS."""
    from backends.local import LocalBackends
    from backends.seed import seed

    local = LocalBackends(state_dir=tmp_path_factory.mktemp("backends"),
                          redis_port=free_port(), mongo_port=free_port())
    local.up()
    try:
        seed(local.mongo_url, local.redis_url, SEED_USERS, local.postgres_url)
        yield local
    finally:
        local.down()


@pytest.fixture(scope="session")
def running(backends):
    """running(name) -> that entry's server, started once per session (again if it died)."""
    servers: dict[str, ServerProcess] = {}

    def get(name: str) -> ServerProcess:
        server = servers.get(name)
        if server is None or server.proc.poll() is not None:
            server = servers[name] = ServerProcess(name, backend_args(backends)).start()
        return server

    yield get
    for server in servers.values():
        server.stop()


@pytest.fixture
def start_server(backends):
    """start_server(name, args) -> a fresh ServerProcess, stopped after the test."""
    started: list[ServerProcess] = []

    def start(name: str, args: list[str] | None = None) -> ServerProcess:
        server = ServerProcess(name, [*backend_args(backends), *(args or [])])
        started.append(server)
        return server.start()

    yield start
    for server in started:
        server.stop()
