"""The grid's pins: the "http2" section of records/<entry>.json (servers/core/records.py), for each mode of
the entry the result of every h2spec case and each attack's outcome with its numbers.

Written only when H2GRID_RECORD=1 (a partial run while debugging overwrites nothing), merged into what the
section holds (a run of one mode or one attack replaces only that). A record's h2spec results come from
RECORD_RUNS runs: a case whose result differed between them is pinned as "varies" (h2spec races a server
that answers a request before it reads the frame that follows it) and then accepts either result.
Otherwise a run compares: a case whose result differs from its pin is run again alone, up to RETRIES times,
and fails the run with the new result if it never gives the pinned one; an attack whose outcome differs is
probed again once, then fails with the new numbers.

    H2GRID_RECORD=1 ./test.sh -m h2grid [-k ENDPOINT]
"""
from __future__ import annotations

import datetime
import os
import subprocess
import threading
from collections import defaultdict
from pathlib import Path

from h2grid import h2spec
from h2grid.endpoints import Endpoint, endpoints
from servers.core import records

SECTION = "http2"
ENABLED = os.environ.get("H2GRID_RECORD", "") == "1"
RECORD_RUNS = 3
RETRIES = 2
VARIES = "varies"


def merge_runs(runs: list[dict[str, h2spec.Case]]) -> dict[str, dict]:
    """{case id: {"result": passed|failed|skipped|varies, ...}} from several runs of the same cases: a failure's
    description and message (the first run's), how many runs failed when it varied."""
    merged: dict[str, dict] = {}
    for case_id in runs[0]:
        seen = [run[case_id] for run in runs if case_id in run]
        results = {case.result for case in seen}
        if results == {h2spec.PASSED}:
            merged[case_id] = {"result": h2spec.PASSED}
            continue
        failed = [case for case in seen if case.result == h2spec.FAILED]
        pin = {"result": results.pop() if len(results) == 1 else VARIES, "description": seen[0].description}
        if failed:
            pin["message"] = failed[0].message
        if pin["result"] == VARIES:
            pin["failed_runs"] = f"{len(failed)} of {len(seen)}"
        merged[case_id] = pin
    return merged


def mismatches(pinned: dict[str, dict], got: dict[str, h2spec.Case]) -> list[str]:
    """The case ids whose result differs from the pin (no pin at all differs; a "varies" pin accepts any)."""
    wrong = []
    for case_id, case in got.items():
        pin = pinned.get(case_id)
        if pin is None or (pin["result"] != VARIES and pin["result"] != case.result):
            wrong.append(case_id)
    return wrong + [case_id for case_id in pinned if case_id not in got]


def failing(cases: dict[str, dict]) -> list[str]:
    """The case ids a record holds as failed or varying."""
    return [case_id for case_id, pin in cases.items() if pin["result"] in (h2spec.FAILED, VARIES)]


def section(entry: str) -> dict:
    return (records.load(entry) or {}).get(SECTION) or {}


def pinned_mode(endpoint: Endpoint) -> dict:
    """The record's {"h2spec": {"cases": ...}, "attacks": {...}, "versions": ...} of the endpoint's mode ({} without)."""
    return section(endpoint.entry).get("modes", {}).get(endpoint.mode.name, {})


class Collected:
    """What a recording run found, per endpoint; written into the records when the run is over."""

    def __init__(self) -> None:
        self.modes: dict[str, dict[str, dict]] = defaultdict(dict)  # entry -> mode -> {"h2spec", "attacks", "versions"}
        self._lock = threading.Lock()

    def _mode(self, endpoint: Endpoint) -> dict:
        return self.modes[endpoint.entry].setdefault(endpoint.mode.name, {})

    def h2spec(self, endpoint: Endpoint, cases: dict[str, dict], versions: dict[str, str]) -> None:
        with self._lock:
            mode = self._mode(endpoint)
            mode["h2spec"] = {"runs": RECORD_RUNS, "cases": cases}
            mode["versions"] = versions

    def attack(self, endpoint: Endpoint, key: str, result: dict, versions: dict[str, str]) -> None:
        with self._lock:
            mode = self._mode(endpoint)
            mode.setdefault("attacks", {})[key] = result
            mode["versions"] = versions

    def write(self, attack_keys: tuple[str, ...]) -> list[Path]:
        """Merge what ran into each entry's section; complete when every mode of the entry has h2spec and every attack."""
        commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                                cwd=Path(__file__).parent).stdout.strip()
        date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%MZ")
        written = []
        for entry, modes in self.modes.items():
            data = section(entry) or {"modes": {}}
            for name, found in modes.items():
                mode = data["modes"].setdefault(name, {})
                if "h2spec" in found:
                    mode["h2spec"] = found["h2spec"]
                mode.setdefault("attacks", {}).update(found.get("attacks", {}))
                mode["versions"] = found["versions"]
                mode["recorded"] = {"date": date, "commit": commit}
            wanted = [e.mode.name for e in endpoints() if e.entry == entry]
            data["run"] = {"h2spec": h2spec.version(),
                           "complete": all("h2spec" in data["modes"].get(m, {})
                                           and set(attack_keys) <= set(data["modes"].get(m, {}).get("attacks", {}))
                                           for m in wanted)}
            written.append(records.write_section(entry, SECTION, data))
        return written


COLLECTED = Collected()
