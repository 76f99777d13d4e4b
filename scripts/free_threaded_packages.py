"""Install the project's packages into the free-threaded virtualenv one by one, and record which keep the GIL off.

Run by `./setup.sh --free-threaded` with the free-threaded venv's Python (3.13t):

    .venv-ft/bin/python scripts/free_threaded_packages.py records/interpreters/python3.13t.json
    .venv-ft/bin/python scripts/free_threaded_packages.py --installable RECORD   # what to pip install, from it

Each requirement of pyproject.toml's base dependencies and of the extras below is installed on its own,
wheels only (a package with no cp313t wheel fails in seconds instead of compiling for minutes, and a
source build is not what its users get from pip), with the pins of FT_PINS. Then every extension
module an installed distribution ships is imported in a fresh interpreter: CPython 3.13t re-enables
the GIL when it loads one that does not declare Py_mod_gil, and its RuntimeWarning names that module.
The result is data (servers/core/interpreters.py reads it; the catalog and
docs/free-threading.md show it), rewritten by each run, never by hand.
"""
from __future__ import annotations

import datetime
import json
import os
import re
import subprocess
import sys
import sysconfig
import tomllib
from importlib import metadata
from pathlib import Path

import lock  # scripts/lock.py, beside this file (run as a file, its folder is on sys.path)

ROOT = Path(__file__).resolve().parents[1]
# The extras tried on 3.13t: every server and framework the suite has (bench, anatomy and test are
# tools, installed from the GIL build's side).
EXTRAS = ("flask", "falcon", "gunicorn", "waitress", "granian", "starlette", "fastapi", "django", "litestar",
          "uvicorn", "tornado", "twisted", "gevent", "sanic", "blacksheep", "emmett", "uwsgi")
# granian 2.7.9 is the last release with cp313t wheels (2.8 ships 3.14t ones only: no pin there); pytest to run
# the contract tests on this interpreter.
FT_PINS = {(3, 13): {"granian": "granian==2.7.9"}}
EXTRA_TOOLS = ("pytest>=9.2.0", "pytest-timeout>=2.4.0")
# Built from their sdist (no cp313t wheel), probed, then removed again: importing one takes the GIL
# back for the whole process, and redis-py imports hiredis whenever it is installed. Small C builds only
# (hiredis: about 25 s).
FROM_SOURCE = ("hiredis",)

_NAME = re.compile(r"^[A-Za-z0-9._-]+")


def target() -> tuple[int, int]:
    """The free-threaded CPython the requirements are for: this one when it is free-threaded, else FT_VERSION's
    (3.13 by default: a test reading the record from the GIL build)."""
    if sysconfig.get_config_var("Py_GIL_DISABLED") == 1:
        return sys.version_info[:2]
    major, minor = (os.environ.get("FT_VERSION") or "3.13").split(".")
    return int(major), int(minor)


def requirements() -> dict[str, str]:
    """Distribution name (normalized) -> the requirement to install, in pyproject's order."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    found = list(project["dependencies"])
    for extra in EXTRAS:
        found += project["optional-dependencies"][extra]
    found += EXTRA_TOOLS
    out: dict[str, str] = {}
    for requirement in found:
        name = _key(_NAME.match(requirement).group(0))
        out.setdefault(name, FT_PINS.get(target(), {}).get(name, requirement))
    return out


def pip(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", *args],
                          capture_output=True, text=True, timeout=900)


def _pip_install(requirement: str) -> str:
    """'' when it installed, else pip's reason in one line."""
    done = pip("install", "-q", "--only-binary", ":all:", requirement)
    if done.returncode == 0:
        return ""
    lines = [line.strip() for line in done.stderr.splitlines() if line.strip().startswith("ERROR")]
    # pip's telling line: which requirement found no distribution (not its note on yanked releases)
    lines = [line for line in lines if "Could not find" in line or "conflicting" in line] or lines
    reason = (lines[0] if lines else done.stderr.strip().splitlines()[-1]).removeprefix("ERROR: ")
    if "from versions: none" in reason:
        return f"no wheel for {tag()} on PyPI ({reason})"
    return reason


