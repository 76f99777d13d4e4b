"""Verification records: a section is merged in without losing the other, and only complete runs verify."""
from __future__ import annotations

import json

import pytest

from servers.core import records


@pytest.fixture
def records_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(records, "RECORDS_DIR", tmp_path)
    return tmp_path


def run(complete: bool = True) -> dict:
    return {"date": "2026-12-04T21:00Z", "commit": "abc", "versions": {"gunicorn": "23.0.0"}, "complete": complete}


def test_no_record_is_unverified(records_dir):
    assert records.load("flask_gunicorn") is None
    assert not records.verified("flask_gunicorn")
    assert records.status("flask_gunicorn") == "unverified"


def test_a_section_is_merged_in_and_the_other_kept(records_dir):
    conformance = {"run": run(), "cases": {"cl-and-te": {"answers": "400 closed", "verdict": "refused", "effect": None}}}
    records.write_section("flask_gunicorn", "conformance", conformance)
    assert not records.verified("flask_gunicorn"), "one section is not a verified stack"
    reliability = {"run": run(), "tests": {"test_reliability_faults.py::test_kill_worker": "passed"}}
    path = records.write_section("flask_gunicorn", "reliability", reliability)
    record = json.loads(path.read_text())
    assert record == {"entry": "flask_gunicorn", "conformance": conformance, "reliability": reliability}
    assert records.verified("flask_gunicorn")
    # sorted keys, indented: a re-run's diff shows only what changed
    assert path.read_text() == json.dumps(record, indent=2, sort_keys=True) + "\n"
    assert list(records_dir.iterdir()) == [path], "no temporary file left behind"


def test_an_incomplete_run_does_not_verify(records_dir):
    records.write_section("sanic", "conformance", {"run": run(), "cases": {}})
    records.write_section("sanic", "reliability", {"run": run(complete=False), "tests": {}})
    assert not records.verified("sanic")
    records.write_section("sanic", "reliability", {"run": run(), "tests": {}})
    assert records.verified("sanic")


def test_an_unknown_section_is_refused(records_dir):
    with pytest.raises(ValueError, match="unknown record section"):
        records.write_section("sanic", "benchmark", {})


def test_the_catalog_tags_a_stack_without_a_complete_record_unverified(records_dir):
    from servers.core import catalog

    app, server = catalog.APPS["flask"], catalog.SERVERS["gunicorn-sync"]
    entry = catalog._entry(app, server)
    assert entry.name == "flask_gunicorn" and not entry.verified
    assert entry.tags == (catalog.PRODUCTION, catalog.UNVERIFIED)
    for section in records.SECTIONS:
        records.write_section("flask_gunicorn", section, {"run": run(), "cases": {}, "tests": {}})
    entry = catalog._entry(app, server)
    assert entry.verified and entry.tags == (catalog.PRODUCTION,)


def test_a_recorded_failure_does_not_verify(records_dir):
    records.write_section("tornado", "conformance", {"run": run(), "cases": {}})
    records.write_section("tornado", "reliability", {"run": run(), "tests": {"test_a": "passed", "test_b": "failed"}})
    assert records.recorded("tornado") and records.failures("tornado") == ["test_b"]
    assert not records.verified("tornado")
    records.write_section("tornado", "reliability", {"run": run(), "tests": {"test_a": "passed", "test_b": "xfailed"}})
    assert records.verified("tornado")


def test_every_production_stack_has_a_complete_record():
    """A production stack is vouched for by runs the suite recorded (records/<entry>.json), not assumed: a
    new one fails here until its conformance and reliability runs are written (docs/reliability.md; docs/contributing.md, step 6)."""
    from servers.core import catalog

    missing = [e.name for e in catalog.ENTRIES if not e.dev_only and not records.recorded(e.name)]
    assert not missing, (
        f"{len(missing)} production stack(s) without a complete record: {', '.join(missing)}; write it with "
        "`CONFORMANCE_RECORD=1 RELIABILITY_RECORD=1 RELIABILITY_SECONDS=3 RELIABILITY_SCALE=0.1 "
        "./test.sh -m reliability tests/reliability -k ENTRY`, then `python -m servers.generate`")
