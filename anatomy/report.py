"""An anatomy as text (the terminal), as JSON, and as an HTML section (--html, bench's report)."""
from __future__ import annotations

import html
import json

from anatomy import driver_parts, flame, layers


def _short_command(command: str) -> str:
    return command if len(command) <= 60 else command[:57] + "..."


def process_rows(result: dict) -> list[list[str]]:
    per = result["connections"]["per_process"]
    rows = []
    for p in result["processes"]:
        c = per.get(p["pid"], per.get(str(p["pid"]), {}))
        rows.append([str(p["pid"]), p["role"], str(p["threads"]), f"{p['cpu_percent']:.0f}%", f"{p['rss_mb']:.0f}",
                     f"{c.get('client_mean', 0):g}", f"{c.get('backend_mean', 0):g} (max {c.get('backend_max', 0)})",
                     _short_command(p["command"])])
    return rows


PROCESS_HEADER = ["pid", "role", "threads", "CPU (1 core = 100%)", "RSS MB", "client conns (mean)",
                  "backend conns (mean)", "command"]


def headline(result: dict) -> str:
    load = result["load"]
    rps = load.get("requests_per_s")
    lat = load.get("latency_ms") or {}
    over = f" over {result['protocol']}" if result.get("protocol", "h1") != "h1" else ""
    return (f"{result['entry']} {result['op']} ({result['path']}){over}: {result['server']} serving {result['framework']}, "
            f"{result['model']}, {result['workers']} workers; {_load_tool(result)} "
            f"{result['seconds']:g} s: {rps or 0:,.0f} requests/s, p50 {lat.get('p50', '?')} ms, "
            f"p99 {lat.get('p99', '?')} ms, errors {load.get('errors')}, non-2xx {load.get('non_2xx')}"
            + ("" if result["cpu"]["why"] or result["model"] == "goroutines" else " (under the profiler, which pauses a worker for each sample: "
                                                 "compare rates with ./bench.sh, not these)"))


def _load_tool(result: dict) -> str:
    """wrk's connections, or over HTTP/2 h2load's connections x streams."""
    if result.get("protocol") in ("h2", "h2c"):
        return f"h2load {result['clients']} connections x {result.get('streams', 1)} streams"
    return f"wrk {result['clients']} connections"


def connection_lines(result: dict) -> list[str]:
    c = result["connections"]
    lines = [f"listen: {c['listen']}; accept queue max {c['accept_queue_max']} (mean {c['accept_queue_mean']:g}) "
             f"of backlog {c['backlog']}"]
    if c["backend_ports"]:
        per_req = ""
        if c.get("backend_new_per_request") is not None:
            per_req = (f"; over the whole load {c['backend_new_whole_load']} new connections for "
                       f"{result['load']['requests']:,} requests: {c['backend_new_per_request']:.2f} per request")
        lines.append(f"backend (port {', '.join(map(str, c['backend_ports']))}): {c['backend_open_max']} connections "
                     f"open at most (sum over processes), {c['backend_new_per_s']:g} new connections/s{per_req}")
    return lines


def cpu_lines(result: dict) -> list[str]:
    cpu = result["cpu"]
    if cpu["why"]:
        return [f"CPU by layer: not measured: {cpu['why']}"]
    shares = ", ".join(f"{k} {v:.1f}%" for k, v in cpu["shares"].items())
    lines = [f"CPU by layer (on-CPU time only; a waiting thread adds nothing): {shares}"]
    if cpu.get("driver_parts", {}).get("parts"):
        lines.append(driver_parts.line(cpu["driver_parts"]))
    if cpu.get("tls_native_pct") is not None:
        lines.append(f"TLS library's native code (perf, all threads, GIL or not): {cpu['tls_native_pct']:g}% of the "
                     "workers' on-CPU samples, in the tls layer above")
    elif cpu.get("tls_native_why"):
        lines.append(f"TLS library's native code: not measured ({cpu['tls_native_why']}); the tls layer holds the "
                     "frames py-spy sees holding the GIL only")
    if cpu.get("worker_us_per_request"):
        per = ", ".join(f"{k} {v:g}" for k, v in cpu["layer_us_per_request"].items())
        lines.append(f"CPU per request: workers {cpu['worker_us_per_request']:g} µs ({per})")
    if cpu.get("top_held"):
        held = ", ".join(f"`{h['function']}` {h['seconds']:g} s" for h in cpu["top_held"][:3])
        lines.append(f"held, apart from CPU (threads sampled in a stack while off CPU: parked, waiting, "
                     f"lingering): {cpu['held_s']:g} thread-seconds over the window, most in {held}")
    return lines


