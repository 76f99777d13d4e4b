"""`bench compare A.jsonl B.jsonl`: two result files side by side in Markdown, with B/A ratios.

Rows are matched on the configuration (stack, route, tool, loop, load, keep-alive or close);
a configuration found on one side only is listed too, so nothing silently drops out.
`bench compare FILE --stacks A,B` compares two stacks of one file the same way (matched on all but
the stack). The req/s ratio comes with its bootstrap interval and verdict (bench/significance.py).
"""
from __future__ import annotations

from bench import aggregate, significance
from bench.aggregate import Row
from bench.results_md import describe_pinning, ms, num, table
from bench.schema import Result
from servers.core.tables import markdown_table


def match_key(row: Row) -> tuple:
    r = row.first
    return (r.entrypoint, r.operation, r.tool, r.loop, r.connections, r.rate, r.keepalive)


def match_config(row: Row) -> tuple:
    """The configuration without the stack: two stacks of one file are matched on it."""
    return match_key(row)[1:]


def ratio(a: float | None, b: float | None) -> str:
    if a is None or b is None or a == 0:
        return "–"
    return f"{b / a:.2f}x"


def _rps(row: Row | None) -> float | None:
    return None if row is None or not row.ok_results else row.rps


def _p99(row: Row | None) -> float | None:
    return None if row is None or not row.ok_results else row.latency("p99")


def _errors(row: Row | None) -> str:
    if row is None:
        return "–"
    if not row.ok_results:
        return "failed"
    return f"{row.errors_total + row.non_2xx:,}"


def verdict(ra: Row | None, rb: Row | None) -> significance.Verdict:
    if ra is None or rb is None:
        return significance.Verdict(None)
    return significance.ratio_of_medians(ra.values(), rb.values())


def _stack(ra: Row | None, rb: Row | None) -> str:
    row = ra or rb
    text = f"`{row.first.entrypoint}`" + (" **dev-only**" if row.first.dev_only else "")
    if ra is not None and rb is not None and rb.first.entrypoint != ra.first.entrypoint:
        text += f" → `{rb.first.entrypoint}`" + (" **dev-only**" if rb.first.dev_only else "")
    return text


def render_stacks(results: list[Result], stack_a: str, stack_b: str, name: str = "") -> str:
    """Two stacks of one results file, A = stack_a, B = stack_b."""
    a = [r for r in results if r.entrypoint == stack_a]
    b = [r for r in results if r.entrypoint == stack_b]
    for stack, rs in ((stack_a, a), (stack_b, b)):
        if not rs:
            found = ", ".join(dict.fromkeys(r.entrypoint for r in results)) or "none"
            raise ValueError(f"no results of stack {stack!r} in {name or 'the file'} (stacks: {found})")
    return render(a, b, name_a=stack_a, name_b=stack_b, match=match_config)


def render(a: list[Result], b: list[Result], name_a: str = "A", name_b: str = "B", match=match_key) -> str:
    rows_a = {match(r): r for r in aggregate.rows(a)}
    rows_b = {match(r): r for r in aggregate.rows(b)}
    keys = list(rows_a) + [k for k in rows_b if k not in rows_a]
    header = ["stack", "op", "tool", "load", "conn", f"req/s {name_a}", f"req/s {name_b}", "req/s B/A",
              "95% interval", "significant?",
              f"p99 ms {name_a}", f"p99 ms {name_b}", "p99 B/A", f"errors {name_a}", f"errors {name_b}"]
    lines = []
    for key in keys:
        ra, rb = rows_a.get(key), rows_b.get(key)
        row = ra or rb
        v = verdict(ra, rb)
        lines.append([_stack(ra, rb), row.first.operation, row.first.tool, row.load, row.connection,
                      num(_rps(ra)), num(_rps(rb)), ratio(_rps(ra), _rps(rb)), v.interval_text(), v.verdict_text(),
                      ms(_p99(ra)), ms(_p99(rb)), ratio(_p99(ra), _p99(rb)), _errors(ra), _errors(rb)])
    only_a = sum(1 for k in rows_a if k not in rows_b)
    only_b = sum(1 for k in rows_b if k not in rows_a)
    parts = [f"# Compare: A = {name_a}, B = {name_b}", "",
             f"{len(keys)} configurations: {len(keys) - only_a - only_b} in both, {only_a} only in A, "
             f"{only_b} only in B. A ratio above 1 means B is higher (faster for req/s, slower for p99). "
             f"req/s B/A: {significance.METHOD}.", "",
             table(header, lines), ""]
    machines = []
    for name, rs in ((name_a, a), (name_b, b)):
        if rs:
            m = rs[0].machine
            tools = ", ".join(sorted({f"{r.tool} {r.tool_version}".strip() for r in rs}))
            machines.append([name, f"{m.get('cpu_model', '?')}, {m.get('usable_cores', '?')} cores",
                             describe_pinning(rs[0].pinning), tools])
    parts.append(markdown_table(["", "machine", "pinning", "tools"], machines))
    parts.append("")
    return "\n".join(parts)
