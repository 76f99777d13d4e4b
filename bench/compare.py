"""`bench compare A.jsonl B.jsonl`: two result files side by side in Markdown, with B/A ratios.

Rows are matched on the configuration (bench/model.py's Config) without the session's labels
(target, preset): what tells the two files apart is what is compared. A configuration found on
one side only is listed too, and so is every row of a side, so nothing silently drops out.
`bench compare FILE --stacks A,B` compares two stacks of one file the same way (matched on the
configuration without the stack). The req/s ratio comes with its bootstrap interval and verdict
(bench/significance.py). The matching is the model's (model.compare); this module lays it out.
"""
from __future__ import annotations

from servers.core.tables import markdown_table

from bench import model, significance
from bench.model import Config, Match, Row
from bench.report_tables import describe_pinning, ms, num, ratio, stack
from bench.results_md import table
from bench.schema import Result


def _rps(row: Row | None) -> str:
    return num(row.rps if row is not None and row.ok else None)


def _p99(row: Row | None) -> str:
    return ms(row.latency["p99"] if row is not None and row.ok else None)


def _errors(row: Row | None) -> str:
    if row is None:
        return "–"
    return f"{row.errors_total + row.non_2xx:,}" if row.ok else "failed"


def _stack(m: Match) -> str:
    text = stack(m.row.config.entrypoint, m.row.dev_only)
    if m.a is not None and m.b is not None and m.b.config.entrypoint != m.a.config.entrypoint:
        text += " → " + stack(m.b.config.entrypoint, m.b.dev_only)
    return text


def render_stacks(results: list[Result], stack_a: str, stack_b: str, name: str = "") -> str:
    """Two stacks of one results file, A = stack_a, B = stack_b."""
    a = [r for r in results if r.entrypoint == stack_a]
    b = [r for r in results if r.entrypoint == stack_b]
    for name_of, rs in ((stack_a, a), (stack_b, b)):
        if not rs:
            found = ", ".join(dict.fromkeys(r.entrypoint for r in results)) or "none"
            raise ValueError(f"no results of stack {name_of!r} in {name or 'the file'} (stacks: {found})")
    return render(a, b, name_a=stack_a, name_b=stack_b, key=Config.without_stack)


def render(a: list[Result], b: list[Result], name_a: str = "A", name_b: str = "B",
           key=Config.without_session) -> str:
    c = model.compare(a, b, key)
    header = ["stack", "op", "tool", "load", "conn", "workers", f"req/s {name_a}", f"req/s {name_b}", "req/s B/A",
              "95% interval", "significant?",
              f"p99 ms {name_a}", f"p99 ms {name_b}", "p99 B/A", f"errors {name_a}", f"errors {name_b}"]
    lines = [[_stack(m), m.row.config.operation, m.row.config.tool, m.row.config.load, m.row.config.connection,
              num(m.row.config.workers), _rps(m.a), _rps(m.b), ratio(m.rps_ratio), m.verdict.interval_text(),
              m.verdict.verdict_text(), _p99(m.a), _p99(m.b), ratio(m.p99_ratio), _errors(m.a), _errors(m.b)]
             for m in c.matches]
    both = len(c.matches) - c.only_a - c.only_b
    parts = [f"# Compare: A = {name_a}, B = {name_b}", "",
             f"{len(c.matches)} configurations: {both} in both, {c.only_a} only in A, "
             f"{c.only_b} only in B. A ratio above 1 means B is higher (faster for req/s, slower for p99). "
             f"req/s B/A: {significance.METHOD}.", "",
             table(header, lines), ""]
    machines = []
    for name, s in zip((name_a, name_b), c.sessions):
        if s is not None:
            machines.append([name, f"{s.machine.get('cpu_model', '?')}, {s.machine.get('usable_cores', '?')} cores",
                             describe_pinning(s.pinning), ", ".join(s.tools)])
    parts.append(markdown_table(["", "machine", "pinning", "tools"], machines))
    parts.append("")
    return "\n".join(parts)
