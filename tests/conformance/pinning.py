"""Pinned cells: the `conformance` section of records/<entry>.json (servers/core/records.py).

Every cell a stack runs is pinned, passes included: its answers (the responses as tokens, then the
connection's state), verdict, effect, reading and close, per column (the stack alone, "none"; behind a
front, "nginx" and "haproxy", on parser owners). A racy cell (its race declared in known.py) pins the worst
of its runs and how often each answer came. The run writes the sections only with CONFORMANCE_RECORD=1 (a
partial run while debugging overwrites nothing); otherwise a cell that differs from its pin fails and
prints the new one (behind a front: a cell whose desync goes through where it did not, or the other way:
front_differs). A section says what it describes (grid.record_hashes: the server's adapter and spec,
the app, the cases), the versions it ran on and the fronts' versions:

    CONFORMANCE_RECORD=1 ./test.sh -m reliability tests/reliability/test_reliability_conformance.py [-k ENTRY]
"""
from __future__ import annotations

import datetime
import os
import subprocess
import threading
from collections import defaultdict
from pathlib import Path

from servers.core import catalog, records

from . import grid, verdict

ENABLED = os.environ.get("CONFORMANCE_RECORD", "") == "1"
NONE = "none"  # the column of the stack alone
FRONTS = ("nginx", "haproxy")
COMPARED = ("answers", "verdict", "effect", "close")  # the reading is derived from these, in words


def section(entry: str) -> dict | None:
    return (records.load(entry) or {}).get("conformance")


def pinned(entry: str, case_id: str, col: str = NONE) -> dict | None:
    """The cell the record holds for that case and column, None without."""
    found = section(entry) or {}
    cells = found.get("cases", {}) if col == NONE else found.get("columns", {}).get(col, {})
    return cells.get(case_id)


def recorded(entry: str) -> bool:
    return bool(section(entry))


def differs(pin: dict | None, got: dict, racy: bool) -> str:
    """"" where the new cell is the pinned one; else what changed. A racy cell holds when its worst is no worse
    than the pinned worst and each answer it saw was seen before, or its worst is the pinned worst's effect: five
    runs of a race can miss one of its ways (hypercorn's chunk-cut-eof, `closed` five times when recorded, answered
    `400 closed` once in five later: a pass either way)."""
    if pin is None:
        return "no pinned cell"
    if racy and "runs" in pin:
        problems = []
        if verdict.rank(got.get("effect")) < verdict.rank(pin.get("effect")):
            problems.append(f"worse than pinned: {got.get('effect')} (pinned {pin.get('effect')})")
        new = sorted(set(got.get("runs", {})) - set(pin["runs"]))
        if new and got.get("effect") != pin.get("effect"):
            problems.append(f"answers never seen before: {new}")
        return "; ".join(problems)
    return ", ".join(f"{key} {got.get(key)!r} (pinned {pin.get(key)!r})" for key in COMPARED
                     if got.get(key) != pin.get(key))


def front_differs(pin: dict | None, got: dict, racy: bool = False) -> str:
    """"" where a cell behind a front holds its pin; else what changed. Behind a front only what the column asks is
    held: whether the desync still goes through. Whether HAProxy refuses a request or forwards it, and whether the
    server or the front closes first, depends on how the bytes fall into reads on each side (the same cell gave
    `400 closed` and a forwarded answer in two runs here), and none of those outcomes is a desync. A racy cell (its
    race declared: the bytes a server leaves unread reach it through HAProxy as the next request or not) goes both
    ways: of 20 runs recorded, one cell desynced in 12 and in none in the next recording, then in one of five. There
    the desync is held by the record's runs, not by one run, and the cell fails only on what neither way of the race
    does: the server crashing or stalling where its pinned worst did not."""
    if pin is None:
        return "no pinned cell"
    was, now = pin.get("effect") == verdict.DESYNC, got.get("effect") == verdict.DESYNC
    if racy:
        harm = got.get("effect") in (verdict.CRASH, verdict.STALL) and got.get("effect") != pin.get("effect")
        return f"a {got.get('effect')} behind the front, which its race does not explain (pinned {pin.get('effect')!r})" \
            if harm else ""
    if was == now:
        return ""
    return f"still desyncs through the front: {now} (pinned {was}; effect {got.get('effect')!r}, pinned {pin.get('effect')!r})"


class Pins:
    """Collects each cell while the run goes; writes the sections when it is over."""

    def __init__(self) -> None:
        self.got: dict[str, dict[str, dict]] = defaultdict(lambda: defaultdict(dict))
        self.failed: set[str] = set()  # stacks with a cell that differed from its pin, or a test that failed
        self._lock = threading.Lock()

    def add(self, entry: str, col: str, case_id: str, cell: dict) -> None:
        with self._lock:
            self.got[entry][col][case_id] = cell

    def failure(self, entry: str) -> None:
        with self._lock:
            self.failed.add(entry)

    def write(self, versions_of, front_versions: dict[str, str]) -> list[Path]:
        """One section per stack that ran (complete when it ran every case of its role), and one for each client
        variant of a stack written here (it inherits that stack's cells)."""
        commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                                cwd=Path(__file__).parent).stdout.strip()
        date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%MZ")
        written = []
        for name, columns in self.got.items():
            entry = catalog.get(name)
            plain = columns.get(NONE, {})
            origin = grid.source(entry)
            run = {"date": date, "commit": commit, "versions": versions_of(name), "role": grid.role(entry),
                   "mode": grid.mode(entry), "inherits": origin.name if origin else None,
                   "complete": {c.id for c in grid.selected(entry)} <= set(plain), "passed": name not in self.failed,
                   "hash": grid.record_hashes(entry)}
            fronts = sorted(col for col in columns if col != NONE)
            if fronts:
                run["fronts"] = {front: front_versions[front] for front in fronts}
            data = {"run": run, "cases": dict(sorted(plain.items())),
                    "columns": {col: dict(sorted(columns[col].items())) for col in fronts}}
            written.append(records.write_section(name, "conformance", data))
            for variant in grid.entries(grid.VARIANT):
                if grid.base_entry(variant).name == name:
                    inherited = {**run, "versions": versions_of(variant.name), "role": grid.VARIANT,
                                 "mode": None, "inherits": name, "hash": grid.record_hashes(variant)}
                    inherited.pop("fronts", None)
                    written.append(records.write_section(variant.name, "conformance",
                                                         {"run": inherited, "cases": {}, "columns": {}}))
        return written


PINS = Pins()
