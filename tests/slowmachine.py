"""Test time limits in the reference machine's seconds: every pytest-timeout limit (pyproject's default and each
`@pytest.mark.timeout`) is multiplied by how many times slower this machine is than the reference machine
(bench.noise's CPU loop, measured once by the controller), so a limit cuts a hung test, never a slow machine's
honest one. A limit given on the command line (`--timeout`) is taken as it is."""
from __future__ import annotations

import os

import pytest

ENV = "REFSUITE_SPEED_FACTOR"
MOST = 4.0  # a machine slower than this is reported by CI's speed probe, not absorbed here


def measure() -> float:
    """The controller's reading, exported to the workers it starts."""
    if ENV not in os.environ:
        from bench import noise

        os.environ[ENV] = f"{min(MOST, noise.speed_factor(noise.speed_ms())):.2f}"
    return float(os.environ[ENV])


def scale(config, items) -> None:
    if config.getoption("timeout", None) is not None:
        return
    factor = float(os.environ.get(ENV, "1"))
    default = float(config.getini("timeout") or 0)
    for item in items:
        marker = item.get_closest_marker("timeout")
        seconds = marker.args[0] if marker and marker.args else marker.kwargs.get("timeout") if marker else default
        if seconds:
            item.add_marker(pytest.mark.timeout(round(float(seconds) * factor)), append=False)
