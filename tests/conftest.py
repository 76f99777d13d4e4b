"""Fixtures shared by the suite: real servers of every catalog entry on free loopback ports."""
from __future__ import annotations

import pytest

from servers import catalog
from serverproc import ServerProcess

ENTRY_NAMES = [e.name for e in catalog.ENTRIES]


def pytest_collection_modifyitems(config, items):
    # Build the Go binaries once, up front, rather than inside a server's start timeout.
    if any("[" in item.nodeid and any(f"[{e.name}" in item.nodeid for e in catalog.ENTRIES if e.language == "go")
           for item in items):
        from servers.run import build_go

        for name in catalog.GO_COMMANDS:
            build_go(name)


@pytest.fixture(scope="session")
def start_server():
    """start_server(name, args) -> a started ServerProcess, stopped at the end of the session."""
    started: list[ServerProcess] = []

    def start(name: str, args: list[str] | None = None, env: dict[str, str] | None = None) -> ServerProcess:
        server = ServerProcess(name, args, env)
        started.append(server)
        return server.start()

    yield start
    for server in started:
        server.stop()
