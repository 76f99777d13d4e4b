"""The controls' recorded verdicts (recorded.json, written by `H2GRID_RECORD=1 ./test.sh -m h2grid -k control`):
per attack and mode, each control's outcome with the versions it ran and what the judge saw. A probe is in the
grid only when its pair separated in every mode recorded: the vulnerable build down or degraded, the fixed held
(GRID_KEYS, what the grid's tests and docs/http2-grid.md take).
"""
from __future__ import annotations

import json
from pathlib import Path

from h2grid import attacks, judge
from h2grid.controls.pairs import BY_ATTACK
from servers.core import records

PATH = Path(__file__).resolve().parent / "recorded.json"
HARMED = (judge.DOWN, judge.DEGRADED)


def load() -> dict:
    return json.loads(PATH.read_text()) if PATH.exists() else {}


def separates(vulnerable: str, fixed: str) -> bool:
    """Whether a pair's two outcomes prove the probe: the vulnerable build harmed, the fixed one held."""
    return vulnerable in HARMED and fixed == judge.HELD


def why_not(attack: str, recorded: dict | None = None) -> str:
    """"" when the attack's control pair separated in every mode recorded; else why the probe is not in the grid."""
    if attack not in BY_ATTACK:
        return "no control pair yet: no build known vulnerable to it is run here"
    modes = (recorded if recorded is not None else load()).get(attack, {}).get("modes", {})
    if not modes:
        return "its control pair has not been run (H2GRID_RECORD=1 ./test.sh -m h2grid -k control)"
    wrong = [f"{mode}: the vulnerable build {m['vulnerable']['outcome']}, the fixed one {m['fixed']['outcome']}"
             for mode, m in sorted(modes.items()) if not separates(m["vulnerable"]["outcome"], m["fixed"]["outcome"])]
    return "its control pair did not separate (" + "; ".join(wrong) + ")" if wrong else ""


def grid_keys(recorded: dict | None = None) -> tuple[str, ...]:
    """The attacks whose probes the grid runs and shows: those their controls proved."""
    recorded = load() if recorded is None else recorded
    return tuple(key for key in attacks.KEYS if not why_not(key, recorded))


GRID_KEYS = grid_keys()


def write(found: dict[str, dict[str, dict]]) -> Path:
    """Merge {attack: {mode: {"vulnerable": ..., "fixed": ...}}} into recorded.json."""
    data = load()
    recorded = records.stamp()
    for attack, modes in found.items():
        pair = BY_ATTACK[attack]
        entry = data.setdefault(attack, {})
        entry["change"] = pair.change
        entry.setdefault("modes", {}).update(modes)
        entry["recorded"] = dict(recorded)
    PATH.write_text(json.dumps(dict(sorted(data.items())), indent=2) + "\n")
    return PATH
