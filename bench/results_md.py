"""results.md: the report model (bench/model.py) laid out in Markdown, section by section."""
from __future__ import annotations

from servers.core.tables import markdown_table

from bench.model import Report
from bench.report_tables import NOTE, NUMERIC, context, sections


def table(header: list[str], lines: list[list[str]]) -> str:
    # A pipe inside a cell (a failure's reason) would end it.
    cells = [[str(cell).replace("|", "\\|") for cell in line] for line in lines]
    return markdown_table(header, cells, right=lambda title: title.startswith(NUMERIC))


def render(report: Report, title: str = "Benchmark results") -> str:
    if report.session is None:
        return f"# {title}\n\nNo results.\n"
    parts = [f"# {title}", "", *context(report.session, report), ""]
    for section in sections(report):
        parts += [f"## {section.title}", ""] + ([section.intro, ""] if section.intro else [])
        parts += [table(section.header, section.lines), ""]
    return "\n".join([*parts, NOTE, ""])
