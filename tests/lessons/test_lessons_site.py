"""The lessons build as a site (mkdocs-material, Mermaid): a broken link, anchor or nav entry fails."""
from __future__ import annotations

import importlib.util
import os
import re
import tomllib
import subprocess
import sys

import pytest

from serverproc import ROOT


def test_the_lessons_site_builds_in_strict_mode(tmp_path):
    if importlib.util.find_spec("material") is None:
        pytest.skip("mkdocs is not installed (pip install '.[test]')")
    out = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                         cwd=ROOT, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert out.returncode == 0, out.stderr[-3000:]
    page = (tmp_path / "site" / "request-paths" / "index.html").read_text()
    assert '<pre class="mermaid"><code>sequenceDiagram' in page  # the diagrams reach Mermaid, not a code block


def declared_lower_bounds() -> dict[str, tuple[int, ...]]:
    """Each distribution's lower bound in pyproject.toml (dependencies and extras), as a version tuple."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    bounds = {}
    for requirement in [*project["dependencies"], *(r for extra in project["optional-dependencies"].values()
                                                    for r in extra)]:
        found = re.match(r"([A-Za-z0-9_.-]+)(?:\[[^\]]*\])?>=([0-9.]+)", requirement)
        if found:
            bounds[found.group(1).lower()] = tuple(int(part) for part in found.group(2).split("."))
    return bounds


def test_declared_lower_bounds_are_the_versions_the_lessons_read():
    """A page that links a package's source at a tag reads that version: the project must not declare
    that an older one will do (uvicorn.md read 0.55.0 while 0.54.0 was declared). redis.md's
    redis.asyncio packer is 8.2.0's."""
    bounds = declared_lower_bounds()
    read: dict[str, set[tuple[int, ...]]] = {"redis": {(8, 2, 0)}}
    for page in (ROOT / "docs").rglob("*.md"):
        for repo, tag in re.findall(r"github\.com/[\w-]+/([\w-]+)/blob/([\w.-]+)/", page.read_text()):
            version = re.fullmatch(r"(?:v|twisted-)?([0-9]+(?:\.[0-9]+)+)", tag)
            if version and repo.lower() in bounds:
                read.setdefault(repo.lower(), set()).add(tuple(int(p) for p in version.group(1).split(".")))
    assert {"uvicorn", "gunicorn", "django", "redis"} <= read.keys(), read.keys()
    older = {name: (bounds[name], max(versions)) for name, versions in read.items() if bounds[name] < max(versions)}
    assert not older, f"declared lower bound below the version the lessons read: {older}"
