"""report.html: one self-contained page (charts as embedded base64 PNG, inline CSS, no external asset)."""
from __future__ import annotations

import base64
import html
import re

from bench import aggregate, charts, results_md, significance
from bench.schema import Result

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


def render(results: list[Result], title: str = "Benchmark report") -> str:
    parts = [f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{html.escape(title)}</title>",
             f"<style>{CSS}</style></head><body>", f"<h1>{html.escape(title)}</h1>"]
    if not results:
        return "\n".join([*parts, "<p>No results.</p></body></html>"])
    rows = aggregate.rows(results)
    closed = [r for r in rows if r.first.loop == "closed"]
    opened = [r for r in rows if r.first.loop == "open"]
    parts.append("<ul>" + "".join(f"<li>{inline(line[2:])}</li>" for line in results_md.context(results)) + "</ul>")
    if any(r.ok_results for r in closed):
        parts += ["<h2>Closed loop: requests per second</h2>", image(charts.requests_per_second(closed), "requests/s"),
                  "<h2>Closed loop: latency percentiles</h2>", image(charts.latency_percentiles(closed), "latency"),
                  image(charts.pooled_vs_per_request(closed), "pooled vs per-request"),
                  image(charts.cpu_per_request(closed), "CPU per request"),
                  "<h2>Closed loop: table</h2>", table(*results_md.closed_cells(closed))]
        if significance.any_repeats(closed) and significance.ranked_pairs(closed):
            parts += ["<h2>Are the differences above the noise?</h2>",
                      '<p class="note">Each stack against the next slower one of the same configuration: the '
                      "ratio of their median req/s (faster / slower) and its bootstrap interval.</p>",
                      table(*results_md.significance_cells(closed))]
    if any(r.ok_results for r in opened):
        parts += ["<h2>Open loop (constant rate), shown apart: its numbers answer another question</h2>",
                  '<p class="note">The load tool sends requests on schedule whether or not earlier ones came back, '
                  "so latency includes queueing and success rate is the result; requests/s is what was done of "
                  "the offered rate.</p>",
                  image(charts.open_loop_success(opened), "open-loop success"),
                  image(charts.open_loop_latency(opened), "open-loop latency"),
                  table(*results_md.open_cells(opened))]
    if any(r.failed for r in rows):
        parts += ["<h2>Failed runs</h2>", table(*results_md.failure_cells(rows), wrap_last=True)]
    parts += [f'<p class="note">{html.escape(results_md.NOTE)}</p>', "</body></html>"]
    return "\n".join(p for p in parts if p)
