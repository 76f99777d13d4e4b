"""Every file derived from the specs, and how each is written: `python -m servers.generate` writes
them all, `--check` names the stale ones (tests/test_generated.py runs it).

Whole files: the entry modules servers/<entry>.py, compose/docker-compose.yml and its local
override, compose/ports.json (the ports registry). Parts of hand-written files, between markers
the generator keeps: docs/catalog.md's table, docs/caveats.md's list and docs/http2.md's table, pyproject.toml's server and
framework extras (and `all`), mkdocs.yml's lesson nav, docs/README.md's lesson index, each lesson
page's "Entries:" line, and docs/free-threading.md's table of the packages on free-threaded CPython 3.13t
(records/interpreters/python3.13t.json). Adding a server is its adapter, its spec and its lesson page,
then that one command (docs/contributing.md).
"""
from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from servers.core import (catalog, catalog_table, caveats_page, compose_model, entry_modules, http2_page,
                          interpreters, lessons, ports, websocket_page)

ROOT = Path(__file__).resolve().parents[2]
COMMAND = "python -m servers.generate"


@dataclass(frozen=True)
class Derived:
    """One derived file: render(current text, None when missing) -> the text it must hold."""

    path: Path
    render: Callable[[str | None], str]


class MarkersMissing(ValueError):
    """A hand-written file lacks the markers around its generated part."""


def splice(text: str | None, start: str, end: str, body: str, path: Path) -> str:
    """text with what lies between the lines `start` and `end` replaced by body."""
    pattern = re.compile(rf"(^{re.escape(start)}\n).*?(^{re.escape(end)}$)", re.S | re.M)
    if text is None or not pattern.search(text):
        raise MarkersMissing(f"{path} lacks the lines {start!r} ... {end!r} around its generated part")
    return pattern.sub(lambda m: m[1] + body + ("\n" if body else "") + m[2], text, count=1)


def _spliced(path: Path, start: str, end: str, body: Callable[[], str]) -> Derived:
    return Derived(path, lambda text: splice(text, start, end, body(), path))


# -- the catalog's pages: its table and its caveats ---------------------------------------------

CATALOG_PAGE, CAVEATS_PAGE = ROOT / "docs" / "catalog.md", ROOT / "docs" / "caveats.md"
CATALOG_START, CATALOG_END = "<!-- catalog:start (written by python -m servers.generate) -->", "<!-- catalog:end -->"
CAVEATS_START, CAVEATS_END = "<!-- caveats:start (written by python -m servers.generate) -->", "<!-- caveats:end -->"


# -- pyproject.toml's extras ---------------------------------------------------------------------

EXTRAS_START = "# extras:start (written by python -m servers.generate from the spec modules' EXTRAS)"
EXTRAS_END = "# extras:end"


def extras(pyproject: str) -> str:
    """The specs' extras, then `all`: every extra of the file but `test` (bench, anatomy and the specs')."""
    table = tomllib.loads(pyproject).get("project", {}).get("optional-dependencies", {})
    ours = dict(catalog.EXTRAS)
    others = [name for name in table if name not in ours and name not in ("all", "test")]
    lines = [f"{name} = [{', '.join(f'{chr(34)}{r}{chr(34)}' for r in requirements)}]"
             for name, requirements in ours.items()]
    lines.append(f'all = ["refsuite[{",".join([*ours, *others])}]"]')
    return "\n".join(lines)


def _pyproject() -> Derived:
    path = ROOT / "pyproject.toml"
    return Derived(path, lambda text: splice(text, EXTRAS_START, EXTRAS_END, extras(text or ""), path))


# -- the lessons: mkdocs nav, docs/README.md's index, each page's Entries line -------------------

def lesson_pages() -> dict[str, list[catalog.Entry]]:
    """Every lesson page a spec names ('docs/servers/x.md'), servers' pages first, in the catalog's
    order, with the entries it describes."""
    pages: dict[str, list[catalog.Entry]] = {}
    for folder in ("servers", "frameworks"):
        for entry in catalog.ENTRIES:
            for page in lessons.pages(entry):
                if page.startswith(f"docs/{folder}/"):
                    pages.setdefault(page, []).append(entry)
    return pages


def title(page: str) -> str:
    """A page's title: its first heading, without the '(brief)' of the short ones."""
    first = (ROOT / page).read_text().split("\n", 1)[0]
    return first.removeprefix("# ").removesuffix(" (brief)").strip()


NAV_START, NAV_END = "  # lessons:start (written by python -m servers.generate)", "  # lessons:end"


def nav() -> str:
    lines = []
    for folder, heading in (("servers", "Servers"), ("frameworks", "Frameworks")):
        lines.append(f"  - {heading}:")
        lines += [f'      - {json.dumps(title(page))}: {page.removeprefix("docs/")}'
                  for page in lesson_pages() if page.startswith(f"docs/{folder}/")]
    return "\n".join(lines)


