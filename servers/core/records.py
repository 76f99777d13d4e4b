"""A stack's verification record: what the conformance and reliability runs found, as data in the repository.

One JSON file per catalog entry, records/<entry>.json, written only by a run (never by hand), each
section ("conformance", "reliability") by its own run and merged into the file so the other stays.
Pretty-printed with sorted keys so a re-run's diff shows only what changed. A stack with no record,
or a section whose run was not complete, is unverified: the catalog, docs/catalog.md and the report say so.
docs/reliability.md says which command writes which section.
"""
from __future__ import annotations

import datetime
import json
import os
import subprocess
from pathlib import Path

RECORDS_DIR = Path(__file__).resolve().parents[2] / "records"
# The sections a verified stack needs, each written by its own run.
SECTIONS = ("conformance", "reliability")
# Sections only some stacks have, which verification does not need: "http2", the HTTP/2 grid's (h2spec and the
# attack probes, on the parser owners of the servers that speak h2; h2grid/record.py); "websocket", the WebSocket
# probes on each framing owner (wsgrid/grid.py).
OPTIONAL_SECTIONS = ("http2", "websocket")


def path_of(entry_name: str) -> Path:
    return RECORDS_DIR / f"{entry_name}.json"


def load(entry_name: str) -> dict | None:
    """The entry's record, None when no run has written one."""
    try:
        return json.loads(path_of(entry_name).read_text())
    except FileNotFoundError:
        return None


def stamp() -> dict[str, str]:
    """When a recording ran and at which commit ({"date", "commit"}): what every record says of the run that wrote it."""
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                            cwd=RECORDS_DIR.parent).stdout.strip()
    return {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%MZ"), "commit": commit}


def write_section(entry_name: str, section: str, data: dict) -> Path:
    """Write one section of the entry's record, keeping the others; atomic (a rename), so a reader
    never sees half a file."""
    if section not in SECTIONS + OPTIONAL_SECTIONS:
        raise ValueError(f"unknown record section {section!r}: one of {', '.join(SECTIONS + OPTIONAL_SECTIONS)}")
    record = load(entry_name) or {}
    record.update({"entry": entry_name, section: data})
    path = path_of(entry_name)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(f".json.{os.getpid()}.tmp")
    temporary.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")
    temporary.replace(path)
    return path


def complete(entry_name: str, section: str) -> bool:
    """Whether the entry's record holds that section from a complete run."""
    record = load(entry_name) or {}
    return bool(record.get(section, {}).get("run", {}).get("complete"))


def recorded(entry_name: str) -> bool:
    """Both sections present, each from a complete run (what a production stack must have)."""
    return all(complete(entry_name, section) for section in SECTIONS)


def failures(entry_name: str) -> list[str]:
    """The reliability tests whose recorded outcome is an unexpected failure."""
    tests = (load(entry_name) or {}).get("reliability", {}).get("tests", {})
    return sorted(name for name, outcome in tests.items() if outcome == "failed")


def verified(entry_name: str) -> bool:
    """Recorded by complete runs, and none of its reliability tests failed unexpectedly: a stack whose
    last run failed a test is not vouched for until a run passes it (or a caveat declares it)."""
    return recorded(entry_name) and not failures(entry_name)


def status(entry_name: str) -> str:
    """'verified' or 'unverified' (what the catalog, docs/catalog.md and the report show)."""
    return "verified" if verified(entry_name) else "unverified"
