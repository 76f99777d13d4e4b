"""The project's version locks: every Python distribution it installs, pinned, as constraints files pip reads.

    python scripts/lock.py              # write what is missing; keep every pin a lock already has
    python scripts/lock.py --upgrade    # the registries' newest versions within pyproject's floors
    python scripts/lock.py --check      # exit 1, naming each package, where this interpreter differs

One lock per interpreter kind, in `lock/`, named by its wheel tag:
- `gil.txt`, every CPython with the GIL the project runs on (the default python3, Debian's 3.11 in `.venv`):
  resolved by uv for all of them at once (`uv pip compile pyproject.toml --all-extras --universal`: a package
  that only some versions need, or that differs between them, carries its environment marker), keeping the
  pins already in the file unless asked to upgrade; setup.sh installs `.[all,test]` with it as pip's constraints.
- `cp313t.txt`, the free-threaded `.venv-ft`: which packages install on 3.13t, and at which version, is decided
  by trying each with pip (scripts/free_threaded_packages.py); that run exports `.venv-ft`'s `pip freeze` here.
  The GIL twin `.venv-313` installs exactly this list (scripts/gil-twin-setup.sh).
The Debian packages of apt-packages.txt are recorded beside (`debian.txt`, name and version as dpkg has them):
they move with Debian's point releases, so they are reported by `--upgrade`, not failed on.
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOCKS = ROOT / "lock"
UV = "uv==0.13.9"  # the lock tool, itself pinned: a new uv may write the same lock differently
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)")


def tag() -> str:
    """The lock's name for this interpreter: gil, or the free-threaded build's wheel tag (cp313t)."""
    if getattr(sys, "_is_gil_enabled", lambda: True)():
        return "gil"
    return f"cp{sys.version_info[0]}{sys.version_info[1]}t"


def path_for(name: str) -> Path:
    return LOCKS / f"{name}.txt"


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _lines(lock: Path):
    """(name, version, marker or '') of each pin of a lock (uv's universal format, or pip freeze's)."""
    for line in lock.read_text().splitlines():
        requirement, _, _comment = line.partition("#")
        spec, _, marker = requirement.partition(";")
        match = _PIN.match(spec.strip())
        if match:
            yield normalize(match.group(1)), match.group(2), marker.strip()


def pins(lock: Path) -> dict[str, str]:
    """Normalized distribution name -> pinned version on this interpreter (environment markers evaluated here)."""
    from packaging.markers import Marker

    return {name: version for name, version, marker in _lines(lock) if not marker or Marker(marker).evaluate()}


def every_pin(lock: Path) -> dict[str, set[str]]:
    """Normalized distribution name -> every version the lock pins it to, on any interpreter it covers."""
    out: dict[str, set[str]] = {}
    for name, version, _marker in _lines(lock):
        out.setdefault(name, set()).add(version)
    return out


def installed() -> dict[str, str]:
    """Normalized name -> version of every distribution this interpreter has (the project itself left out)."""
    out = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name and normalize(name) != "refsuite":
            out[normalize(name)] = dist.version
    return out


def differences(lock: dict[str, str], have: dict[str, str]) -> list[str]:
    """One line per locked package that is installed at another version, or not at all (a lock is exactly
    what the project installs on its interpreter: `.[all,test]`'s closure, or .venv-ft's freeze)."""
    lines = []
    for name, version in sorted(lock.items()):
        if name not in have:
            lines.append(f"{name}: not installed, the lock says {version}")
        elif have[name] != version:
            lines.append(f"{name}: installed {have[name]}, the lock says {version}")
    return lines


def _uv(*args: str) -> subprocess.CompletedProcess:
    try:
        import uv  # noqa: F401  (the package ships the binary; `python -m uv` runs it)
    except ImportError:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", UV], check=True)
    return subprocess.run([sys.executable, "-m", "uv", *args], cwd=ROOT, capture_output=True, text=True)


def compile_gil(upgrade: bool) -> Path:
    """lock/gil.txt from pyproject.toml by uv: existing pins kept, or all moved to the newest with upgrade."""
    out = path_for("gil")
    args = ["pip", "compile", "pyproject.toml", "--all-extras", "--universal", "--python-version", "3.11", "-q",
            "--no-header", "--annotation-style", "line", "-o", str(out.relative_to(ROOT))]
    if upgrade:
        args.append("--upgrade")
    done = _uv(*args)
    if done.returncode:
        sys.exit(f"lock: uv pip compile failed:\n{done.stderr.strip()}")
    text = out.read_text()
    out.write_text(HEADER.format(command="python scripts/lock.py" + (" --upgrade" if upgrade else "")) + text)
    return out


HEADER = ("# The versions ./setup.sh installs on CPython with the GIL, 3.11 and newer (pip's constraints), resolved by uv\n# from pyproject.toml's"
          " requirements; pages, records and lessons are written against them. Written by `{command}`.\n")


def write_freeze(name: str, versions: dict[str, str], made_by: str) -> Path:
    """A lock written from what an interpreter holds (pip is the venv's own, and the project is not a package of the lock)."""
    out = path_for(name)
    LOCKS.mkdir(exist_ok=True)
    out.write_text(f"# The versions ./setup.sh installs on {name} (pip's constraints): what {made_by} found installs\n"
                   "# there, exported from that venv as pip freeze would. Pages, records and lessons are written against them.\n"
                   + "".join(f"{dist}=={version}\n" for dist, version in sorted(versions.items()) if dist not in ("pip", "refsuite")))
    return out


def debian(apt_packages: Path = ROOT / "apt-packages.txt") -> dict[str, str]:
    """Each Debian package of apt-packages.txt with the version dpkg has installed ('' when it has none)."""
    names = [line.split("#")[0].strip() for line in apt_packages.read_text().splitlines()]
    out = {}
    for name in filter(None, names):
        done = subprocess.run(["dpkg-query", "-W", "-f=${Version}", name], capture_output=True, text=True)
        out[name] = done.stdout.strip() if done.returncode == 0 else ""
    return out


def write_debian() -> Path:
    out = LOCKS / "debian.txt"
    rows = debian()
    out.write_text("# The Debian packages of apt-packages.txt as installed when the lock was last written (dpkg's\n"
                   "# versions; Debian's point releases move them, so ./setup.sh --upgrade reports them).\n"
                   + "".join(f"{name}={version}\n" for name, version in rows.items()))
    return out


def check() -> int:
    lock_path = path_for(tag())
    if not lock_path.exists():
        print(f"lock: no lock for {tag()} (lock/ has {', '.join(p.stem for p in sorted(LOCKS.glob('cp*.txt')))})")
        return 1
    lock = pins(lock_path)
    lines = differences(lock, installed())
    for line in lines:
        print(f"lock: {line}")
    return 1 if lines else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--upgrade", action="store_true", help="move every pin to the newest release within the floors")
    parser.add_argument("--check", action="store_true", help="compare this interpreter with its lock, naming each package")
    parser.add_argument("--tag", action="store_true", help="print this interpreter's lock name (gil, cp313t)")
    args = parser.parse_args(argv)
    if args.tag:
        print(tag())
        return 0
    if args.check:
        return check()
    LOCKS.mkdir(exist_ok=True)
    print(f"lock: wrote {compile_gil(args.upgrade).relative_to(ROOT)}")
    print(f"lock: wrote {write_debian().relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
