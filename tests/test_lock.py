"""The lock holds: this interpreter (and .venv-ft) has exactly the locked versions, the lock answers every
requirement pyproject.toml asks, and the records name the versions the lock pins, so a fresh clone installs what
the pages, records and lessons were written against (scripts/lock.py)."""
from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from serverproc import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import lock  # noqa: E402  (scripts/ is not a package: the set-up runs it as a file)

from servers.core import interpreters  # noqa: E402

GIL_LOCK = ROOT / "lock" / "gil.txt"
FT_LOCK = ROOT / "lock" / "cp313t.txt"


def test_this_interpreter_holds_the_locked_versions():
    if lock.tag() != "gil":
        pytest.skip("the suite runs on a free-threaded Python: .venv-ft's test below covers it")
    missing_or_moved = lock.differences(lock.pins(GIL_LOCK), lock.installed())
    assert not missing_or_moved, ("installed versions differ from lock/gil.txt (./setup.sh installs the lock):\n"
                                  + "\n".join(missing_or_moved))


def test_the_free_threaded_venv_holds_its_locked_versions():
    python = interpreters.python(interpreters.FREE_THREADED)
    if not Path(python).exists():
        pytest.skip(".venv-ft is not made here (./setup.sh --free-threaded)")
    done = subprocess.run([python, str(ROOT / "scripts" / "lock.py"), "--check"], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_moved_package_is_named():
    """The check names the package and both versions (here, what the issue found: Django moved upstream)."""
    lines = lock.differences({"django": "5.2.19", "flask": "3.1.3", "h2": "4.4.1"},
                             {"django": "5.2.20", "flask": "3.1.3"})
    assert lines == ["django: installed 5.2.20, the lock says 5.2.19", "h2: not installed, the lock says 4.4.1"]


def _requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    found = [Requirement(text) for text in project["dependencies"]]
    for extra, requirements in project["optional-dependencies"].items():
        found += [Requirement(text) for text in requirements if not text.startswith("refsuite[")]
    return found


def test_the_lock_answers_every_requirement_of_pyproject():
    """A floor raised in pyproject.toml (or a spec's EXTRAS) without writing the lock again fails here."""
    pins = lock.pins(GIL_LOCK)
    wrong = [f"{req}: the lock has {pins.get(lock.normalize(req.name), 'nothing')}" for req in _requirements()
             if (req.marker is None or req.marker.evaluate())
             and pins.get(lock.normalize(req.name)) not in req.specifier.filter([pins.get(lock.normalize(req.name), "0")])]
    assert not wrong, "python scripts/lock.py writes the lock again:\n" + "\n".join(wrong)


def _record_versions() -> list[tuple[str, str, dict[str, str]]]:
    """(record file, where in it, the versions it was recorded with) for every versions map of every record."""
    found = []

    def walk(node, where, name):
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "versions" and isinstance(value, dict) and "python" in value:
                    found.append((name, where, value))
                else:
                    walk(value, f"{where}/{key}", name)
        elif isinstance(node, list):
            for item in node:
                walk(item, where, name)

    for path in sorted((ROOT / "records").glob("*.json")):
        walk(json.loads(path.read_text()), "", path.name)
    return found


def test_the_records_were_written_against_the_locked_versions():
    """A record names the versions its run had: one that the lock does not pin is stale (re-record it, or the
    lock moved without ./setup.sh --upgrade re-recording)."""
    gil, ft = lock.every_pin(GIL_LOCK), lock.every_pin(FT_LOCK)
    stale = []
    for name, where, versions in _record_versions():
        pins = ft if versions["python"].endswith("t") else gil
        for dist, version in versions.items():
            locked = pins.get(lock.normalize(dist))
            if locked is not None and version not in locked:
                stale.append(f"{name}{where}: {dist} {version}, the lock says {' or '.join(sorted(locked))}")
    assert not stale, "\n".join(stale[:40]) + (f"\n... {len(stale) - 40} more" if len(stale) > 40 else "")


def test_an_upgrade_says_what_moved_arrived_and_left():
    import upgrade  # scripts/upgrade.py

    assert upgrade.changes({"django": "5.2.19", "h11": "0.16.0", "gone": "1.0"},
                           {"django": "5.2.20", "h11": "0.16.0", "new": "2.0"}) == [
        "django: 5.2.19 -> 5.2.20", "gone: 1.0 -> (none)", "new: (none) -> 2.0"]


def test_the_upgrade_command_names_its_steps():
    done = subprocess.run([sys.executable, "scripts/upgrade.py", "--list"], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0 and done.stdout.split() == ["lock", "install", "generate", "records", "http2",
                                                            "traces", "claims"], done.stdout + done.stderr
