"""report.html: the report model (bench/model.py) as one self-contained page: the sections of
results.md with their charts (embedded base64 PNG; the capacity charts are plotly's, interactive,
plotly.js embedded once), inline CSS, no external asset."""
from __future__ import annotations

import base64
import html
import re

from bench import capacity_charts, charts
from bench.model import Report
from bench.report_tables import NOTE, context, sections

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:1200px;
color:#222;padding:0 1rem}
h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #ddd}
table{border-collapse:collapse;font-size:.8rem;margin:.5rem 0}
th,td{border:1px solid #ddd;padding:.2rem .45rem;text-align:right;white-space:nowrap}
th{background:#f3f3f3}td:first-child,td:nth-child(2),td:nth-child(3){text-align:left}
tr.dev td:first-child{background:#fff4e0}.dev-tag{color:#a35b00;font-weight:600;font-size:.75rem}
td.why{white-space:normal;text-align:left;max-width:40rem}
img{max-width:100%;margin:.5rem 0;border:1px solid #eee}
.note{color:#555;font-size:.85rem}code{font-size:.85em}
"""
WRAPPED = {"failures", "closed", "open", "capacity", "curves"}  # sections whose last column is prose


def inline(cell: str) -> str:
    """The Markdown of a table cell (`code`, **bold**) as HTML."""
    text = html.escape(cell)
    text = re.sub(r"`([^`]+)`", r"<code>\1</code>", text)
    return re.sub(r"\*\*dev-only\*\*", '<span class="dev-tag">dev-only</span>', text)


def table(header: list[str], lines: list[list[str]], wrap_last: bool = False) -> str:
    out = ["<table><thead><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in header) + "</tr></thead><tbody>"]
    for cells in lines:
        dev = ' class="dev"' if "dev-only" in cells[0] else ""
        tds = [f"<td>{inline(c)}</td>" for c in cells]
        if wrap_last:
            tds[-1] = f'<td class="why">{inline(cells[-1])}</td>'
        out.append(f"<tr{dev}>" + "".join(tds) + "</tr>")
    out.append("</tbody></table>")
    return "\n".join(out)


def image(png: bytes | None, alt: str) -> str:
    if not png:
        return ""
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{base64.b64encode(png).decode()}">'


def render(report: Report, title: str = "Benchmark report") -> str:
    parts = [f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{html.escape(title)}</title>",
             f"<style>{CSS}</style></head><body>", f"<h1>{html.escape(title)}</h1>"]
    if report.session is None:
        return "\n".join([*parts, "<p>No results.</p></body></html>"])
    parts.append("<ul>" + "".join(f"<li>{inline(line[2:])}</li>" for line in context(report.session, report))
                 + "</ul>")
    for section in sections(report):
        parts += [f"<h2>{html.escape(section.title)}</h2>",
                  f'<p class="note">{html.escape(section.intro)}</p>' if section.intro else "",
                  *(capacity_charts.html(capacity_charts.figures(list(report.capacities)))
                    if section.key == "capacity" else ()),
                  *(image(png, alt) for png, alt in charts.of_section(section.key, report)),
                  table(section.header, section.lines, wrap_last=section.key in WRAPPED)]
    parts += [f'<p class="note">{html.escape(NOTE)}</p>', "</body></html>"]
    return "\n".join(p for p in parts if p)