def install(name: str, requirement: str) -> tuple[str, str]:
    """(what installed: the requirement, or the bare name when the project's floor or extras did not; ''
    when nothing did, the reason the requirement as written did not ('' when it did))."""
    reason = _pip_install(requirement)
    if not reason:
        return requirement, ""
    if requirement != name and not _pip_install(name):  # an older release, or without the extras
        return name, reason
    return "", reason


def tag() -> str:
    return f"cp{sys.version_info.major}{sys.version_info.minor}t"


def latest(name: str) -> str | None:
    """The newest release on PyPI (a package that did not install: which version was refused)."""
    done = pip("index", "versions", name)
    match = re.search(r"\(([^)]+)\)", done.stdout.splitlines()[0]) if done.returncode == 0 and done.stdout else None
    return match.group(1) if match else None


def extension_modules(dist: metadata.Distribution) -> list[str]:
    """The dotted names of the C (or Rust) extension modules a distribution ships."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    names = []
    for file in dist.files or ():
        text = str(file)
        if text.endswith(suffix) and not text.startswith(".."):
            names.append(text[: -len(suffix)].replace("/", "."))
    return sorted(names)


PROBE = """
import importlib, sys, warnings
warnings.simplefilter("always")
caught = []
warnings.showwarning = lambda message, category, *rest: caught.append(f"{category.__name__}: {message}")
try:
    importlib.import_module(sys.argv[1])
except Exception as exc:
    print("import-error", f"{type(exc).__name__}: {exc}")
    raise SystemExit