def as_text(result: dict) -> str:
    out = [headline(result), ""]
    widths = [max(len(r[i]) for r in [PROCESS_HEADER, *process_rows(result)]) for i in range(len(PROCESS_HEADER))]
    for row in [PROCESS_HEADER, *process_rows(result)]:
        out.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
    out += ["", *connection_lines(result), *cpu_lines(result)]
    if result["cpu"]["top"]:
        out.append("top functions (leaf, % of the sampled CPU):")
        out += [f"  {t['percent']:5.1f}%  {t['layer']:<11} {t['function']}" for t in result["cpu"]["top"]]
    if result.get("flame"):
        out.append(f"flame graph: {result['flame']}")
    out.append(f"machine: {result['machine']}; versions: "
               + ", ".join(f"{k} {v}" for k, v in result["versions"].items()))
    return "\n".join(out)


def as_markdown(result: dict, command: str = "") -> str:
    """The anatomy as a lesson page's example: headline, process table, connections, layers, top functions."""
    out = [f"Measured with `{command}`:" if command else "", "", headline(result), "",
           "| " + " | ".join(PROCESS_HEADER[:-1]) + " |", "|" + "---|" * (len(PROCESS_HEADER) - 1)]
    out += ["| " + " | ".join(row[:-1]) + " |" for row in process_rows(result)]
    out += ["", *(f"- {line}" for line in connection_lines(result) + cpu_lines(result))]
    if result["cpu"]["top"]:
        out += ["", "| function (leaf) | layer | % of on-CPU time |", "|---|---|---|"]
        out += [f"| `{t['function']}` | {t['layer']} | {t['percent']:.1f} |" for t in result["cpu"]["top"][:8]]
    out += ["", f"Machine: {result['machine']}. Versions: "
            + ", ".join(f"{k} {v}" for k, v in result["versions"].items()) + ".", ""]
    return "\n".join(out)


COMPARISON_HEADER = ["stack", "model", "operation", "requests/s", "p99 ms", "backend connections open (max)",
                     "new backend connections per request", "driver share of on-CPU time", "driver µs per request",
                     "workers' µs per request"]


def comparison_row(result: dict) -> list[str]:
    """One stack's backend use in a row: how many connections it opens per request, and what its driver costs."""
    c, cpu, lat = result["connections"], result["cpu"], result["load"].get("latency_ms") or {}
    new = c.get("backend_new_per_request")
    driver = cpu.get("layers", {}).get(layers.DRIVER)
    driver_us = cpu.get("layer_us_per_request", {}).get(layers.DRIVER)
    return [f"`{result['entry']}`", result["model"], result["op"], f"{result['load'].get('requests_per_s') or 0:,.0f}",
            f"{lat['p99']:,.0f}" if lat.get("p99") is not None else "?", str(c.get("backend_open_max", "?")),
            "?" if new is None else f"{new:.2f}", "?" if driver is None else f"{driver:.1f}%",
            "?" if driver_us is None else f"{driver_us:g}", f"{cpu.get('worker_us_per_request', '?')}"]


def pooled_against_per_request(results: list[dict]) -> list[str]:
    """For each stack measured both ways, what the numbers teach, in one sentence from the numbers."""
    per_request = {(r["entry"], r["op"].removesuffix("-per-request")): r for r in results
                   if r["op"].endswith("-per-request")}
    lines = []
    for r in results:
        backend = r["op"].removesuffix("-pooled")
        if not r["op"].endswith("-pooled") or (r["entry"], backend) not in per_request:
            continue
        per = per_request[(r["entry"], backend)]
        new = [x["connections"].get("backend_new_per_request") for x in (r, per)]
        share = [x["cpu"].get("layers", {}).get(layers.DRIVER) for x in (r, per)]
        us = [x["cpu"].get("layer_us_per_request", {}).get(layers.DRIVER) for x in (r, per)]
        whole = [x["cpu"].get("worker_us_per_request") for x in (r, per)]
        if None in new or None in share or None in us or None in whole:
            continue
        lines.append(f"`{r['entry']}` ({r['model']}): the pool opens {new[0]:.2f} new {backend} connections per request, "
                     f"the per-request client {new[1]:.2f}; the driver's CPU per request goes from {us[0]:g} to "
                     f"{us[1]:g} µs ({share[0]:.1f}% to {share[1]:.1f}% of the workers' on-CPU time), the workers' "
                     f"from {whole[0]:g} to {whole[1]:g} µs: the connect and the client's set-up and teardown, paid on "
                     f"every request.")
    return lines


