"""Fixtures and hooks shared by the suite: backends on demand, real servers of every catalog entry, and
the parallel run (pytest-xdist workers, each with ports of its own, `alone` tests on a quiet machine)."""
from __future__ import annotations

import os
import shutil
import tempfile
from collections import OrderedDict
from pathlib import Path

import pytest

import alone
import caveats
import rundir
import extras
import scheduling
import selection
import slowmachine
from ondemand import OnDemandBackends
from processes import ports
from servers.core import catalog, interpreters
from serverproc import ServerProcess, backend_args

# Ports of each worker (REFSUITE_PORTS): below PostgreSQL's private range (backends/postgres.py) and the
# ephemeral one, above compose's published ports; the controller's (a run without workers) last.
PORTS_BASE, PORTS_PER_WORKER = 10000, 1000
CONTROLLER_PORTS = "19000-19999"
# A worker keeps this many stacks' servers running (`running`); its tests come grouped by stack.
SERVERS_KEPT = 3


def _worker_id(config) -> str | None:
    return getattr(config, "workerinput", {}).get("workerid")


def pytest_configure(config):
    worker = _worker_id(config)
    if worker is None:  # the controller: what the workers it starts inherit
        slowmachine.measure()
        run_dir = Path(tempfile.mkdtemp(prefix="refsuite-tests-"))
        os.environ[rundir.ENV] = str(run_dir)
        os.environ[ports.RANGE_ENV] = CONTROLLER_PORTS
        if getattr(config.option, "numprocesses", None):  # workers will run: `alone` tests need the lock
            os.environ[alone.DIR_ENV] = str(run_dir)
    else:
        index = int(worker.removeprefix("gw"))
        low = PORTS_BASE + index * PORTS_PER_WORKER
        os.environ[ports.RANGE_ENV] = f"{low}-{low + PORTS_PER_WORKER - 1}"


def pytest_unconfigure(config):
    if _worker_id(config) is None and rundir.path() is not None:
        run_dir = rundir.path()
        if (run_dir / "backends").exists():
            OnDemandBackends(run_dir / "backends").stop_all()
        shutil.rmtree(run_dir, ignore_errors=True)


def _free_threaded_param(item) -> str | None:
    """The free-threaded entry a test item is parametrized with, if any."""
    return next((name for name in _entry_params(item) if name in FREE_THREADED_ENTRIES), None)


