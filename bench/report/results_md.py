"""results.md: the report model (bench/report/model.py) laid out in Markdown, section by section: the answer
first, then how it was measured, then the rest."""
from __future__ import annotations

from servers.core.tables import markdown_table

from bench.report.model import Report
from bench.report.tables import NOTE, NUMERIC, Collapsed, Section, context, opening, sections


def cell(value) -> str:
    if isinstance(value, Collapsed):  # GitHub renders <details> in a table cell
        value = f"<details><summary>{value.summary}</summary>{'<br>'.join(value.body)}</details>"
    return str(value).replace("|", "\\|")  # a pipe inside a cell (a failure's reason) would end it


def table(header: list[str], lines: list[list]) -> str:
    return markdown_table(header, [[cell(c) for c in line] for line in lines],
                          right=lambda title: title.startswith(NUMERIC))


def section(s: Section) -> list[str]:
    parts = [f"## {s.title}", ""] + ([s.intro, ""] if s.intro else [])
    parts += [*(f"- {sentence}" for sentence in s.verdict), ""] if s.verdict else []
    return parts + [table(s.header, s.lines), ""]


def render(report: Report, title: str = "Benchmark results") -> str:
    if report.session is None:
        return f"# {title}\n\nNo results.\n"
    parts = [f"# {title}", ""]
    for s in opening(report):
        parts += section(s)
    parts += ["## How it was measured", "", *context(report.session, report), ""]
    for s in sections(report):
        parts += section(s)
    return "\n".join([*parts, NOTE, ""])
