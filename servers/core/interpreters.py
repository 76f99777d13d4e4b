"""The interpreter axis: the project's Python (with its GIL), free-threaded CPython 3.13t, and its GIL twin.

A server spec that can serve on 3.13t says what changes there (ServerSpec.free_threaded), an app spec
whether it installs there (FrameworkSpec.free_threaded); the catalog derives one more entry,
<entry>_ft, for each such pair, run by the free-threaded virtualenv's Python (.venv-ft, made by
`./setup.sh --free-threaded`). Which packages install on 3.13t and which take the GIL back is data:
records/interpreters/python3.13t.json, written by that set-up (scripts/free_threaded_packages.py).

The GIL twin (GIL_TWIN) is CPython 3.13 built from the same Debian source with the same configure flags but
--disable-gil, in its virtualenv .venv-313 holding exactly the distributions .venv-ft holds, at the same
versions (`./setup.sh --gil-twin`): the benchmark runs an _ft entry's base entry there, so the two differ by
the GIL alone (bench's interpreter axis, --interpreter). Every interpreter is declared once, in INTERPRETERS.
A process started for one of them (servers.core.command) is told which in ENV; the launcher checks it runs
there (running() against mismatch()) and says what it found on stderr, after MARKER, for the benchmark's
results.
"""
from __future__ import annotations

import json
import os
import platform
import sys
import sysconfig
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GIL = "cpython"  # the project's Python, whatever its version, with the GIL
GIL_TWIN = "cpython-3.13"  # CPython 3.13 with the GIL, built like FREE_THREADED and holding its packages
FREE_THREADED = "cpython-3.13t"
ENTRY_SUFFIX = "_ft"  # <entry>_ft: the entry on FREE_THREADED
VENV_FT = Path(os.environ.get("VENV_FT", ROOT / ".venv-ft"))
VENV_GIL_TWIN = Path(os.environ.get("VENV_GIL_TWIN", ROOT / ".venv-313"))
PACKAGES_RECORD = ROOT / "records" / "interpreters" / "python3.13t.json"
SETUP_HINT = "./setup.sh --free-threaded"
ENV = "REFSUITE_INTERPRETER"  # the key of the interpreter a starter asked for (servers.core.launch checks it)
MARKER = "refsuite: interpreter"  # the launcher's line on stderr: MARKER {running()'s facts as JSON}


@dataclass(frozen=True)
class Interpreter:
    """One interpreter the suite runs entries on, declared once."""

    key: str  # a catalog Entry's interpreter, a result's
    label: str  # how tables name it beside a stack
    title: str  # what it is, in words
    venv: Path | None  # the virtualenv whose Python runs entries there; None: the project's own Python
    free_threaded: bool  # built with --disable-gil: the GIL is off unless an import takes it back
    release: str  # the CPython release it must be (a prefix of platform.python_version()); "": any
    setup_hint: str  # the command that makes it

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python" if self.venv is not None else Path(sys.executable)

    @property
    def available(self) -> bool:
        return self.venv is None or self.python.exists()


INTERPRETERS: dict[str, Interpreter] = {i.key: i for i in (
    Interpreter(GIL, "default", "the project's Python, with the GIL (what `python3` is here: pyenv's, Debian's, "
                                "a virtualenv's)", None, False, "", "./setup.sh"),
    Interpreter(GIL_TWIN, "3.13", "CPython 3.13 with the GIL, built from the same Debian source and configure "
                                  "flags as 3.13t and holding .venv-ft's packages at the same versions (the GIL "
                                  "twin)", VENV_GIL_TWIN, False, "3.13.", "./setup.sh --gil-twin"),
    Interpreter(FREE_THREADED, "3.13t", "free-threaded CPython 3.13 (PEP 703, --disable-gil), built from Debian's "
                                        "python3.13 source", VENV_FT, True, "3.13.", SETUP_HINT),
)}
# The interpreters an entry with the GIL (not an _ft one) can be run on: bench's --interpreter.
GIL_INTERPRETERS: tuple[str, ...] = tuple(k for k, i in INTERPRETERS.items() if not i.free_threaded)


def get(key: str) -> Interpreter:
    try:
        return INTERPRETERS[key]
    except KeyError:
        raise KeyError(f"no interpreter {key!r}; the suite knows {', '.join(INTERPRETERS)}") from None


def python(interpreter: str) -> Path:
    """The executable that runs entries on that interpreter."""
    return get(interpreter).python


def available(interpreter: str) -> bool:
    """Whether that interpreter is set up on this machine (its virtualenv exists)."""
    return get(interpreter).available


def current() -> str:
    """The interpreter this process is: the one whose virtualenv is sys.prefix, else the project's own (or 3.13t,
    on a free-threaded build outside .venv-ft)."""
    prefix = Path(sys.prefix).resolve()
    for key, interpreter in INTERPRETERS.items():
        if interpreter.venv is not None and interpreter.venv.resolve() == prefix:
            return key
    return FREE_THREADED if sysconfig.get_config_var("Py_GIL_DISABLED") else GIL


def running() -> dict:
    """What this process runs on, as it sees itself: release, build, whether the GIL is on now."""
    free_threaded = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))
    gil_on = getattr(sys, "_is_gil_enabled", lambda: True)()
    return {"implementation": platform.python_implementation(), "version": platform.python_version(),
            "build": "free-threaded" if free_threaded else "gil", "gil": "on" if gil_on else "off",
            "executable": sys.executable}


def mismatch(key: str, facts: dict) -> str:
    """Why a process with these facts (running()) is not on interpreter `key` ("" when it is). The GIL of a
    free-threaded build is not judged here: an import may take it back later (servers/core/gil_guard.py)."""
    wanted = get(key)
    if facts.get("implementation", "CPython") != "CPython":
        return f"{key} is CPython; this is {facts['implementation']}"
    if (facts.get("build") == "free-threaded") != wanted.free_threaded:
        return (f"{key} is {'free-threaded' if wanted.free_threaded else 'a build with the GIL'}; "
                f"this is {facts.get('version')} {facts.get('build')}")
    if wanted.release and not str(facts.get("version", "")).startswith(wanted.release):
        return f"{key} is CPython {wanted.release}x; this is {facts.get('version')}"
    return ""


def said(stderr: str) -> dict | None:
    """The facts a launcher said on stderr (MARKER's line; the last one, where a log holds several starts),
    None when it said none."""
    for line in reversed(stderr.splitlines()):
        if line.startswith(MARKER):
            try:
                return json.loads(line[len(MARKER):])
            except ValueError:
                return None
    return None


def describe(facts: dict) -> str:
    """'3.13.5t (free-threaded, GIL off)' / '3.11.9 (GIL)': a result's interpreter in words."""
    if not facts:
        return "?"
    if facts.get("build") == "free-threaded":
        return f"{facts.get('version')}t (free-threaded, GIL {facts.get('gil')})"
    return f"{facts.get('version')} (GIL)"


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
