"""The lessons build as a site (mkdocs-material, Mermaid): a broken link, anchor or nav entry fails."""
from __future__ import annotations

import importlib.util
import os
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
