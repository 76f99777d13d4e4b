"""The reliability suite's hooks: its numbers are written and printed once the run is over.

Fixtures (`backends`, `start_server`, `running`) come from tests/conftest.py; helpers from
reltools.py. See test_reliability_load.py for the knobs (RELIABILITY_SECONDS, RELIABILITY_SCALE).
"""
from __future__ import annotations

import fnmatch

import pytest

from conformance import known
from recording import ENABLED as RECORDING, Recorder
from reltools import RESULTS, SCALE, SECONDS
from serverproc import ServerProcess
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


def pytest_terminal_summary(terminalreporter, exitstatus, config):
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

    def get(name: str) -> ServerProcess:
        server = current.get(name)
        if server is None or server.proc.poll() is not None:
            for old in current.values():
                old.kill()
            current.clear()
            args = ["--mongo-url", backends.mongo_url, "--redis-url", backends.redis_url]
            server = current[name] = ServerProcess(name, args).start()
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


def known_limitation(test_name: str) -> tuple[bool, str] | None:
    for entry in catalog.ENTRIES:
        if f"[{entry.name}" not in test_name:
            continue  # every pattern names the stack first: skip the fnmatch of thousands of tests
        for key in entry.caveats:
            for pattern, strict in catalog.CAVEAT_EVIDENCE.get(key, ()):
                if fnmatch.fnmatchcase(test_name, _brackets_literal(pattern.format(name=entry.name))):
                    return strict, f"catalog caveat {key!r}: {catalog.CAVEATS[key]}"
    return None


def _brackets_literal(pattern: str) -> str:
    """A test id's [...] is literal text, not an fnmatch character class; * stays a wildcard."""
    return "".join({"[": "[[]", "]": "[]]"}.get(char, char) for char in pattern)


def pytest_collection_modifyitems(config, items):
    for item in items:
        known = known_limitation(item.name)
        if known:
            strict, reason = known
            item.add_marker(pytest.mark.xfail(strict=strict, reason=reason))
