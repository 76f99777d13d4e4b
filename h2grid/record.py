"""The grid's pins: the "http2" section of records/<entry>.json (servers/core/records.py), for each mode of
the entry the result of every h2spec case and each attack's outcome with its numbers.

Written only when H2GRID_RECORD=1 (a partial run while debugging overwrites nothing), merged into what the
section holds (a run of one mode or one attack replaces only that). A record's h2spec results come from
RECORD_RUNS runs: a case that failed in any of them is pinned as failed with the count, `failed_runs` of `runs`
(h2spec races a server that answers a request before it reads the frame that follows it, so some fail in some runs
only). A run compares: a case pinned as failing, or passing, in every run that gives the other result is run again
alone, up to RETRIES times, and fails the run if it never gives the pinned one; a case pinned as failing in some runs
only is taken either way by one run (one run cannot tell 1 in 3 from never, and run alone the races seldom show:
17 such cases gave no failure in 3 runs alone each), its count re-counted by each recording; an attack whose
outcome differs is probed again once, then fails with the new numbers.

    H2GRID_RECORD=1 ./test.sh -m h2grid [-k ENDPOINT]
"""
from __future__ import annotations

import os
import threading
from collections import defaultdict
from pathlib import Path

from h2grid import h2spec
from h2grid.endpoints import Endpoint, endpoints, libraries_of
from servers.core import records

SECTION = "http2"
ENABLED = os.environ.get("H2GRID_RECORD", "") == "1"
RECORD_RUNS = 3
RETRIES = 2
VARIES = "varies"


def merge_runs(runs: list[dict[str, h2spec.Case]]) -> dict[str, dict]:
    """{case id: {"result": passed|failed|skipped, ...}} from several runs of the same cases: a failure's description
    and message (the first failing run's) and in how many of the runs it failed."""
    merged: dict[str, dict] = {}
    for case_id in runs[0]:
        seen = [run[case_id] for run in runs if case_id in run]
        failed = [case for case in seen if case.result == h2spec.FAILED]
        if not failed:
            merged[case_id] = {"result": seen[0].result} if seen[0].result == h2spec.PASSED else {
                "result": seen[0].result, "description": seen[0].description}
            continue
        merged[case_id] = {"result": h2spec.FAILED, "description": seen[0].description, "message": failed[0].message,
                           "failed_runs": len(failed), "runs": len(seen)}
    return merged


def failed_count(pin: dict) -> tuple[int, int]:
    """(runs it failed in, runs) of a pin; "varies" pins of older records ("1 of 3") read as counts."""
    if pin["result"] not in (h2spec.FAILED, VARIES):
        return 0, pin.get("runs", RECORD_RUNS)
    count = pin.get("failed_runs")
    if isinstance(count, str):
        failed, _, runs = count.partition(" of ")
        return int(failed), int(runs)
    return (count, pin["runs"]) if count is not None else (pin.get("runs", RECORD_RUNS),) * 2


def intermittent(pin: dict) -> bool:
    failed, runs = failed_count(pin)
    return 0 < failed < runs


def racy(endpoint: Endpoint) -> set[str]:
    """The cases the server's caveats declare races ("~": they may pass), in the endpoint's mode."""
    from servers.core import catalog

    found = set()
    for caveat in catalog.SERVERS[endpoint.server].caveats:
        for case in caveat.h2spec:
            mode, _, case_id = case.partition(":") if case.startswith(("h2:", "h2c:")) else ("", "", case)
            if case_id.startswith("~") and mode in ("", endpoint.mode.name):
                found.add(case_id.removeprefix("~"))
    return found