gil = [text for text in caught if "global interpreter lock" in text]
print("gil-on" if sys._is_gil_enabled() else "gil-off", gil[0] if gil else "")
"""


def probe(module: str) -> tuple[str, str]:
    """('gil-off' | 'gil-on' | 'import-error', the warning or error text) for importing one module alone."""
    done = subprocess.run([sys.executable, "-c", PROBE, module], capture_output=True, text=True, timeout=120)
    state, _, text = (done.stdout.strip().splitlines() or ["import-error " + done.stderr.strip()[-200:]])[-1].partition(" ")
    return state, text.strip()


def gil_of(dist: metadata.Distribution) -> dict:
    """One installed distribution: its version and whether importing its extension modules keeps the GIL off."""
    entry = {"version": dist.version, "gil": "off"}
    for module in extension_modules(dist):
        state, text = probe(module)
        if state == "gil-on":  # the first module that takes the GIL back is the reason
            return {**entry, "gil": "on", "module": module, "reason": text}
    return entry


def _key(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def closure(requirement: str) -> list[str]:
    """The installed distributions a requirement pulls in (itself first), extras followed, other markers read as true."""
    seen: list[str] = []
    todo = [requirement]
    while todo:
        text = todo.pop()
        name = _key(_NAME.match(text).group(0))
        extras = set(re.findall(r"[A-Za-z0-9_-]+", text[text.find("[") + 1:text.find("]")])) if "[" in text.split(";")[0] else set()
        if name in seen:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        seen.append(name)
        for req in dist.requires or ():
            marker = req.partition(";")[2]
            wanted_extra = re.search(r"extra\s*==\s*['\"]([^'\"]+)", marker)
            if wanted_extra and wanted_extra.group(1) not in extras:
                continue
            todo.append(req.partition(";")[0].strip())
    return seen


def record(name: str, requirement: str, result: tuple[str, str], installed: dict[str, dict]) -> dict:
    """One requirement: whether it (or, failing that, any release of it) installs, and whether the GIL stays off."""
    got, refused = result
    if not got:
        return {"requirement": requirement, "installs": False, "version": latest(name), "gil": None, "reason": refused}
    pulled = closure(got)
    on = [installed[d] | {"distribution": d} for d in pulled if installed.get(d, {}).get("gil") == "on"]
    if on and "[" in got.split(";")[0]:
        # an extra that takes the GIL back (redis[hiredis] on 3.14t, where hiredis has a wheel that declares no
        # Py_mod_gil): the bare requirement is what installs there, as where the extra has no wheel (3.13t)
        bare = _key(_NAME.match(got).group(0))
        bare_pulled = closure(bare)
        if not any(installed.get(d, {}).get("gil") == "on" for d in bare_pulled):
            refused = (f"{got}: its extras pull {on[0]['distribution']} {on[0]['version']}, which takes the GIL "
                       f"back ({on[0]['module']})")
            pulled, on = bare_pulled, []
    entry = {"requirement": requirement, "installs": True, "version": installed[pulled[0]]["version"],
             "gil": "on" if on else "off", "reason": "", "pulls": pulled[1:]}
    if refused:  # it installed, but not as the project asks (an older release, or without its extras)
        entry["as_written"] = refused
    if on:
        entry.update(reason=f"{on[0]['distribution']} {on[0]['version']}: {on[0]['reason']}", module=on[0]["module"])
    return entry


def main(out: Path) -> int:
    if sysconfig.get_config_var("Py_GIL_DISABLED") != 1:
        print(f"{sys.executable} is not a free-threaded build", file=sys.stderr)
        return 2
    wanted = requirements()
    results = {}
    for name, requirement in wanted.items():
        results[name] = got, refused = install(name, requirement)
        said = "installed" if got == requirement else f"{got} installed; as written: {refused}" if got else refused
        print(f"  {requirement}: {said}", file=sys.stderr)
    # Recorded after every install, as the venv finally holds them (a later install may upgrade one).
    installed = {_key(d.metadata["Name"]): gil_of(d) for d in metadata.distributions()}
    # Read before the source builds below change the venv (a distribution they remove is still a pull to judge)
    packages = {name: record(name, wanted[name], results[name], installed) for name in wanted}
    from_source = {}
    for name in FROM_SOURCE:
        reason = pip("install", "-q", "--no-binary", name, name).returncode and "the source build failed"
        from_source[name] = {"installs": not reason, "reason": reason or ""}
        if not reason:
            from_source[name].update(gil_of(metadata.distribution(name)))
            pip("uninstall", "-q", "-y", name)
        print(f"  {name} from source: {from_source[name]}", file=sys.stderr)
    data = {"interpreter": sys.version.split()[0] + "t", "abi": tag(),
            "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%MZ"),
            "packages": packages, "installed": dict(sorted(installed.items())), "from_source": from_source}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    # the lock is what the venv holds at the end, as pip freeze would list it (a source build probed is gone again)
    final = {_key(d.metadata["Name"]): d.version for d in metadata.distributions()}
    lock.write_freeze(tag(), final, "scripts/free_threaded_packages.py")
    off = [n for n, p in packages.items() if p["gil"] == "off"]
    print(f"free-threaded: {len(off)} of {len(packages)} packages install and keep the GIL off ({out})", file=sys.stderr)
    return 0


def installable(record: Path) -> list[str]:
    """What to pip install, from a record: each requirement as it installed (the bare name where only an
    older release or no extras did), and what it pulled in, pinned to the versions recorded."""
    data = json.loads(record.read_text())
    wanted = {p["requirement"] if "as_written" not in p else _key(_NAME.match(p["requirement"]).group(0))
              for p in data["packages"].values() if p["installs"] and p["gil"] == "off"}
    names = {_key(_NAME.match(w).group(0)) for w in wanted}
    pulled = {d for p in data["packages"].values() if p["installs"] and p["gil"] == "off" for d in p.get("pulls", ())}
    return sorted(wanted) + [f"{d}=={data['installed'][d]['version']}" for d in sorted(pulled - names)
                             if d in data["installed"]]


if __name__ == "__main__":
    if sys.argv[1] == "--installable":
        print("\n".join(installable(Path(sys.argv[2]))))
        sys.exit(0)
    sys.exit(main(Path(sys.argv[1])))
