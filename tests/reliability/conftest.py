"""The reliability suite's hooks: its numbers are written and printed once the run is over.

Fixtures (`backends`, `start_server`, `running`) come from tests/conftest.py; helpers from
reltools.py. See test_reliability_load.py for the knobs (RELIABILITY_SECONDS, RELIABILITY_SCALE).
"""
from __future__ import annotations

import json

import pytest

import rundir
from conformance import known
from recording import ENABLED as RECORDING, Recorder
from reltools import RESULTS, SCALE, SECONDS
from serverproc import ServerProcess, backend_args
from servers.core import catalog


@pytest.fixture(scope="session")
def results():
    return RESULTS


@pytest.fixture
def start_server(start_server):
    """tests/conftest.py's start_server, but each server's process group is SIGKILLed when the
    test ends: SIGTERM is tested by test_hello_contract, and here it would cost up to 4 s a stack
    (the twisted WSGI stacks wait out their exit deadline)."""
    started = []

    def start(name: str, args: list[str] | None = None):
        server = start_server(name, args)
        started.append(server)
        return server

    yield start
    for server in started:
        server.kill()


RECORDER = Recorder()


def pytest_deselected(items):
    RECORDER.deselect(items)


def pytest_collection_finish(session):
    RECORDER.collected(session.items)


def pytest_runtest_logreport(report):
    item = _ITEMS.get(report.nodeid)
    if item is not None:
        RECORDER.report(item, report)


_ITEMS: dict = {}


def pytest_itemcollected(item):
    _ITEMS[item.nodeid] = item


def pytest_sessionfinish(session):
    """A parallel worker leaves what it saw (outcomes, numbers) for the controller, which writes the records
    and prints the table (tests/conftest.py: the run's directory)."""
    worker = getattr(session.config, "workerinput", {}).get("workerid")
    if worker and rundir.path() is not None and (RECORDER.outcomes or RESULTS.rows):
        state = {"recorder": RECORDER.state(), "results": RESULTS.rows}
        (rundir.path() / f"reliability-{worker}.json").write_text(json.dumps(state))


def _gather_workers() -> None:
    if rundir.path() is None:
        return
    for path in sorted(rundir.path().glob("reliability-gw*.json")):
        state = json.loads(path.read_text())
        RECORDER.merge(state["recorder"])
        RESULTS.merge(state["results"])


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    _gather_workers()
    if RECORDING and RECORDER.selected:  # records/<entry>.json: only when asked, so a partial run overwrites nothing
        interrupted = exitstatus == pytest.ExitCode.INTERRUPTED or bool(config.getoption("maxfail", 0))
        written = RECORDER.write(interrupted, SECONDS, SCALE)
        terminalreporter.write_line(f"reliability records: {len(written)} written in {written[0].parent}")
    if not RESULTS.rows:
        return  # the reliability tests did not run (deselected by default)
    paths = RESULTS.write()
    terminalreporter.section(f"reliability (RELIABILITY_SECONDS={SECONDS:g}, RELIABILITY_SCALE={SCALE:g})")
    terminalreporter.write_line(RESULTS.markdown())
    terminalreporter.write_line("written: " + ", ".join(str(p) for p in paths))


@pytest.fixture(scope="module")
def shared_server(backends):
    """shared_server(name) -> that stack's server, shared by the consecutive tests of a module
    that ask for the same stack (parametrized stack-major); the previous stack's server is
    SIGKILLed when the next one is asked for, the last one when the module ends."""
    current: dict[str, ServerProcess] = {}

    def get(name: str, on=None) -> ServerProcess:
        """on: other backends than the shared ones (a worker's private set, for a test that kills them)."""
        server = current.get(name)
        chosen = on or backends
        if server is None or server.proc.poll() is not None or server.backends is not chosen:
            for old in current.values():
                old.kill()
            current.clear()
            server = current[name] = ServerProcess(name, backend_args(chosen), backends=chosen).start()
        return server

    yield get
    for server in current.values():
        server.kill()


# The catalog's caveats are findings of this suite about production stacks: each is expected to show
# as the failure of the tests its declaration names (Caveat.evidence, catalog.CAVEAT_EVIDENCE), or of
# the HTTP/1.1 conformance cases it stands for (known.KNOWN), or of the h2spec cases (Caveat.h2spec: the HTTP/2
# grid's records show them, tests/test_h2grid_logic.py checks).
assert set(catalog.CAVEAT_EVIDENCE) | set(known.KNOWN) | set(catalog.CAVEAT_H2SPEC) == set(catalog.CAVEATS), \
    "every catalog caveat needs the test that shows it"