def mismatches(pinned: dict[str, dict], got: dict[str, h2spec.Case], races: set[str] = frozenset()) -> list[str]:
    """The case ids whose result differs from the pin (no pin at all differs). A case pinned as failing in some
    runs only, or declared a race by a caveat (`races`: pinned passing or failing in every recorded run, it may give
    the other next), differs only when it gives a result other than passed or failed."""
    wrong = []
    for case_id, case in got.items():
        pin = pinned.get(case_id)
        if pin is None:
            wrong.append(case_id)
        elif intermittent(pin) or case_id in races:
            if case.result not in (h2spec.PASSED, h2spec.FAILED):
                wrong.append(case_id)
        elif (h2spec.FAILED if pin["result"] == VARIES else pin["result"]) != case.result:
            wrong.append(case_id)
    return wrong + [case_id for case_id in pinned if case_id not in got]


def failing(cases: dict[str, dict]) -> list[str]:
    """The case ids a record holds as failed (in any of its runs)."""
    return [case_id for case_id, pin in cases.items() if pin["result"] in (h2spec.FAILED, VARIES)]


def not_the_servers(endpoint: Endpoint, case_id: str) -> str:
    """Why a case failing on the endpoint is the harness's or h2spec's, not the server's ("" when it is the server's)."""
    return h2spec.not_the_servers(case_id, endpoint.mode.tls, "go" in libraries_of(endpoint.server))


def servers_failures(endpoint: Endpoint, cases: dict[str, dict]) -> list[str]:
    """The failing cases that are the server's own."""
    return [case_id for case_id in failing(cases) if not not_the_servers(endpoint, case_id)]


def section(entry: str) -> dict:
    return (records.load(entry) or {}).get(SECTION) or {}


def pinned_mode(endpoint: Endpoint) -> dict:
    """The record's {"h2spec": {"cases": ...}, "attacks": {...}, "versions": ...} of the endpoint's mode ({} without)."""
    return section(endpoint.entry).get("modes", {}).get(endpoint.mode.name, {})


def runs_after(mode: dict, run: dict) -> list[dict]:
    """The runs a mode's pins come from once `run` is merged: each earlier run keeps the pins no later run took (a
    run of one probe leaves h2spec's and the other probes' pins, and their dates, as they were)."""
    earlier = mode.get("runs") or ([{**mode["recorded"], "took": ["h2spec", *sorted(mode.get("attacks", {}))]}]
                                   if mode.get("recorded") else [])
    kept = set(mode.get("attacks", {})) | ({"h2spec"} if "h2spec" in mode else set())
    out = []
    for old in earlier:
        took = [key for key in old["took"] if key not in run["took"] and key in kept]
        if took:
            out.append({**old, "took": took})
    return out + [run]


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
        """Merge what ran into each entry's section, keeping the attacks of attack_keys (the grid's: controls.results);
        complete when every mode of the entry has h2spec and every one of those attacks."""
        stamp = records.stamp()
        date, commit = stamp["date"], stamp["commit"]
        written = []
        for entry, modes in self.modes.items():
            data = section(entry) or {"modes": {}}
            for name, found in modes.items():
                mode = data["modes"].setdefault(name, {})
                if "h2spec" in found:
                    mode["h2spec"] = found["h2spec"]
                # only the probes in the grid (their controls separated): a pin of one out of it goes
                merged = {**mode.get("attacks", {}), **found.get("attacks", {})}
                mode["attacks"] = {key: merged[key] for key in attack_keys if key in merged}
                mode["versions"] = found["versions"]
                took = (["h2spec"] if "h2spec" in found else []) + sorted(found.get("attacks", {}))
                mode["runs"] = runs_after(mode, {"date": date, "commit": commit, "took": took})
                mode["recorded"] = {"date": date, "commit": commit}
            wanted = [e.mode.name for e in endpoints() if e.entry == entry]
            data["run"] = {"h2spec": h2spec.version(),
                           "complete": all("h2spec" in data["modes"].get(m, {})
                                           and set(attack_keys) <= set(data["modes"].get(m, {}).get("attacks", {}))
                                           for m in wanted)}
            written.append(records.write_section(entry, SECTION, data))
        return written


COLLECTED = Collected()
