"""Mermaid for the docs site from a local file, so that its diagrams draw with no network.

mkdocs-material draws ```mermaid blocks with the `mermaid` global when a page defines it, and fetches
mermaid@11 from a CDN only when it does not: this mkdocs hook (mkdocs.yml `hooks:`) serves a pinned
mermaid.min.js from the site itself and loads it on every page. The file is not committed (3.5 MB of
built JavaScript): `python scripts/mermaid_local.py` (./setup.sh runs it) fetches the release from the
npm registry with `npm pack` (npm checks the tarball against the registry's integrity hash), keeps its
dist/mermaid.min.js under .build/docs/ once its SHA-256 is the one pinned here, and re-uses it after.
"""
from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

VERSION = "11.17.2"  # the major version mkdocs-material 9 is written for (it would fetch mermaid@11)
SHA256 = "581ed7d74bd9048d0e3a91363927d72ef22942d7722546b27f7cc29e35390eb8"  # its dist/mermaid.min.js
ROOT = Path(__file__).resolve().parents[1]
LOCAL = ROOT / ".build" / "docs" / f"mermaid-{VERSION}.min.js"
SITE_PATH = "assets/javascripts/mermaid.min.js"  # where the site serves it
FETCH = "python scripts/mermaid_local.py"


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def fetched() -> bool:
    return LOCAL.exists() and _sha256(LOCAL.read_bytes()) == SHA256


def fetch() -> Path:
    """The pinned mermaid.min.js under .build/docs/, fetched with npm if it is not there yet."""
    if fetched():
        return LOCAL
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit("error: npm not found: the docs site's diagrams need Mermaid from the npm registry "
                         "(install Node.js with npm, e.g. apt-get install npm), then run " + FETCH)
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run([npm, "pack", f"mermaid@{VERSION}", "--pack-destination", tmp, "--json"],
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"error: npm pack mermaid@{VERSION} failed: {done.stderr.strip()[-500:]}")
        tarball = Path(tmp) / json.loads(done.stdout)[0]["filename"]
        with tarfile.open(tarball) as tar:
            data = tar.extractfile("package/dist/mermaid.min.js").read()
    if _sha256(data) != SHA256:
        raise SystemExit(f"error: mermaid@{VERSION}'s dist/mermaid.min.js is not the file pinned in {__file__} "
                         f"(SHA-256 {_sha256(data)}): refusing to serve it")
    LOCAL.parent.mkdir(parents=True, exist_ok=True)
    part = LOCAL.with_name(LOCAL.name + ".part")
    part.write_bytes(data)
    part.replace(LOCAL)
    return LOCAL


# -- the mkdocs hook ------------------------------------------------------------------------------

def on_config(config):
    from mkdocs.exceptions import PluginError

    if not fetched():
        raise PluginError(f"Mermaid {VERSION} is not in {LOCAL.relative_to(ROOT)}: run `{FETCH}` (./setup.sh does) "
                          "once, with the npm registry reachable; the site then draws its diagrams offline")
    # A plain script at the end of the body: it runs before DOMContentLoaded, when mkdocs-material looks
    # for the mermaid global and, finding it, fetches nothing.
    config.extra_javascript.append(SITE_PATH)
    return config


def on_files(files, config):
    from mkdocs.structure.files import File

    files.append(File.generated(config, SITE_PATH, abs_src_path=str(LOCAL)))
    return files


if __name__ == "__main__":
    path = fetch()
    print(f"mermaid {VERSION}: {path.relative_to(ROOT)} ({path.stat().st_size:,} bytes)")
    sys.exit(0)
