"""The lesson pages of an entry (docs/servers/*.md, docs/frameworks/*.md), as its specs name them.

One page per server model and one per framework: entries that share a server or a framework share
its page. `python -m servers --markdown` (docs/catalog.md's table) and every entry's --help link them.
"""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"



def pages(entry) -> list[str]:
    """Paths (relative to the repository) of the entry's server page and framework page that exist:
    the pages its server's and its app's specs name."""
    out = []
    for folder, page in (("servers", entry.server_spec.lesson), ("frameworks", entry.app_spec.lesson)):
        if page and (DOCS / folder / f"{page}.md").exists():
            out.append(f"docs/{folder}/{page}.md")
    return out