def _entry_params(item) -> list[str]:
    """The catalog entries a test item is parametrized with."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    return [v for v in params.values() if isinstance(v, str) and v in catalog.BY_NAME]


FREE_THREADED_ENTRIES = {e.name for e in catalog.ENTRIES if e.free_threaded}



def pytest_collection_modifyitems(config, items):
    # The free-threaded entries need .venv-ft (./setup.sh --free-threaded): skipped cleanly without it,
    # but in CI (CI=1), which sets it up, they run (and fail if it is missing).
    if not interpreters.available(interpreters.FREE_THREADED) and not os.environ.get("CI"):
        skip = pytest.mark.skip(reason=f"free-threaded CPython 3.13t is not set up ({interpreters.SETUP_HINT})")
        for item in items:
            if _free_threaded_param(item):
                item.add_marker(skip)
    # A catalog caveat's evidence is an expected failure on the stacks it qualifies (tests/caveats.py).
    for item in items:
        known = caveats.known_limitation(item.name)
        if known:
            strict, reason = known
            item.add_marker(pytest.mark.xfail(strict=strict, reason=reason))
    # An entry whose extra is not installed (`pip install -e '.[flask,test]'` alone) is skipped, saying which.
    for item in items:
        reasons = [why for name in _entry_params(item) if (why := extras.missing(name))]
        if reasons:
            item.add_marker(pytest.mark.skip(reason=reasons[0]))
    # Time limits in the reference machine's seconds (tests/slowmachine.py).
    slowmachine.scale(config, items)
    # A test that stops its stack's shared server (`running`) comes after every other test of the stack.
    items.sort(key=lambda item: item.get_closest_marker("stops_server") is not None)
    # A stack's tests go to one worker, which starts its server once for all of them; the `alone` tests are
    # one group, run one after the other while no other test runs (tests/alone.py, tests/scheduling.py).
    worker = _worker_id(config)
    if worker is not None:
        groups = {}
        for item in items:
            names = _entry_params(item)
            if item.get_closest_marker("alone"):
                groups[item.nodeid] = alone.GROUP
            elif item.get_closest_marker("compose"):  # one podman and one compose project for all of them
                groups[item.nodeid] = "compose"
            elif names:
                groups[item.nodeid] = names[0]
        scheduling.write(rundir.path(), worker, groups)
    # Build the Go binaries once, up front, rather than inside a server's start timeout.
    go_names = [e.name for e in catalog.ENTRIES if e.language == "go"]
    if any(name in _entry_params(item) for item in items for name in go_names):
        from servers.core.command import build_go

        for name in go_names:
            build_go(name)


def pytest_xdist_make_scheduler(config, log):
    """The controller hands out the workers' tests by their groups (tests/scheduling.py)."""
    return scheduling.GroupScheduling(config, log, rundir.path())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Each test holds the run lock (tests/alone.py); an `alone` test keeps it exclusive for the next
    one when that is `alone` too."""
    is_alone = item.get_closest_marker("alone") is not None
    alone.TURNS.take(is_alone)
    try:
        return (yield)
    finally:
        if not (is_alone and nextitem is not None and nextitem.get_closest_marker("alone")):
            alone.TURNS.give_back()


@pytest.fixture(scope="session")
def backends():
    """Real redis-server and FerretDB (on PostgreSQL), seeded with users 1..SEED_USERS, shared by every
    worker: their URLs are fixed now, each is started when a test first needs it (`backends.ensure`,
    or a ServerProcess request to one of its routes)."""
    return OnDemandBackends(rundir.path() / "backends")


@pytest.fixture(scope="session")
def private_backends(tmp_path_factory):
    """Backends of this worker alone, for a test that stops or kills one (started on demand too)."""
    local = OnDemandBackends(tmp_path_factory.mktemp("private-backends"))
    yield local
    local.stop_all()


def _kept_servers(backends, args: list[str]):
    """get(name) -> that entry's server started with these flags, once (again if it died), the last SERVERS_KEPT
    stacks' kept running; then, at the end, every one stopped."""
    servers: OrderedDict[str, ServerProcess] = OrderedDict()

    def get(name: str) -> ServerProcess:
        server = servers.get(name)
        if server is None or server.proc.poll() is not None:
            server = servers[name] = ServerProcess(name, [*backend_args(backends), *args], backends=backends).start()
            while len(servers) > SERVERS_KEPT:
                servers.popitem(last=False)[1].stop()
        servers.move_to_end(name)
        return server

    yield get
    for server in servers.values():
        server.stop()


@pytest.fixture(scope="session")
def running(backends):
    """running(name) -> that entry's server, started once (again if it died); the worker keeps the last
    SERVERS_KEPT stacks' servers running, since its tests come grouped by stack."""
    yield from _kept_servers(backends, [])


@pytest.fixture(scope="session")
def running_one_worker(backends):
    """running(name) with --workers 1: one process takes every connection (a WebSocket broadcast's clients)."""
    yield from _kept_servers(backends, ["--workers", "1"])


@pytest.fixture
def start_server(backends):
    """start_server(name, args) -> a fresh ServerProcess, stopped after the test."""
    started: list[ServerProcess] = []

    def start(name: str, args: list[str] | None = None, on=None) -> ServerProcess:
        chosen = on or backends
        server = ServerProcess(name, [*backend_args(chosen), *(args or [])], backends=chosen)
        started.append(server)
        return server.start()

    yield start
    for server in started:
        server.stop()


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """A -k that matches no test (a wrong entry or owner name) says so, with the names it could have meant."""
    selection.report(terminalreporter, exitstatus, config.option.keyword)
