"""Regenerate the lesson pages: source links at the installed versions, and one measured anatomy each.

A page marks its example with `<!-- anatomy: NAME OP -->` ... `<!-- /anatomy -->`; regenerate()
runs that entry under load (session.run, the same as `python -m anatomy NAME --op OP`) and
writes the result between the markers, with the machine and the versions. links_only=True just
re-points the source links (fast; the tests check that the pages are current).
"""
from __future__ import annotations

import re
from pathlib import Path

from anatomy import report, session, sources
from servers.core.lessons import DOCS

EXAMPLE = re.compile(r"(<!-- anatomy: (?P<name>\S+) (?P<op>\S+) -->\n)(?P<body>.*?)(<!-- /anatomy -->)", re.S)


def page_files() -> list[Path]:
    return sorted(DOCS.glob("*/*.md"))


def regenerate(links_only: bool = False, seconds: float = 6.0, connections: int = 50, only: list[str] | None = None,
               log=print) -> list[Path]:
    cache: dict[tuple[str, str], str] = {}
    changed = []
    for page in page_files():
        if only and page.stem not in only:
            continue
        text = page.read_text(encoding="utf-8")
        new = sources.resolve(text)
        if not links_only:
            def example(match: re.Match) -> str:
                key = (match["name"], match["op"])
                if key not in cache:
                    log(f"measuring {key[0]} {key[1]} for {page.relative_to(DOCS)}")
                    result = session.run(session.Settings(name=key[0], op=key[1], seconds=seconds,
                                                          connections=connections))
                    cache[key] = report.as_markdown(result, command=f"python -m anatomy {key[0]} --op {key[1]} "
                                                                    f"--seconds {seconds:g} --connections {connections}")
                return match[1] + cache[key] + match[5]

            new = EXAMPLE.sub(example, new)
        if new != text:
            page.write_text(new, encoding="utf-8")
            changed.append(page)
    return changed
