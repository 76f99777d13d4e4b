"""`python -m tests.conformance.columns`: docs/conformance-columns.md, the grid's settings and fronts columns.

Written only from the stored runs (docs/data/conformance/settings.json from tests/conformance/settings.py,
fronts.json from tests/conformance/fronts.py), each of which says when and at which commit it ran;
test_conformance_columns.py fails when the page differs from what these runs render to.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from servers.core import catalog

from . import cases
from .fronts import ALONE, valid
from .settings import DEFAULT, GOOD

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "docs" / "data" / "conformance"
PAGE = ROOT / "docs" / "conformance-columns.md"
OUTCOMES = ("refused", "normalized", "unchanged")


def _ids(names) -> str:
    return ", ".join(f"`{n}`" for n in sorted(names)) or "none"


def _valid(case_id: str) -> bool:
    return valid(next(c for c in cases.CASES if c.id == case_id))


def fronts_part(data: dict, settings: dict) -> list[str]:
    fronts = sorted(data["versions"])
    by = {(f["front"], f["case"]): f for f in data["forwarded"]}
    ids = sorted({f["case"] for f in data["forwarded"]})
    framing = {c.id for c in cases.CASES if c.cls == cases.SMUGGLING}
    out = ["## Fronts: what nginx and HAProxy do with each case", "",
           f"Run {data['run']['date']} at commit `{data['run']['commit'][:12]}` "
           f"({'complete' if data['run'].get('complete') else 'INCOMPLETE'}): "
           + ", ".join(f"{f} {data['versions'][f]}" for f in fronts) + ", each a private instance on loopback "
           "as it ships (nginx buffers request bodies, HAProxy streams them), in front of a recording upstream "
           "(tests/conformance/recorder.py). *refused*: nothing forwarded; *normalized*: re-framed (other framing "
           "lines or body bytes than the client's); *unchanged*: the client's framing lines and body went through.", "",
           "| front | refused | normalized | unchanged | valid requests it refuses |", "|---|---:|---:|---:|---|"]
    for front in fronts:
        count = {o: sum(by[(front, i)]["outcome"] == o for i in ids) for o in OUTCOMES}
        over = [i for i in ids if by[(front, i)]["outcome"] == "refused" and _valid(i)]
        out.append(f"| {front} | {count['refused']} | {count['normalized']} | {count['unchanged']} | "
                   + (", ".join(f"`{i}` ({by[(front, i)]['answers']})" for i in over) or "none") + " |")
    differ = [i for i in ids if i in framing and len({by[(f, i)]["outcome"] for f in fronts}) > 1]
    out += ["", "Framing cases the two fronts treat differently:", "",
            "| case | " + " | ".join(fronts) + " |", "|---|" + "---|" * len(fronts)]
    out += [f"| `{i}` | " + " | ".join(by[(f, i)]["outcome"] for f in fronts) + " |" for i in differ]
    out += ["", "## Which front closes what", "",
            "Per server (its representative stack, default settings), the framing cases it fails alone: "
            "*closed* by a front that refuses the case or forwards bytes the server reads as no other request than "
            "the front sent; *through*: the server, given exactly what the front forwarded (replayed on one "
            "connection), answers more requests than the front sent or waits for more body (desync). A server "
            "that answers fewer and closes drops the front's next request and smuggles nothing: those are "
            "listed below the table.", "",
            "| server (stack) | fails alone | " + " | ".join(f"{f} closes | through {f}" for f in fronts) + " |",
            "|---|---|" + "---|---|" * len(fronts)]
    defaults = {c["entry"]: {i: v for i, (v, _) in c["verdicts"].items()} for c in settings["columns"]
                if c["setting"] == DEFAULT}
    for entry, per_front in sorted(data["replayed"].items()):
        alone = per_front.get(ALONE) or defaults.get(entry)  # the fronts run's own, else the settings run's
        if alone is None:
            continue
        failing = sorted(i for i in framing if alone.get(i, "") not in GOOD)
        cells = []
        for f in fronts:
            through = {i: per_front.get(f, {}).get(i, "") for i in failing}
            through = {i: w for i, w in through.items() if "desync" in w}
            cells += [_ids(set(failing) - set(through)),
                      "; ".join(f"`{i}` {w}" for i, w in sorted(through.items())) or "none"]
        out.append(f"| {catalog.get(entry).server} (`{entry}`) | {len(failing)} | " + " | ".join(cells) + " |")
    drops = [f"- {entry} behind {f}: " + _ids(i for i, w in cs.items() if w.startswith("drops"))
             for entry, per_front in sorted(data["replayed"].items()) for f, cs in sorted(per_front.items())
             if f != ALONE and catalog.get(entry).keepalive and any(w.startswith("drops") for w in cs.values())]
    if drops:
        out += ["", "Forwarded requests a server answers fewer of, then closes (the next one on that upstream "
                    "connection is lost; the front retries or answers 502; a server without keep-alive, which closes after "
                    "every response, is left out):", "", *drops]
    return out


def settings_part(data: dict) -> list[str]:
    out = ["## Settings: each server's safety settings as columns", "",
           f"Run {data['run']['date']} at commit `{data['run']['commit'][:12]}` "
           f"({'complete' if data['run'].get('complete') else 'INCOMPLETE'}), every case on one stack per "
           "server with one worker, first as the catalog runs it, then under each setting (declared beside its "
           "server's spec, ServerSpec.settings). *closes*: fails by default, passes under the setting; *breaks*: "
           "the reverse. Capacity: hello within the latency bound (bench --capacity --quick against the same "
           "process, same run, a busy shared 2-core machine: a void ramp is a lower bound; the default is measured before and "
           "again after its settings, and the two differ by what the machine alone moves a ramp).", "",
           "| server (stack) | setting | passes | closes | breaks | hello capacity /s (vs default) |",
           "|---|---|---:|---|---|---|"]
    columns = data["columns"]
    defaults = {c["server"]: c for c in columns if c["setting"] == DEFAULT}
    for col in columns:
        base = defaults[col["server"]]
        passes = sum(v in GOOD for v, _ in col["verdicts"].values())
        cap = col["capacity"].get("held_per_s")
        capacity = "not measured" if cap is None else f"{cap:g}" + (" (void)" if col["capacity"].get("void") else "")
        if cap is not None and col["capacity"].get("missed_per_s") is None:
            capacity += " (a lower bound: the ramp ended before a step missed)"
        again = base["capacity"].get("again", {}).get("held_per_s")
        base_caps = [c for c in (base["capacity"].get("held_per_s"), again) if c]
        if col["setting"] == DEFAULT and again:
            capacity += f", again after its settings: {again:g}"
        if col["setting"] != DEFAULT and cap and base_caps:
            mean = sum(base_caps) / len(base_caps)
            capacity += f" ({100 * (cap - mean) / mean:+.0f} % of the default's mean)"
        if col["setting"] == DEFAULT:
            out.append(f"| {col['server']} (`{col['entry']}`) | default | {passes} | | | {capacity} |")
            continue
        closes = sorted(c for c, (v, _) in col["verdicts"].items() if v in GOOD and base["verdicts"][c][0] not in GOOD)
        breaks = sorted(c for c, (v, _) in col["verdicts"].items() if v not in GOOD and base["verdicts"][c][0] in GOOD)
        out.append(f"| {col['server']} | {col['setting']} | {passes} | {_ids(closes)} | {_ids(breaks)} | {capacity} |")
    return out


def page(settings: dict, fronts: dict) -> str:
    lines = ["# HTTP/1.1 conformance: settings and fronts as columns", "",
             "<!-- generated by `python -m tests.conformance.columns` from docs/data/conformance/: do not edit -->", "",
             "The grid of [docs/conformance.md](conformance.md) again under the settings users turn on for safety "
             "and behind the two fronts users deploy. Re-run: `python -m tests.conformance.settings "
             "--capacity-seconds 240`, `python -m tests.conformance.fronts`, then this page; "
             "`./test.sh -m columns` checks the stored runs still hold.", ""]
    lines += settings_part(settings) + [""] + fronts_part(fronts, settings)
    return "\n".join(lines) + "\n"


def load() -> tuple[dict, dict]:
    return (json.loads((DATA / "settings.json").read_text()), json.loads((DATA / "fronts.json").read_text()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.conformance.columns", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=PAGE)
    args = parser.parse_args(argv)
    settings, fronts = load()
    if not (settings["run"].get("complete") and fronts["run"].get("complete")):
        parser.error("a stored run is incomplete: the page is written only from complete runs")
    args.out.write_text(page(settings, fronts))
    print(f"written: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
