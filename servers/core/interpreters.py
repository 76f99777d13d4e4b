"""The interpreter axis: the project's Python (with its GIL), free-threaded CPython 3.13t, and its GIL twin
(3.14t and its twin with FT_VERSION=3.14: one lane of the same shape per version, lane()).

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
import re
import sys
import sysconfig
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The free-threaded lane's CPython 3.X, as the set-up scripts take it (scripts/free-threaded-python.sh --version):
# 3.13 unless FT_VERSION says otherwise. The entries' records and caveats are 3.13t's; FT_VERSION=3.14 runs the same
# entries on 3.14t and its twin (the benchmark's free-threading preset), each version in virtualenvs of its own.
DEFAULT_FT_VERSION = "3.13"
FT_VERSION = os.environ.get("FT_VERSION") or DEFAULT_FT_VERSION
GIL = "cpython"  # the project's Python, whatever its version, with the GIL
ENTRY_SUFFIX = "_ft"  # <entry>_ft: the entry on FREE_THREADED
ENV = "REFSUITE_INTERPRETER"  # the key of the interpreter a starter asked for (servers.core.launch checks it)
MARKER = "refsuite: interpreter"  # the launcher's line on stderr: MARKER {running()'s facts as JSON}
_LANE_KEY = re.compile(r"cpython-(3\.\d+)(t?)")  # cpython-3.14t, cpython-3.14: a lane's free-threaded build, its twin


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


def lane(version: str) -> tuple[Interpreter, Interpreter]:
    """CPython `version` free-threaded and its GIL twin (the same source and configure flags, the free-threaded
    virtualenv's packages), in the virtualenvs the set-up scripts make for that version."""
    env = "" if version == DEFAULT_FT_VERSION else f"FT_VERSION={version} "
    current = version == FT_VERSION  # VENV_FT / VENV_GIL_TWIN name the current lane's virtualenvs only
    ft_venv = ROOT / (".venv-ft" if version == DEFAULT_FT_VERSION else f".venv-ft{version}")
    twin_venv = ROOT / f".venv-{version.replace('.', '')}"
    if current:
        ft_venv = Path(os.environ.get("VENV_FT", ft_venv))
        twin_venv = Path(os.environ.get("VENV_GIL_TWIN", twin_venv))
    twin = Interpreter(f"cpython-{version}", version,
                       f"CPython {version} with the GIL, built from the same source and configure flags as {version}t "
                       f"and holding {ft_venv.name}'s packages at the same versions (the GIL twin)",
                       twin_venv, False, f"{version}.", f"{env}./setup.sh --gil-twin")
    free = Interpreter(f"cpython-{version}t", f"{version}t",
                       f"free-threaded CPython {version} (PEP 703, --disable-gil), built from its source "
                       "(scripts/free-threaded-python.sh)", ft_venv, True, f"{version}.", f"{env}./setup.sh --free-threaded")
    return twin, free


_TWIN, _FREE = lane(FT_VERSION)
GIL_TWIN = _TWIN.key  # CPython 3.X with the GIL, built like FREE_THREADED and holding its packages
FREE_THREADED = _FREE.key
VENV_FT = _FREE.venv
VENV_GIL_TWIN = _TWIN.venv
PACKAGES_RECORD = ROOT / "records" / "interpreters" / f"python{FT_VERSION}t.json"
SETUP_HINT = _FREE.setup_hint

INTERPRETERS: dict[str, Interpreter] = {i.key: i for i in (
    Interpreter(GIL, "default", "the project's Python, with the GIL (what `python3` is here: pyenv's, Debian's, "
                                "a virtualenv's)", None, False, "", "./setup.sh"),
    _TWIN, _FREE,
)}
# The interpreters an entry with the GIL (not an _ft one) can be run on: bench's --interpreter.
GIL_INTERPRETERS: tuple[str, ...] = tuple(k for k, i in INTERPRETERS.items() if not i.free_threaded)


def get(key: str) -> Interpreter:
    """The interpreter of a key: this lane's, or another version's lane (a run recorded with FT_VERSION=3.14 read
    without it)."""
    if key in INTERPRETERS:
        return INTERPRETERS[key]
    if match := _LANE_KEY.fullmatch(key):
        twin, free = lane(match.group(1))
        return free if match.group(2) else twin
    raise KeyError(f"no interpreter {key!r}; the suite knows {', '.join(INTERPRETERS)}")


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


def packages_table(version: str = DEFAULT_FT_VERSION) -> str:
    """A version's record as a Markdown table (docs/free-threading.md, by python -m servers.generate): the default
    lane's whatever FT_VERSION says, so that the page does not depend on who generated it."""
    path = ROOT / "records" / "interpreters" / f"python{version}t.json"
    hint = lane(version)[1].setup_hint
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return f"No record yet: run `{hint}`."
    rows = [f"| package | version | on {version}t | why |", "|---|---|---|---|"]

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
    return (f"Recorded by `{hint}` on CPython {data['interpreter']} ({data['date']}; "
            f"{path.relative_to(ROOT)}), wheels only:\n\n" + "\n".join(rows))
