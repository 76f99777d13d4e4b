"""`python -m servers.run NAME [flags]`: start any catalog entry, Python or Go, the same way.

Python entries run as `python -m servers.NAME`; Go entries are built first if their binary is
missing or older than the Go sources (into .build/go/, never committed). The flags are passed
through unchanged, so every entry takes the same ones (see `--help` of any entry).
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from servers import catalog

ROOT = Path(__file__).resolve().parent.parent
GO_MODULE = ROOT / "servers" / "go"
GO_BIN = ROOT / ".build" / "go"


def go_binary(name: str) -> Path:
    return GO_BIN / name


def _newest_source(directory: Path) -> float:
    files = [p for p in directory.rglob("*") if p.suffix == ".go" or p.name in ("go.mod", "go.sum")]
    return max(p.stat().st_mtime for p in files)


def build_go(name: str, force: bool = False) -> Path:
    """Build cmd/NAME of the Go module; a no-op when the binary is newer than every source."""
    binary = go_binary(name)
    if not force and binary.exists() and binary.stat().st_mtime >= _newest_source(GO_MODULE):
        return binary
    binary.parent.mkdir(parents=True, exist_ok=True)
    print(f"building {name}: go build -o {binary} ./cmd/{name}", file=sys.stderr, flush=True)
    try:
        subprocess.run(["go", "build", "-trimpath", "-o", str(binary), f"./cmd/{name}"],
                       cwd=GO_MODULE, check=True)
    except FileNotFoundError:
        sys.exit("error: go not found: install Go 1.22 or newer (https://go.dev/doc/install)")
    except subprocess.CalledProcessError as exc:
        sys.exit(f"error: go build of {name} failed (exit {exc.returncode})")
    return binary


def command(name: str, args: list[str]) -> list[str]:
    """The command line that starts entry NAME (compose and the benchmark use the same one)."""
    entry = catalog.get(name)
    if entry.language == "go":
        return [str(build_go(name)), *args]
    return [sys.executable, "-m", entry.module, *args]


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        print("\nentries: " + " ".join(e.name for e in catalog.ENTRIES))
        sys.exit(0 if argv else 2)
    name, args = argv[0], argv[1:]
    if name not in catalog.BY_NAME:
        print(f"error: no catalog entry {name!r}; `python -m servers` lists them", file=sys.stderr)
        sys.exit(2)
    cmd = command(name, args)
    os.execv(cmd[0], cmd)


if __name__ == "__main__":
    main()
