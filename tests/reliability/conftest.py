"""The reliability suite's hooks: its numbers are written and printed once the run is over.

Fixtures (`backends`, `start_server`, `running`) come from tests/conftest.py; helpers from
reltools.py. See test_reliability_load.py for the knobs (RELIABILITY_SECONDS, RELIABILITY_SCALE).
"""
from __future__ import annotations

import pytest

from reltools import RESULTS, SCALE, SECONDS


@pytest.fixture(scope="session")
def results():
    return RESULTS


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if not RESULTS.rows:
        return  # the reliability tests did not run (deselected by default)
    paths = RESULTS.write()
    terminalreporter.section(f"reliability (RELIABILITY_SECONDS={SECONDS:g}, RELIABILITY_SCALE={SCALE:g})")
    terminalreporter.write_line(RESULTS.markdown())
    terminalreporter.write_line("written: " + ", ".join(str(p) for p in paths))
