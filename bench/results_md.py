"""results.md: the Markdown summary of a results file (closed loop, open loop and failures apart)."""
from __future__ import annotations

from bench import aggregate, ceiling, machine, noise, rounds, significance
from bench.aggregate import Row
from bench.schema import Result
from servers.core.tables import markdown_table


def num(value: float | None, digits: int = 0) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


def ms(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value:.3f}" if value < 1 else f"{value:.2f}" if value < 100 else f"{value:.0f}"


def stack(row: Row) -> str:
    r = row.first
    return f"`{r.entrypoint}`" + (" **dev-only**" if r.dev_only else "")


def errors_cell(row: Row) -> str:
    kinds = {k: v for k, v in row.errors().items() if v}
    if not kinds:
        return "0"
    return f"{sum(kinds.values()):,} (" + ", ".join(f"{k} {v:,}" for k, v in kinds.items()) + ")"


def spread_cell(row: Row) -> str:
    pct = row.spread_pct()
    text = "–" if pct is None else f"±{pct / 2:.1f}%"
    if row.noisy:  # the noise probe moved during some of its runs
        text += f" (noisy {row.noisy}/{len(row.ok_results)})"
    return text


NUMERIC = ("req", "p", "max", "mean", "cpu", "rss", "rate")  # right-aligned columns start so


def table(header: list[str], lines: list[list[str]]) -> str:
    return markdown_table(header, lines, right=lambda title: title.startswith(NUMERIC))


def closed_table(rows: list[Row]) -> str:
    return table(*closed_cells(rows))


def closed_cells(rows: list[Row]) -> tuple[list[str], list[list[str]]]:
    header = ["stack", "op", "tool", "load", "conn", "workers", "req/s", "of backend", "spread", "p50 ms", "p90 ms",
              "p99 ms", "p99.9 ms", "max ms", "errors", "non-2xx", "cpu ms/req", "rss MB"]
    lines = []
    for row in rows:
        if not row.ok_results:
            continue
        lines.append([stack(row), row.first.operation, row.first.tool, row.load, row.connection,
                      num(row.first.workers), num(row.rps), ceiling.cell(row.rps, row.first), spread_cell(row),
                      ms(row.latency("p50")),
                      ms(row.latency("p90")), ms(row.latency("p99")), ms(row.latency("p99.9")),
                      ms(row.latency("max")), errors_cell(row), num(row.non_2xx),
                      "–" if row.cpu_per_request_ms is None else f"{row.cpu_per_request_ms:.3f}",
                      num(row.peak_rss_mb, 1)])
    return header, lines


def open_table(rows: list[Row]) -> str:
    return table(*open_cells(rows))


def open_cells(rows: list[Row]) -> tuple[list[str], list[list[str]]]:
    header = ["stack", "op", "rate", "conn", "workers", "req/s done", "success", "mean ms", "p50 ms",
              "p95 ms", "p99 ms", "max ms", "errors", "non-2xx", "cpu ms/req"]
    lines = []
    for row in rows:
        if not row.ok_results:
            continue
        success = row.success_ratio
        lines.append([stack(row), row.first.operation, f"{row.first.rate:g}/s", row.connection,
                      num(row.first.workers), num(row.rps), "–" if success is None else f"{100 * success:.2f}%",
                      ms(row.latency("mean")), ms(row.latency("p50")), ms(row.latency("p95")),
                      ms(row.latency("p99")), ms(row.latency("max")), errors_cell(row), num(row.non_2xx),
                      "–" if row.cpu_per_request_ms is None else f"{row.cpu_per_request_ms:.3f}"])
    return header, lines


def failures_table(rows: list[Row]) -> str:
    return table(*failure_cells(rows))


def failure_cells(rows: list[Row]) -> tuple[list[str], list[list[str]]]:
    """Failed configurations, the operations of one stack that failed alike on one line."""
    grouped: dict[tuple, list[Row]] = {}
    for row in rows:
        if row.failed:
            key = (row.first.entrypoint, row.first.tool, row.load, row.connection, "; ".join(row.failures))
            grouped.setdefault(key, []).append(row)
    lines = []
    for (_, tool, load, conn, why), group in grouped.items():
        ops = ", ".join(dict.fromkeys(r.first.operation for r in group))
        failed = sum(r.failed for r in group)
        total = sum(r.n for r in group)
        lines.append([stack(group[0]), ops, tool, load, conn, f"{failed}/{total}",
                      why.replace("|", "\\|")[:400]])
    return ["stack", "ops", "tool", "load", "conn", "failed", "why"], lines


