"""report.html: the report model (bench/report/model.py) as one self-contained page, in the order of results.md:
the answer (per operation the stacks ranked by capacity, its verdict, its capacity chart), how it was
measured, then the other sections with their charts (embedded base64 PNG; the capacity charts are
plotly's, interactive, plotly.js embedded once), inline CSS, no external asset. Every table sits in
its own horizontal scroll, so a wide one never widens the page."""
from __future__ import annotations

import base64
import html
import re

from bench.report import capacity_charts, charts
from bench.report.model import Report
from bench.report.tables import NOTE, NUMERIC, Collapsed, Section, context, opening, sections

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:1rem auto;max-width:1200px;
color:#222;padding:0 1rem}
h1{font-size:1.4rem;margin:.3rem 0}h2{font-size:1.15rem;margin-top:1.5rem;border-bottom:1px solid #ddd}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;font-size:.8rem;margin:.5rem 0}
th,td{border:1px solid #ddd;padding:.2rem .45rem;text-align:left;white-space:nowrap;vertical-align:top}
th{background:#f3f3f3}th.num,td.num{text-align:right}td.list{white-space:normal;min-width:10rem;max-width:22rem}
tr.dev td:first-child{background:#fff4e0}.dev-tag{color:#a35b00;font-weight:600;font-size:.75rem}
td.why{white-space:normal;text-align:left;max-width:40rem}
td details{white-space:normal;text-align:left;max-width:28rem}td summary{cursor:pointer;color:#555;white-space:nowrap}
.verdict{margin:.3rem 0;padding:0 0 0 1.2rem}.verdict li{margin:.15rem 0}
img{max-width:100%;margin:.5rem 0;border:1px solid #eee}
.note{color:#555;font-size:.85rem}code{font-size:.85em}
"""
WRAPPED = {"failures", "closed", "open", "curves"}  # sections whose last column is prose


def inline(cell: str) -> str:
    """The Markdown of a table cell (`code`, **bold**) as HTML."""
    text = html.escape(cell)
    text = re.sub(r"`([^`]+)`", r"<code>\1</code>", text)
    text = re.sub(r"\*\*dev-only\*\*", '<span class="dev-tag">dev-only</span>', text)
    return re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", text)


LISTS = ("ties with", "void")  # columns of names or reasons, wrapped


def column_class(title: str) -> str:
    """Numbers right-aligned (the titles results.md right-aligns), lists of names wrapped."""
    kind = "num" if title.startswith(NUMERIC) else "list" if title in LISTS else ""
    return f' class="{kind}"' if kind else ""


def td(cell, kind: str = "") -> str:
    if isinstance(cell, Collapsed):
        body = "".join(f"<p>{inline(text)}</p>" for text in cell.body)
        return f"<td><details><summary>{inline(cell.summary)}</summary>{body}</details></td>"
    return f"<td{kind}>{inline(cell)}</td>"


def table(header: list[str], lines: list[list], wrap_last: bool = False) -> str:
    kinds = [column_class(h) for h in header]
    out = ['<div class="scroll"><table><thead><tr>'
           + "".join(f"<th{kind}>{html.escape(h)}</th>" for h, kind in zip(header, kinds)) + "</tr></thead><tbody>"]
    for cells in lines:
        dev = ' class="dev"' if "dev-only" in " ".join(str(c) for c in cells[:2]) else ""
        tds = [td(c, kind) for c, kind in zip(cells, kinds)]
        if wrap_last and not isinstance(cells[-1], Collapsed):
            tds[-1] = f'<td class="why">{inline(cells[-1])}</td>'
        out.append(f"<tr{dev}>" + "".join(tds) + "</tr>")
    out.append("</tbody></table></div>")
    return "\n".join(out)


def image(png: bytes | None, alt: str) -> str:
    if not png:
        return ""
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{base64.b64encode(png).decode()}">'


def section(s: Section, report: Report, plots: dict[str, list[str]]) -> list[str]:
    drawn = [*plots.get(f"{s.key}:{s.operation}" if s.operation else s.key, ()),
             *(image(png, alt) for png, alt in charts.of_section(s.key, report))]
    rows = table(s.header, s.lines, wrap_last=s.key in WRAPPED)
    return [f"<h2>{html.escape(s.title)}</h2>",
            f'<p class="note">{html.escape(s.intro)}</p>' if s.intro else "",
            ('<ul class="verdict">' + "".join(f"<li>{inline(text)}</li>" for text in s.verdict) + "</ul>")
            if s.verdict else "",
            # the answer's table first (it is the answer, on the first screen); elsewhere the chart leads
            *([rows, *drawn] if s.key == "answer" else [*drawn, rows])]


def render(report: Report, title: str = "Benchmark report") -> str:
    parts = [f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{html.escape(title)}</title>",
             f"<style>{CSS}</style></head><body>", f"<h1>{html.escape(title)}</h1>"]
    if report.session is None:
        return "\n".join([*parts, "<p>No results.</p></body></html>"])
    first, rest = opening(report), sections(report)
    plots = capacity_charts.placed(report.answers, list(report.capacities))
    for s in first:
        parts += section(s, report, plots)
    parts += ["<h2>How it was measured</h2>",
              "<ul>" + "".join(f"<li>{inline(line[2:])}</li>" for line in context(report.session, report)) + "</ul>"]
    for s in rest:
        parts += section(s, report, plots)
    parts += [f'<p class="note">{html.escape(NOTE)}</p>', "</body></html>"]
    return "\n".join(p for p in parts if p)
