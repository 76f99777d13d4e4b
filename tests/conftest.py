"""Fixtures shared by the suite: real backends, and real servers of every catalog entry."""
from __future__ import annotations

import os

import pytest

from servers.core import catalog, interpreters
from serverproc import SEED_USERS, ServerProcess, backend_args, free_port


def _free_threaded_param(item) -> str | None:
    """The free-threaded entry a test item is parametrized with, if any."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    return next((v for v in params.values() if isinstance(v, str) and v in FREE_THREADED_ENTRIES), None)


FREE_THREADED_ENTRIES = {e.name for e in catalog.ENTRIES if e.free_threaded}


def pytest_collection_modifyitems(config, items):
    # The free-threaded entries need .venv-ft (./setup.sh --free-threaded): skipped cleanly without it,
    # but in CI (CI=1), which sets it up, they run (and fail if it is missing).
    if not interpreters.available(interpreters.FREE_THREADED) and not os.environ.get("CI"):
        skip = pytest.mark.skip(reason=f"free-threaded CPython 3.13t is not set up ({interpreters.SETUP_HINT})")
        for item in items:
            if _free_threaded_param(item):
                item.add_marker(skip)
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
