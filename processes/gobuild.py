"""Build the suite's Go programs into .build/: backends/ferretdb, backends/mongoloop and the Go
servers (servers/go, one module with a command per framework).

One function for all of them: built if missing or older than its sources, under a lock, renamed
into place, so that concurrent test runs and benchmarks share one binary.
"""

from __future__ import annotations

import fcntl
import logging
import os
import shutil
import subprocess
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
BUILD_DIR = REPO_ROOT / ".build"

log = logging.getLogger(__name__)


class GoBuildError(Exception):
    """Go is missing or the build failed; the message says what to do."""


def find_go() -> str | None:
    """`go` on PATH, else the usual install location (CI may not have it on PATH)."""
    found = shutil.which("go")
    if found:
        return found
    fallback = Path("/usr/local/go/bin/go")
    return str(fallback) if fallback.exists() else None


def sources(src: Path) -> list[Path]:
    """The module's Go files (its packages too) and its go.mod and go.sum."""
    return sorted(src.rglob("*.go")) + [src / "go.mod", src / "go.sum"]


def is_stale(src: Path, binary: Path) -> bool:
    if not binary.exists():
        return True
    built = binary.stat().st_mtime
    return any(path.stat().st_mtime > built for path in sources(src))


def build(src: Path, binary: Path, force: bool = False, package: str = ".") -> bool:
    """Build `package` of the Go module in `src` into `binary` if missing or older than the module's
    sources; True if built."""
    if not force and not is_stale(src, binary):
        return False
    go = find_go()
    if go is None:
        raise GoBuildError(f"go not found: install Go >= 1.24 (needed to build {src.relative_to(REPO_ROOT)})")
    binary.parent.mkdir(parents=True, exist_ok=True)
    with open(binary.parent / f".{binary.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not force and not is_stale(src, binary):
            return False
        log.info("building %s from %s (a first build takes about a minute)", binary, src)
        tmp = binary.with_name(f".{binary.name}.{os.getpid()}.tmp")
        started = time.monotonic()
        result = subprocess.run(
            [go, "build", "-buildvcs=false", "-trimpath", "-o", str(tmp), package],
            cwd=src,
            env={**os.environ, "CGO_ENABLED": "0"},
            capture_output=True,
            text=True,
        )
        if result.returncode != 0:
            tmp.unlink(missing_ok=True)
            raise GoBuildError(f"go build of {src} failed:\n{result.stderr.strip()}")
        os.replace(tmp, binary)
        log.info("built %s in %.1f s", binary, time.monotonic() - started)
    return True
