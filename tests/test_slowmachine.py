"""Time limits follow the machine's speed (tests/slowmachine.py): the limit a test runs under is its declared
one (or pyproject's default) times the factor the controller measured."""
from __future__ import annotations

import os

import pytest

import slowmachine


def _limit(request) -> int:
    return request.node.get_closest_marker("timeout").args[0]


def test_the_default_limit_is_scaled_by_the_machine_speed(request):
    factor = float(os.environ[slowmachine.ENV])
    assert factor >= 1.0
    assert _limit(request) == round(float(request.config.getini("timeout")) * factor)


@pytest.mark.timeout(10)
def test_a_declared_limit_is_scaled_too(request):
    assert _limit(request) == round(10 * float(os.environ[slowmachine.ENV]))