INDEX_START, INDEX_END = "<!-- lessons:start (written by python -m servers.generate) -->", "<!-- lessons:end -->"


def index() -> str:
    paragraphs = []
    for folder, heading in (("servers", "Servers"), ("frameworks", "Frameworks")):
        links = [f"[{title(page)}]({page.removeprefix('docs/')})"
                 for page in lesson_pages() if page.startswith(f"docs/{folder}/")]
        paragraphs.append(f"{heading}: " + " · ".join(links))
    return "\n\n".join(paragraphs)


ENTRIES_START, ENTRIES_END = "<!-- entries:start (written by python -m servers.generate) -->", "<!-- entries:end -->"


def entries_line(entries: list[catalog.Entry]) -> str:
    names = [f"`{e.name}`" + (" (dev-only)" if e.dev_only else "") for e in entries]
    # blank lines around it: a paragraph of its own between the two comments, whatever the Markdown parser
    return f"\nEntries ({len(names)}): {', '.join(names)}.\n"


# docs/http2.md's table of where each server speaks HTTP/2 (servers/core/http2_page.py)
HTTP2_PAGE = ROOT / "docs" / "http2.md"
HTTP2_START, HTTP2_END = "<!-- http2-servers:start (written by python -m servers.generate) -->", "<!-- http2-servers:end -->"

# docs/websockets.md's table of what frames each stack's WebSockets (servers/core/websocket_page.py)
WEBSOCKET_PAGE = ROOT / "docs" / "websockets.md"
WEBSOCKET_START = "<!-- websocket-framing:start (written by python -m servers.generate) -->"
WEBSOCKET_END = "<!-- websocket-framing:end -->"

FT_PACKAGES_START = "<!-- free-threaded-packages:start (written by python -m servers.generate) -->"
FT_PACKAGES_END = "<!-- free-threaded-packages:end -->"
# each other free-threaded version recorded (records/interpreters/python3.14t.json, ...): a table of its own
NEWER_FT_VERSIONS = ("3.14",)


def ft_packages_markers(version: str) -> tuple[str, str]:
    return (f"<!-- free-threaded-packages-{version}t:start (written by python -m servers.generate) -->",
            f"<!-- free-threaded-packages-{version}t:end -->")


# -- the whole list ------------------------------------------------------------------------------

def derived() -> list[Derived]:
    files = [
        Derived(entry_modules.path(entry), lambda _, entry=entry: entry_modules.source(entry))
        for entry in catalog.python_entries()
    ]
    files.append(Derived(ports.REGISTRY, lambda _: ports.render(
        {name: port for name, _, _, port in compose_model.app_services()})))
    files += [Derived(compose_model.DEFAULT_OUTPUT, lambda _: compose_model.render()),
              Derived(compose_model.local_output(compose_model.DEFAULT_OUTPUT), lambda _: compose_model.render_local())]
    files.append(_spliced(CATALOG_PAGE, CATALOG_START, CATALOG_END, catalog_table.markdown_table))
    files.append(_spliced(CAVEATS_PAGE, CAVEATS_START, CAVEATS_END, caveats_page.markdown))
    files.append(_spliced(HTTP2_PAGE, HTTP2_START, HTTP2_END, http2_page.markdown))
    files.append(_spliced(WEBSOCKET_PAGE, WEBSOCKET_START, WEBSOCKET_END, websocket_page.markdown))
    files.append(_pyproject())
    files.append(_spliced(ROOT / "mkdocs.yml", NAV_START, NAV_END, nav))
    files.append(_spliced(ROOT / "docs" / "README.md", INDEX_START, INDEX_END, index))
    files += [_spliced(ROOT / page, ENTRIES_START, ENTRIES_END, lambda entries=entries: entries_line(entries))
              for page, entries in lesson_pages().items()]
    # which packages install on free-threaded CPython 3.13t and keep the GIL off: the set-up's record
    files.append(_spliced(ROOT / "docs" / "free-threading.md", FT_PACKAGES_START, FT_PACKAGES_END,
                          interpreters.packages_table))
    files += [_spliced(ROOT / "docs" / "free-threading.md", *ft_packages_markers(version),
                       lambda version=version: interpreters.packages_table(version)) for version in NEWER_FT_VERSIONS]
    return files


def _current(path: Path) -> str | None:
    return path.read_text() if path.exists() else None


def stale() -> list[Path]:
    """The derived files that differ from what the specs give (or lack their markers)."""
    out = []
    for item in derived():
        current = _current(item.path)
        try:
            if item.render(current) != current:
                out.append(item.path)
        except MarkersMissing:
            out.append(item.path)
    return out


def write() -> list[Path]:
    """Write every stale derived file (the ports registry first: compose reads it); the paths written."""
    written = []
    for item in derived():
        current = _current(item.path)
        text = item.render(current)
        if text != current:
            item.path.parent.mkdir(parents=True, exist_ok=True)
            item.path.write_text(text)
            written.append(item.path)
    return written
