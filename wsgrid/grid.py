"""The WebSocket probe grid: every attack probe of wsgrid/probes.py against each framing owner of the catalog
(catalog.ws_owner: the bare ASGI app on each ASGI server, Sanic and tornado on their own, each Go library), the
server started with one worker so that one process takes every connection, judged by wsgrid/runner.py (the
judge that told the probe bed's faulty server from its correct one).

A run prints one row per owner and probe; with --record it writes the "websocket" section of the owner's record
(records/<entry>.json: each probe's outcome and numbers, the framing's versions, when and at which commit), which
`python -m wsgrid docs` renders into docs/websockets.md. A probe the server did not let reach its path (the deflate
bomb where the server refuses permessage-deflate) is "not exercised", never "held".

    python -m wsgrid grid [--stack NAME ...] [--probe NAME ...] [--record]
"""
from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

from harness import versions
from harness.entry import EntryProcess
from processes.ports import free_port
from servers.core import catalog, records
from wsgrid import probes, runner

SECTION = "websocket"
NOT_EXERCISED = "not exercised"


def owners() -> list[str]:
    """The framing owners of the stacks that serve the WebSocket routes, in catalog order (GIL builds)."""
    return list(dict.fromkeys(catalog.ws_owner(e).name for e in catalog.ENTRIES if e.ws_ops and not e.free_threaded))


def summary(result: runner.ProbeResult) -> dict:
    """A probe's pin: its outcome ("not exercised" where it could not reach its path) and what it saw."""
    j = result.judgement
    slowest_ms = max((j.phases[n].max_ms or 0.0) for n in ("during", "after")) if j.phases else 0.0
    return {"outcome": j.outcome if result.exercised else NOT_EXERCISED, "rss_growth_mib": round(j.rss_growth_mib),
            "slowest_answer_s": round(slowest_ms / 1000, 2), "close_code": result.sent.get("close_code"),
            "ending": str(result.sent.get("ending", "")), "reasons": list(j.reasons)}


def run_owner(name: str, probe_names: list[str], seconds: float = runner.SECONDS) -> Iterator[tuple[str, dict]]:
    """(probe, pin) for each probe against the owner, started once with one worker (again after a probe left it
    dead: that probe's outcome says so)."""
    server = None
    log = Path(tempfile.gettempdir()) / f"wsgrid-{name}.log"
    try:
        for probe_name in probe_names:
            if server is None or not server.alive():
                if server is not None:
                    server.stop()
                port = free_port()
                server = EntryProcess(name, ["--port", str(port), "--workers", "1"], log).start()
            result = runner.probe(port, server.pid, probe_name, seconds)
            yield probe_name, summary(runner.died_if_exited(result, server.proc.poll()))
    finally:
        if server is not None:
            server.stop()


def write(name: str, pins: dict[str, dict]) -> Path:
    """Merge these pins into the owner's "websocket" section (a run of some probes keeps the others')."""
    recorded = records.stamp()
    data = pinned(name)
    stamped = {key: {**pin, "recorded": recorded} for key, pin in pins.items()}
    data["probes"] = {key: pin for key, pin in {**data.get("probes", {}), **stamped}.items() if key in probes.PROBES}
    data["versions"] = versions.for_entry(name, websocket=True)
    data["complete"] = set(probes.PROBES) <= set(data["probes"])
    return records.write_section(name, SECTION, data)


def pinned(name: str) -> dict:
    """The owner's "websocket" section ({} without one)."""
    return dict((records.load(name) or {}).get(SECTION) or {})


# -- docs/websockets.md's table, from the records ------------------------------------------------------------------
DOCS_START = "<!-- wsgrid:start (written by python -m wsgrid docs) -->"
DOCS_END = "<!-- wsgrid:end -->"


def _cell(pin: dict | None) -> str:
    if pin is None:
        return "not run"
    if pin["outcome"] == NOT_EXERCISED:
        return f"not exercised ({pin['ending'].removeprefix('not exercised: ')})"
    numbers = f"{pin['rss_growth_mib']:+d} MiB, {pin['slowest_answer_s']:.2f} s"
    closed = f", close {pin['close_code']}" if pin.get("close_code") else ""
    return f"**{pin['outcome']}** ({numbers}{closed})"


def markdown() -> str:
    """One row per owner: its framing, the versions recorded, each probe's outcome with its numbers."""
    from servers.core import tables

    keys = sorted(probes.PROBES)
    rows = []
    for name in owners():
        data = pinned(name)
        framing = catalog.get(name).websocket
        kept = [f"{k} {v}" for k, v in data.get("versions", {}).items() if k in (*framing.packages, *catalog.get(
            name).server_spec.pip_packages[:1])]
        rows.append([f"`{name}`", f"{framing.library} ({', '.join(kept) or 'not recorded'})",
                     *(_cell(data.get("probes", {}).get(key)) for key in keys)])
    return tables.markdown_table(["owner", "framing (versions)", *keys], rows)
