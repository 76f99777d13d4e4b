"""The Go control server (controls/go/main.go) built per golang.org/x/net pin into .build/: one
go.xnet-<version>.mod (and .sum) per pin, built with `go build -modfile`, so one source serves every
version and each binary's x/net is the one its modfile names (the binary says so: `-version`).
"""
from __future__ import annotations

import fcntl
import os
import subprocess
from pathlib import Path

from processes.gobuild import BUILD_DIR, GoBuildError, find_go

SOURCE = Path(__file__).resolve().parent / "go"


def modfile(version: str) -> Path:
    return SOURCE / f"go.xnet-{version}.mod"


def versions() -> list[str]:
    """The x/net versions a modfile pins."""
    return sorted(p.name.removeprefix("go.xnet-").removesuffix(".mod") for p in SOURCE.glob("go.xnet-*.mod"))


def binary(version: str) -> Path:
    return BUILD_DIR / f"h2control-xnet-{version}"


def _stale(version: str) -> bool:
    built = binary(version)
    if not built.exists():
        return True
    sources = [SOURCE / "main.go", modfile(version), modfile(version).with_suffix(".sum")]
    return any(p.stat().st_mtime > built.stat().st_mtime for p in sources)


def build(version: str) -> Path:
    """The control binary pinned to x/net `version`, built first when missing or older than its sources."""
    if not modfile(version).exists():
        raise GoBuildError(f"no {modfile(version).name}: one of {', '.join(versions())}")
    if not _stale(version):
        return binary(version)
    go = find_go()
    if go is None:
        raise GoBuildError("go not found: install Go >= 1.24 (the Go controls are built from h2grid/controls/go)")
    BUILD_DIR.mkdir(parents=True, exist_ok=True)
    with open(BUILD_DIR / f".h2control-{version}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _stale(version):
            tmp = binary(version).with_name(f".{binary(version).name}.{os.getpid()}.tmp")
            done = subprocess.run([find_go(), "build", "-buildvcs=false", "-trimpath", f"-modfile={modfile(version).name}",
                                   "-o", str(tmp), "."], cwd=SOURCE, env={**os.environ, "CGO_ENABLED": "0"},
                                  capture_output=True, text=True, timeout=600)
            if done.returncode != 0:
                tmp.unlink(missing_ok=True)
                raise GoBuildError(f"go build of the x/net {version} control failed:\n{done.stderr.strip()[-2000:]}")
            os.replace(tmp, binary(version))
    return binary(version)


def built_with(version: str) -> str:
    """The x/net version the built binary reports (its build info): what a control's record says it ran."""
    return subprocess.run([str(build(version)), "-version"], capture_output=True, text=True, timeout=30).stdout.strip()