def comparison_markdown(results: list[dict], command: str = "") -> str:
    """Stacks side by side in one table (a lesson page's `anatomy-table`), with the machine and versions."""
    out = [f"Measured with `{command}` (each stack under the profiler: compare shares and counts, not rates):"
           if command else "", "", "| " + " | ".join(COMPARISON_HEADER) + " |", "|" + "---|" * len(COMPARISON_HEADER)]
    out += ["| " + " | ".join(comparison_row(r)) + " |" for r in results]
    out += ["", *(f"- {line}" for line in pooled_against_per_request(results))]
    versions = {k: v for r in results for k, v in r["versions"].items()}
    out += ["", f"Machine: {results[0]['machine']}. Versions: " + ", ".join(f"{k} {v}" for k, v in versions.items())
            + ".", ""] if results else []
    return "\n".join(out)


def as_json(result: dict) -> str:
    cpu = {k: v for k, v in result["cpu"].items() if k not in ("stacks", "rules")}
    return json.dumps({**result, "cpu": cpu}, indent=2, default=str)


def flame_svg(result: dict) -> str:
    cpu = result["cpu"]
    if not cpu.get("stacks"):
        return ""
    return flame.svg(cpu["stacks"], cpu["rules"], f"{result['entry']} {result['op']}: samples by layer, per thread")


def _table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def as_html_section(result: dict, svg: str = "") -> str:
    """One stack's anatomy as an HTML fragment (an <h3> and its tables; the flame graph inline)."""
    cpu = result["cpu"]
    parts = [f"<h3>Anatomy: {html.escape(result['entry'])} {html.escape(result['op'])}</h3>",
             f"<p class=\"note\">{html.escape(headline(result))}</p>",
             _table(PROCESS_HEADER, process_rows(result)),
             "".join(f"<p>{html.escape(line)}</p>" for line in connection_lines(result))]
    if cpu["why"]:
        parts.append(f"<p>{html.escape(cpu_lines(result)[0])}</p>")
    else:
        parts.append(_table(["layer", "share", "what it is"],
                            [[k, f"{v:.1f}%", layers.WHAT.get(k.split(" ")[0], "")] for k, v in cpu["shares"].items()]))
        parts.append("".join(f"<p>{html.escape(line)}</p>" for line in cpu_lines(result)[1:]))
        parts.append(_table(["function (leaf)", "layer", "% of on-CPU time"],
                            [[t["function"], t["layer"], f"{t['percent']:.1f}"] for t in cpu["top"]]))
    if svg:
        parts.append(f'<div class="flame" style="overflow-x:auto">{svg}</div>')
    parts.append(f"<p class=\"note\">machine: {html.escape(result['machine'])}; versions: "
                 + html.escape(", ".join(f"{k} {v}" for k, v in result["versions"].items())) + "</p>")
    return "\n".join(parts)


def as_html_page(results: list[dict], svgs: list[str]) -> str:
    style = ("body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:1250px;padding:0 1rem}"
             "table{border-collapse:collapse;font-size:.8rem;margin:.5rem 0}th,td{border:1px solid #ddd;"
             "padding:.2rem .45rem;text-align:left}th{background:#f3f3f3}.note{color:#555;font-size:.85rem}"
             ".flame svg{max-width:100%;height:auto}")
    body = "\n".join(as_html_section(r, s) for r, s in zip(results, svgs))
    return (f"<!doctype html><html><head><meta charset=\"utf-8\"><title>Anatomy</title><style>{style}</style>"
            f"</head><body><h1>Anatomy</h1>{body}</body></html>\n")
