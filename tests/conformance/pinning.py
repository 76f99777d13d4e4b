"""Pinned answers: the `conformance` section of records/<entry>.json (servers/core/records.py).

Every case's exact answer sequence on a stack, its verdict and a failure's effect, per column of the
grid (a front: none or nginx; a setting: extra server flags, "" for the entry as the catalog runs
it). The conformance run writes them only when CONFORMANCE_RECORD=1, so a partial run while debugging
overwrites nothing; otherwise it compares: an expected failure (a catalog caveat, known.py) must give
the answers pinned for it, and a change of shape fails the run with the new answers. Write every
stack's, or one's:

    CONFORMANCE_RECORD=1 ./test.sh -m reliability tests/reliability/test_reliability_conformance.py [-k ENTRY]
"""
from __future__ import annotations

import datetime
import os
import subprocess
import threading
from collections import defaultdict
from pathlib import Path

from servers.core import records

ENABLED = os.environ.get("CONFORMANCE_RECORD", "") == "1"
NONE = "none"  # the front of the plain column: the stack alone


def column(front: str = NONE, setting: str = "") -> str:
    """A column's key in a record: "none", "nginx", "none+<setting>"."""
    return front + (f"+{setting}" if setting else "")


def pinned(entry: str, case_id: str, col: str = NONE) -> dict | None:
    """{"answers", "verdict", "effect"} the record holds for that case and column, None without."""
    section = (records.load(entry) or {}).get("conformance") or {}
    cases = section.get("cases", {}) if col == NONE else section.get("columns", {}).get(col, {})
    return cases.get(case_id)


def recorded(entry: str) -> bool:
    """Whether the entry has a conformance record to compare with (a stack added since has none: it is
    unverified until CONFORMANCE_RECORD=1 writes one for it)."""
    return bool((records.load(entry) or {}).get("conformance"))


class Pins:
    """Collects each case's judgement while the run goes; writes the sections when it is over."""

    def __init__(self) -> None:
        self.got: dict[str, dict[str, dict]] = defaultdict(lambda: defaultdict(dict))
        self.failed: set[str] = set()  # stacks with a test that failed (not an expected failure)
        self._lock = threading.Lock()

    def add(self, entry: str, col: str, case_id: str, judgement) -> None:
        with self._lock:
            self.got[entry][col][case_id] = {"answers": judgement.answers, "verdict": judgement.verdict,
                                              "reading": judgement.reading, "effect": judgement.effect}

    def failure(self, entry: str) -> None:
        with self._lock:
            self.failed.add(entry)

    def write(self, case_ids: list[str], versions_of) -> list[Path]:
        """One section per stack that ran: complete when every case ran in the plain column."""
        commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                                cwd=Path(__file__).parent).stdout.strip()
        date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%MZ")
        written = []
        for entry, columns in self.got.items():
            plain = columns.get(NONE, {})
            run = {"date": date, "commit": commit, "versions": versions_of(entry),
                   "complete": set(case_ids) <= set(plain), "passed": entry not in self.failed}
            data = {"run": run, "cases": dict(sorted(plain.items())),
                    "columns": {col: dict(sorted(cases.items())) for col, cases in sorted(columns.items())
                                if col != NONE}}
            written.append(records.write_section(entry, "conformance", data))
        return written


PINS = Pins()
