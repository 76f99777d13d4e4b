"""The stored measurements the pages render: wire traces (docs/data/traces/ENTRY.json, written by
`python -m anatomy --trace`, anatomy.wiretrace) and anatomies (docs/data/anatomy/ENTRY-OP.json, written
when `python -m anatomy --docs` measures a page's example), read by the page generation
(anatomy.tracerender, anatomy.reading) and the tests, so a page's figures and the checks of them come
from one recorded run."""
from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from servers.core.lessons import DOCS

TRACES = DOCS / "data" / "traces"
ANATOMIES = DOCS / "data" / "anatomy"
_BULKY = ("stacks", "rules", "threads", "driver_parts")  # profile detail no page renders from the file


def anatomy_path(entry: str, op: str) -> Path:
    return ANATOMIES / f"{entry}-{op}.json"


def save_anatomy(result: dict) -> Path:
    ANATOMIES.mkdir(parents=True, exist_ok=True)
    cpu = {k: v for k, v in result["cpu"].items() if k not in _BULKY}
    kept = {k: v for k, v in result.items() if k not in ("workdir", "flame")}
    out = anatomy_path(result["entry"], result["op"])
    out.write_text(json.dumps({**kept, "cpu": cpu}, indent=1, default=str) + "\n", encoding="utf-8")
    return out


def load_anatomy(entry: str, op: str) -> dict | None:
    try:
        return json.loads(anatomy_path(entry, op).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None


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


def measure_all(entries: list[str], jobs: int, bound: float, runs: int, log=print) -> list[Path]:
    """Trace entries, `jobs` at a time (they mostly wait out idle timeouts), each `runs` times, and store
    each trace."""
    from anatomy import wiretrace

    def one(entry: str) -> Path:
        return save(wiretrace.run(entry, bound=bound, log=log, runs=runs))

    with ThreadPoolExecutor(max(1, jobs)) as pool:
        return list(pool.map(one, entries))


def reanalyze(entries: list[str], workroot: Path | None = None) -> list[Path]:
    """Store the traces again from the strace logs a previous --trace left in results/trace/ (after a change
    to the analysis or the rendering: no re-measuring)."""
    from anatomy import wiretrace

    root = Path(workroot or wiretrace.ROOT / "results" / "trace")
    return [save(wiretrace.analyze(root / entry)) for entry in entries]
