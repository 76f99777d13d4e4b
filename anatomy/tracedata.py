"""The stored wire traces: docs/data/traces/ENTRY.json, one per traced entry, written by
`python -m anatomy --trace` (anatomy.wiretrace) and read by the page generation (anatomy.tracerender)
and the tests, so a page's I/O facts and the checks of them come from one recorded run."""
from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from servers.core.lessons import DOCS

TRACES = DOCS / "data" / "traces"


def path(entry: str) -> Path:
    return TRACES / f"{entry}.json"


def load(entry: str) -> dict | None:
    try:
        return json.loads(path(entry).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None


def save(trace: dict) -> Path:
    TRACES.mkdir(parents=True, exist_ok=True)
    out = path(trace["entry"])
    out.write_text(json.dumps(trace, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    return out


def measure_all(entries: list[str], jobs: int, bound: float, log=print) -> list[Path]:
    """Trace entries, `jobs` at a time (they mostly wait out idle timeouts), and store each trace."""
    from anatomy import wiretrace

    def one(entry: str) -> Path:
        return save(wiretrace.run(entry, bound=bound, log=log))

    with ThreadPoolExecutor(max(1, jobs)) as pool:
        return list(pool.map(one, entries))


def reanalyze(entries: list[str], workroot: Path | None = None) -> list[Path]:
    """Store the traces again from the strace logs a previous --trace left in results/trace/ (after a change
    to the analysis or the rendering: no re-measuring)."""
    from anatomy import wiretrace

    root = Path(workroot or wiretrace.ROOT / "results" / "trace")
    return [save(wiretrace.analyze(root / entry)) for entry in entries]
