"""scripts/free-threaded-python.sh takes the CPython version as a parameter: each 3.X from its own Debian suite's
source package (3.13 from trixie, 3.14 and 3.15 from sid), into its own cache directory, free-threaded or its GIL
twin. apt-get and go are stand-ins here that record what they were asked (no network, no build)."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "free-threaded-python.sh"

FAKE_APT = """#!/usr/bin/env bash
echo "apt-get $*" >> "$APT_LOG"
case "$*" in
  *--print-uris*) exit 100 ;;  # no deb-src line for the suite yet
  *update*) exit 0 ;;
  *) exit 100 ;;  # the source fetch: the test stops here (or goes to the Go module proxy's stand-in)
esac
"""
FAKE_GO = """#!/usr/bin/env bash
echo "go $*" >> "$APT_LOG"
echo '{"Path": "github.com/python/cpython", "Error": "stand-in: not served"}'
"""


def run(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess, str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "apt-get").write_text(FAKE_APT)
    (bin_dir / "apt-get").chmod(0o755)
    (bin_dir / "go").write_text(FAKE_GO)
    (bin_dir / "go").chmod(0o755)
    sources = tmp_path / "sources.list.d"
    sources.mkdir(exist_ok=True)
    log = tmp_path / "apt.log"
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "APT_LOG": str(log),
           "REFSUITE_CACHE": str(tmp_path / "cache"), "REFSUITE_APT_SOURCES": str(sources)}
    env.pop("FT_VERSION", None)
    done = subprocess.run(["bash", str(SCRIPT), *args], env=env, capture_output=True, text=True, timeout=60)
    return done, log.read_text() if log.exists() else ""


@pytest.mark.parametrize(("args", "name"), [
    ((), "python3.13t"), (("--gil",), "python3.13"), (("--version", "3.14"), "python3.14t"),
    (("--version", "3.14", "--gil"), "python3.14"), (("--version=3.15",), "python3.15t"),
    (("--version", "3.15", "--gil"), "python3.15")])
def test_each_version_and_build_has_its_own_place_in_the_cache(tmp_path, args, name):
    done, _ = run(tmp_path, *args, "--path")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(tmp_path / "cache" / name / "bin" / name)


@pytest.mark.parametrize(("version", "suite"), [("3.13", "trixie"), ("3.14", "sid"), ("3.15", "sid")])
def test_the_source_is_asked_of_its_own_suite(tmp_path, version, suite):
    # with sid's deb-src line present a bare `apt-get source python3.13` would fetch sid's 3.13.x, not trixie's
    done, asked = run(tmp_path, "--version", version)
    assert done.returncode != 0  # the stand-in refuses the fetch
    fetches = [line for line in asked.splitlines() if "--download-only" in line]
    assert fetches == [f"apt-get source -qq --download-only python{version}/{suite}"], asked
    listed = (tmp_path / "sources.list.d" / f"refsuite-{suite}-src.sources").read_text()
    assert f"Suites: {suite}" in listed and "Types: deb-src" in listed


def test_an_unknown_version_is_refused(tmp_path):
    done, asked = run(tmp_path, "--version", "3.12")
    assert done.returncode == 2 and "no Debian suite known for 3.12" in done.stderr and not asked



@pytest.mark.parametrize(("version", "tag"), [("3.14", "3.14.7"), ("3.13", None), ("3.15", None)])
def test_a_source_debian_does_not_serve_comes_from_cpythons_pinned_tag_through_the_go_proxy(tmp_path, version, tag):
    """sid's pool answered 404 for python3.14's source (2026-12-07): 3.14 then asks the Go module proxy for CPython's
    own pinned release tag (checked by go against sum.golang.org); a version with no pinned tag stops, saying so."""
    done, asked = run(tmp_path, "--version", version)
    assert done.returncode != 0
    downloads = [line for line in asked.splitlines() if line.startswith("go ")]
    if tag:
        assert downloads == [f"go mod download -json github.com/python/cpython@v{tag}+incompatible"], asked
        assert f"the Go module proxy did not serve CPython v{tag}" in done.stderr
    else:
        assert not downloads and "no release tag is pinned" in done.stderr, done.stderr