def context(results: list[Result]) -> list[str]:
    first = results[0]
    tools = sorted({f"{r.tool} {r.tool_version}".strip() for r in results})
    when = sorted(r.timestamp for r in results if r.timestamp)
    lines = [f"- machine: {machine.summary(first.machine)}" if first.machine else "- machine: unknown",
             f"- tools: {', '.join(tools)}",
             f"- pinning: {describe_pinning(first.pinning)}"]
    if when:
        lines.append(f"- runs: {len(results)} from {when[0]} to {when[-1]}")
    if first.target:
        lines.append(f"- target: {first.target} (started elsewhere: no server CPU or RSS)")
    if first.preset:
        lines.append(f"- preset: {first.preset}")
    if any(r.repeats > 1 for r in results):
        lines.append("- req/s and latencies are medians over the repeats; spread is ±half the min–max range")
        order = next((r.rounds_order for r in results if r.rounds_order), "")
        if order:
            lines.append(f"- repeats: {rounds.describe(order, max(r.repeats for r in results))}")
        lines.append(f"- significance of a difference: {significance.METHOD}")
    lines += noise.session_lines(results)
    dev = sorted({r.entrypoint for r in results if r.dev_only})
    if dev:
        lines.append(f"- **dev-only** stacks ({', '.join(dev)}) are measured to be compared, not deployed")
    caveats = {r.entrypoint: r.caveats for r in results if r.caveats}
    for name, texts in sorted(caveats.items()):
        lines.append(f"- caveat, `{name}`: {'; '.join(texts)}")
    return lines


def significance_table(rows: list[Row]) -> str:
    return table(*significance_cells(rows))


def significance_cells(rows: list[Row]) -> tuple[list[str], list[list[str]]]:
    """Each stack against the next slower one of the same configuration, with the ratio's interval."""
    header = ["op", "tool", "load", "conn", "faster", "slower", "req/s ratio", "95% interval", "verdict", "repeats"]
    lines = []
    for faster, slower, v in significance.ranked_pairs(rows):
        lines.append([faster.first.operation, faster.first.tool, faster.load, faster.connection, stack(faster),
                      stack(slower), v.ratio_text(), v.interval_text(),
                      v.verdict_text() if v.has_interval else significance.NEEDS, f"{v.n_b} / {v.n_a}"])
    return header, lines


def describe_pinning(p: dict) -> str:
    if not p or not p.get("enabled"):
        return f"none ({p.get('reason', '')})" if p else "none"
    server = ",".join(map(str, p.get("server_cpus", []))) or "elsewhere"
    tool = ",".join(map(str, p.get("tool_cpus", [])))
    return f"taskset, server on cpu {server}, load tool on cpu {tool}, backends {p.get('backends', 'unpinned')}"


def render(results: list[Result], title: str = "Benchmark results") -> str:
    if not results:
        return f"# {title}\n\nNo results.\n"
    all_rows = aggregate.rows(results)
    closed = [r for r in all_rows if r.first.loop == "closed"]
    opened = [r for r in all_rows if r.first.loop == "open"]
    parts = [f"# {title}", "", *context(results), ""]
    if any(r.ok_results for r in closed):
        parts += ["## Closed loop (N connections, each waits for its answer)", "", closed_table(closed), ""]
        if significance.any_repeats(closed) and significance.ranked_pairs(closed):
            parts += ["## Are the differences above the noise?", "",
                      "Each stack against the next slower one of the same configuration: the ratio of their "
                      "median req/s (faster / slower) and its bootstrap interval.", "",
                      significance_table(closed), ""]
    if any(r.ok_results for r in opened):
        parts += ["## Open loop (constant request rate)", "", open_table(opened), ""]
    if any(r.failed for r in all_rows):
        parts += ["## Failed runs", "", failures_table(all_rows), ""]
    parts += [NOTE, ""]
    return "\n".join(parts)


NOTE = ("Latencies are in ms from the tool's own histogram or percentiles (– where the tool gives none: "
        "ab and hey have no p99.9). errors are requests without an answer (connect, read, write, timeout, "
        "other); non-2xx are answers with another status. cpu ms/req is the server's whole process tree. "
        "of backend: req/s as a share of what the backend alone served to a direct client loop at the same "
        "concurrency just before (python -m backends.ceiling): near 100% the backend is the bound, far "
        "below it the stack.")
