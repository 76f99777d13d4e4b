"""The stored settings and fronts runs (docs/data/conformance/), checked against a fresh run: each front
does with each case what the page says, and each setting closes and breaks the cases the page says
(capacity is the benchmark's to measure, not a test's). Under -m columns: about 2 minutes (92 s on a busy 2-core machine)."""
from __future__ import annotations

import pytest

from conformance import cases, columns, fronts, settings

pytestmark = pytest.mark.columns

STORED_SETTINGS, STORED_FRONTS = columns.load()


@pytest.mark.parametrize("front", sorted(STORED_FRONTS["versions"]))
def test_each_front_does_what_the_stored_run_says(front):
    stored = {f["case"]: f["outcome"] for f in STORED_FRONTS["forwarded"] if f["front"] == front}
    found = {f.case: f.outcome for f in fronts.capture(front, list(cases.CASES))}
    assert found == stored


def _column(server: str, key: str) -> dict:
    return next(c for c in STORED_SETTINGS["columns"] if c["server"] == server and c["setting"] == key)


@pytest.mark.parametrize(("server", "key"), [(c["server"], c["setting"]) for c in STORED_SETTINGS["columns"]
                                             if c["setting"] != settings.DEFAULT])
def test_each_setting_closes_and_breaks_what_the_stored_run_says(server, key):
    setting = next((s for s in settings.runnable(server) if s.key == key), None)
    if setting is None:
        pytest.skip(f"{key} needs a package this machine lacks (pip install -e '.[all]', or SETTINGS_EXTRA_PATH)")
    default, other = settings.column(server), settings.column(server, setting)
    stored = settings.compare(settings.Column(**_column(server, settings.DEFAULT)),
                              settings.Column(**_column(server, key)))
    assert settings.compare(default, other) == stored
