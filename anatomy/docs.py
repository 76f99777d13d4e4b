"""Regenerate the lesson pages: source links at the installed versions, and one measured anatomy each.

A page marks its example with `<!-- anatomy: NAME OP -->` ... `<!-- /anatomy -->`; regenerate()
runs that entry under load (session.run, the same as `python -m anatomy NAME --op OP`) and
writes the result between the markers, with the machine and the versions. A page that compares
stacks marks a table with `<!-- anatomy-table: NAME:OP NAME:OP ... -->` ... `<!-- /anatomy-table -->`:
one row per stack (requests/s, p99, new backend connections per request, the driver's share of the
on-CPU time and its microseconds per request). links_only=True just re-points the source links
(fast; the tests check that the pages are current). `<!-- trace: NAME -->` ... `<!-- /trace -->` (a
server page's measured I/O facts and diagram) and `<!-- trace-diagram: NAME -->` ...
`<!-- /trace-diagram -->` (the diagram alone) are rendered every time from the stored trace
(docs/data/traces/NAME.json, `python -m anatomy --trace NAME`): no re-measuring.
"""
from __future__ import annotations

import re
from pathlib import Path

from anatomy import reading, report, session, sources, tracedata, tracerender
from servers.core.lessons import DOCS

EXAMPLE = re.compile(r"(<!-- anatomy: (?P<name>\S+) (?P<op>\S+) -->\n)(?P<body>.*?)(<!-- /anatomy -->)", re.S)
TABLE = re.compile(r"(<!-- anatomy-table: (?P<stacks>[^>]+?) -->\n)(?P<body>.*?)(<!-- /anatomy-table -->)", re.S)


def table_stacks(match: re.Match) -> list[tuple[str, str]]:
    return [(name, op) for name, _, op in (s.partition(":") for s in match["stacks"].split())]


def page_files() -> list[Path]:
    return sorted(DOCS.glob("*/*.md"))


def regenerate(links_only: bool = False, seconds: float = 6.0, connections: int = 50, only: list[str] | None = None,
               log=print) -> list[Path]:
    """Re-render the pages (only those named, by stem or folder/stem); the pages changed. A page that cannot
    render (a trace never recorded, a source link to a package no spec declares) is left as it was while
    the others are written, and PagesNotRendered names each with what to do."""
    cache: dict[tuple[str, str], str] = {}
    results: dict[tuple[str, str], dict] = {}

    def measure(key: tuple[str, str], page: Path) -> dict:
        if key not in results:
            log(f"measuring {key[0]} {key[1]} for {page.relative_to(DOCS)}")
            results[key] = session.run(session.Settings(name=key[0], op=key[1], seconds=seconds,
                                                         connections=connections))
            tracedata.save_anatomy(results[key])
        return results[key]

    def rendered(page: Path, text: str) -> str:
        new = sources.resolve(text)
        if not links_only:
            def example(match: re.Match) -> str:
                key = (match["name"], match["op"])
                if key not in cache:
                    cache[key] = report.as_markdown(measure(key, page),
                                                    command=f"python -m anatomy {key[0]} --op {key[1]} "
                                                            f"--seconds {seconds:g} --connections {connections}")
                return match[1] + cache[key] + match[5]

            def table(match: re.Match) -> str:
                stacks = table_stacks(match)
                rows = [measure(key, page) for key in stacks]
                command = (f"python -m anatomy {' '.join(f'{n}:{o}' for n, o in stacks)} "
                           f"--seconds {seconds:g} --connections {connections}")
                return match[1] + report.comparison_markdown(rows, command) + match[4]

            new = EXAMPLE.sub(example, new)
            new = TABLE.sub(table, new)
        return render_traces(new)  # after the examples: a reading block renders the anatomy just stored

    changed: list[Path] = []
    known = {name for page in trace_pages() for name in (page.stem, str(page.relative_to(DOCS).with_suffix("")))}
    problems = [f"{name}: no lesson page of that name (give a page's, e.g. waitress or servers/waitress)"
                for name in only or () if name not in known]
    for page in trace_pages():
        if only and page.stem not in only and str(page.relative_to(DOCS).with_suffix("")) not in only:
            continue
        text = page.read_text(encoding="utf-8")
        try:
            new = rendered(page, text)
        except (MissingTrace, sources.SourceError) as exc:
            problems.append(f"{page.relative_to(DOCS.parent)}: {exc}")
            continue
        if new != text:
            page.write_text(new, encoding="utf-8")
            changed.append(page)
    if problems:
        raise PagesNotRendered(problems, changed)
    return changed


class PagesNotRendered(RuntimeError):
    """Pages left as they were, each with its reason and what to do; `changed`: the pages written anyway."""

    def __init__(self, problems: list[str], changed: list[Path]):
        super().__init__("\n".join(problems))
        self.problems, self.changed = problems, changed


TRACE = re.compile(r"(<!-- trace: (?P<name>\S+) -->\n)(?P<body>.*?)(<!-- /trace -->)", re.S)
READING = re.compile(r"(<!-- reading: (?P<name>\S+) (?P<op>\S+) -->\n)(?P<body>.*?)(<!-- /reading -->)", re.S)
TRACE_DIAGRAM = re.compile(r"(<!-- trace-diagram: (?P<name>\S+) -->\n)(?P<body>.*?)(<!-- /trace-diagram -->)", re.S)


def trace_pages() -> list[Path]:
    return [*page_files(), DOCS / "request-paths.md"]


def traced_entries() -> list[str]:
    """The entries whose traces the pages render, in page order."""
    names: list[str] = []
    for page in trace_pages():
        text = page.read_text(encoding="utf-8")
        for pattern in (TRACE, TRACE_DIAGRAM):
            names += [m["name"] for m in pattern.finditer(text) if m["name"] not in names]
    return names


class MissingTrace(LookupError):
    """A page renders a trace that was never recorded: run `python -m anatomy --trace NAME`."""


def stored_trace(name: str) -> dict:
    trace = tracedata.load(name)
    if trace is None:
        raise MissingTrace(f"no trace of {name}: run `python -m anatomy --trace {name}`")
    return trace


def render_traces(text: str) -> str:
    """Every trace block of a page re-rendered from the stored traces."""
    text = TRACE.sub(lambda m: m[1] + tracerender.block(stored_trace(m["name"])) + m[4], text)
    text = READING.sub(lambda m: m[1] + reading.notes(tracedata.load_anatomy(m["name"], m["op"]),
                                                     tracedata.load(m["name"])) + m[5], text)
    return TRACE_DIAGRAM.sub(lambda m: m[1] + tracerender.diagram(stored_trace(m["name"])) + "\n" + m[4], text)
