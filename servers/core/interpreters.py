"""The interpreter axis: CPython with its GIL (the project's Python) and free-threaded CPython 3.13t.

A server spec that can serve on 3.13t says what changes there (ServerSpec.free_threaded), an app spec
whether it installs there (FrameworkSpec.free_threaded); the catalog derives one more entry,
<entry>_ft, for each such pair, run by the free-threaded virtualenv's Python (.venv-ft, made by
`./setup.sh --free-threaded`). Which packages install on 3.13t and which take the GIL back is data:
records/interpreters/python3.13t.json, written by that set-up (scripts/free_threaded_packages.py).
"""
from __future__ import annotations

import json
import os
import sys
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GIL = "cpython"  # the project's Python, whatever its version, with the GIL
FREE_THREADED = "cpython-3.13t"
ENTRY_SUFFIX = "_ft"  # <entry>_ft: the entry on FREE_THREADED
VENV_FT = Path(os.environ.get("VENV_FT", ROOT / ".venv-ft"))
PACKAGES_RECORD = ROOT / "records" / "interpreters" / "python3.13t.json"
SETUP_HINT = "./setup.sh --free-threaded"


def python(interpreter: str) -> Path:
    """The executable that runs entries on that interpreter."""
    if interpreter == FREE_THREADED:
        return VENV_FT / "bin" / "python"
    return Path(sys.executable)


def available(interpreter: str) -> bool:
    """Whether that interpreter is set up on this machine (the free-threaded venv exists)."""
    return interpreter != FREE_THREADED or python(FREE_THREADED).exists()


@cache
def record() -> dict:
    """The set-up's record of 3.13t: its packages, every installed distribution, the source builds tried."""
    try:
        return json.loads(PACKAGES_RECORD.read_text())
    except FileNotFoundError:
        return {}


def packages() -> dict[str, dict]:
    """Requirement name -> what the set-up found on 3.13t (installs, version, gil 'off'/'on'/None, reason,
    module, pulls: what it brought in); {} when no set-up has recorded it."""
    return record().get("packages", {})


def kept_off(name: str) -> bool:
    """Whether the distribution installs on 3.13t and importing it (and what it pulls in) keeps the GIL off."""
    found = packages().get(name.lower())
    return bool(found and found["installs"] and found["gil"] == "off")


def refused() -> dict[str, dict]:
    """The recorded packages that do not install on 3.13t or take the GIL back, by name."""
    return {name: p for name, p in packages().items() if not (p["installs"] and p["gil"] == "off")}


def packages_table() -> str:
    """The record as a Markdown table (docs/free-threading.md, by python -m servers.generate)."""
    data = record()
    if not data:
        return f"No record yet: run `{SETUP_HINT}`."
    rows = ["| package | version | on 3.13t | why |", "|---|---|---|---|"]

    def verdict(p: dict) -> str:
        if not p["installs"]:
            return "does not install"
        return "GIL stays off" if p["gil"] == "off" else f"takes the GIL back (`{p.get('module', '?')}`)"

    def why(p: dict) -> str:
        text = p.get("reason") or (f"installs, but not as the project asks: {p['as_written']}" if p.get("as_written") else "")
        return text.replace("|", "\\|")

    for name, p in sorted(data["packages"].items(), key=lambda kv: (kv[1]["installs"] and kv[1]["gil"] == "off", kv[0])):
        rows.append(f"| {name} | {p.get('version') or '?'} | {verdict(p)} | {why(p)} |")
    for name, p in sorted(data.get("from_source", {}).items()):
        rows.append(f"| {name} (built from its sdist, then removed) | {p.get('version', '?')} | {verdict(p)} | "
                    f"{why(p)} |")
    return (f"Recorded by `{SETUP_HINT}` on CPython {data['interpreter']} ({data['date']}; "
            f"records/interpreters/python3.13t.json), wheels only:\n\n" + "\n".join(rows))
