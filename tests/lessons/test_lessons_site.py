"""The lessons build as a site (mkdocs-material, Mermaid): a broken link, anchor or nav entry fails; and the
site works with no network: its pages load nothing from elsewhere and a page's diagrams draw in headless
Chromium with every host but 127.0.0.1 unresolvable (Mermaid is served by the site: scripts/mermaid_local.py)."""
from __future__ import annotations

import functools
import html
import http.server
import importlib.util
import json
import os
import re
import threading
import tomllib
import subprocess
import sys
from pathlib import Path

import pytest

from harness import browser
from processes.ports import free_port
from serverproc import ROOT

PROBE = Path(__file__).with_name("diagram_probe.js")
LOCAL_MERMAID = '<script src="../assets/javascripts/mermaid.min.js"></script>'


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    if importlib.util.find_spec("material") is None:
        pytest.skip("mkdocs is not installed (pip install '.[test]')")
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=180,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stderr[-3000:]
    return out


def test_the_lessons_site_builds_in_strict_mode(site):
    page = (site / "request-paths" / "index.html").read_text()
    assert '<pre class="mermaid"><code>sequenceDiagram' in page  # the diagrams reach Mermaid, not a code block
    fetched = {}
    for built in site.rglob("*.html"):
        # a script, a stylesheet or a font from another host: the page would lack it offline
        found = re.findall(r'<(?:script|link)[^>]+(?:src|href)="(https?://[^"]+)"', built.read_text())
        if found:
            fetched[str(built.relative_to(site))] = found
    assert not fetched, f"pages that load from elsewhere: {fetched}"


@pytest.fixture(scope="module")
def served(site):
    """The built site over HTTP on loopback, as `mkdocs serve` or any static server gives it."""
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def drawn_offline(site: Path, base: str, page: str, text: str) -> dict:
    """What Mermaid drew on a copy of page (its HTML given) opened in Chromium without a network."""
    probed = site / page / "probed.html"
    probed.write_text(text.replace("<head>", f"<head><script>{PROBE.read_text()}</script>", 1))
    try:
        dom = browser.dom(f"{base}/{page}/probed.html", offline=True, budget_ms=15000)
    except browser.BrowserMissing as exc:
        if os.environ.get("CI"):
            pytest.fail(str(exc))
        pytest.skip(str(exc))
    finally:
        probed.unlink()
    found = re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S)
    assert found, "the probe did not run: " + dom[-500:]
    return json.loads(html.unescape(found[1]))


def test_the_site_draws_its_diagrams_with_no_network(site, served):
    text = (site / "request-paths" / "index.html").read_text()
    diagrams = text.count('<pre class="mermaid">')
    assert diagrams >= 5
    seen = drawn_offline(site, served, "request-paths", text)
    assert seen["mermaid"] == "object", seen
    drawn = seen["drawn"]
    assert len(drawn) == diagrams and all(d and d["id"].startswith("__mermaid_") and d["width"] > 100
                                           for d in drawn), drawn
    assert {d["kind"] for d in drawn} >= {"sequence"}, drawn


def test_the_cdn_configuration_draws_nothing_with_no_network(site, served):
    """The same page without the local Mermaid: mkdocs-material then fetches it from its CDN, which the
    network block stops, so nothing is drawn; the check above can fail, and fails on that configuration."""
    text = (site / "request-paths" / "index.html").read_text().replace(LOCAL_MERMAID, "")
    seen = drawn_offline(site, served, "request-paths", text)
    assert seen == {"drawn": [], "mermaid": "undefined"}, seen


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
