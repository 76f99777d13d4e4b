"""A worker that dies is replaced, or the server exits non-zero: never a server left up on fewer
workers, nor one that stops as if it had been asked to (exit 0).

One stack per way of supervising workers (a server adapter module: gunicorn's arbiter, the suite's
pre-fork supervisor under gevent, tornado and waitress, uWSGI's master, granian's, uvicorn's,
Hypercorn's and Sanic's), started with two workers, one of them SIGKILLed; what the server does is
the server's, not the app's. A server whose spec says it replaces dead workers
(ServerSpec.replaces_dead_workers) must replace it. The reliability suite's
test_killed_worker_is_replaced does the same on every such stack, under requests.
"""
from __future__ import annotations

import os
import signal
import time

import psutil
import pytest

from servers.core import catalog
from serverproc import ServerProcess

RECOVERY_S = 15.0  # a spawned worker imports its framework before it holds the socket


def _one_stack_per_supervisor() -> list[str]:
    chosen: dict[str, str] = {}
    for entry in catalog.python_entries():
        spec = entry.server_spec
        if spec.max_workers == 1 or spec.process_per_connection:
            continue  # one process, or no standing workers (a child per connection)
        chosen.setdefault(spec.serve_module, entry.name)
    return list(chosen.values())


def workers(server: ServerProcess) -> set[int]:
    """The root's child processes that listen on the port (not multiprocessing's resource tracker
    nor Sanic's manager process)."""
    found = set()
    for child in psutil.Process(server.proc.pid).children():
        try:
            if any(c.status == psutil.CONN_LISTEN and c.laddr.port == server.port
                   for c in child.net_connections(kind="tcp")):
                found.add(child.pid)
        except psutil.NoSuchProcess:
            pass
    return found


def _until(condition, within: float):
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        got = condition()
        if got:
            return got
        time.sleep(0.05)
    return None


@pytest.mark.parametrize("name", _one_stack_per_supervisor())
def test_killed_worker_is_replaced_or_the_server_exits_non_zero(name):
    entry = catalog.get(name)
    server = ServerProcess(name, ["--workers", "2"]).start()
    try:
        before = _until(lambda: got if len(got := workers(server)) == 2 else None, RECOVERY_S)
        assert before, f"{name}: workers {workers(server)} after the ready line, 2 announced"
        victim = min(before)
        os.kill(victim, signal.SIGKILL)

        def outcome():
            if server.proc.poll() is not None:
                return "exited"
            now = workers(server)
            return "replaced" if victim not in now and len(now) == 2 else None

        happened = _until(outcome, RECOVERY_S)
        stderr = server.stderr_text()
        assert happened, (f"{name}: {len(workers(server))} of 2 workers {RECOVERY_S:g} s after worker {victim} was "
                          f"killed, and the server is still up; stderr:\n{stderr}")
        if happened == "exited":
            assert server.proc.returncode != 0, f"{name}: a worker died and the server exited 0; stderr:\n{stderr}"
            assert not entry.server_spec.replaces_dead_workers, (
                f"{name}: its spec says it replaces dead workers, but it exited ({server.proc.returncode})")
        else:
            status = _until(lambda: _get_status(server), RECOVERY_S)
            assert status == 200, f"{name}: after a worker was replaced, GET / answered {status}"
    finally:
        server.stop()


def _get_status(server: ServerProcess) -> int | None:
    try:
        response, _ = server.request("/", timeout=2)
        return response.status
    except OSError:
        return None
