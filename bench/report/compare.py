"""`bench compare A.jsonl B.jsonl`: two result files side by side in Markdown, with B/A ratios.

Rows are matched on the configuration (bench/report/model.py's Config) without the session's labels
(target, preset): what tells the two files apart is what is compared. A configuration found on
one side only is listed too, and so is every row of a side, so nothing silently drops out.
`bench compare FILE --stacks A,B` compares two stacks of one file the same way (matched on the
configuration without the stack). The req/s ratio comes with its bootstrap interval and verdict
(bench/report/significance.py). Capacities come first, side by side (capacity, interval, ratio, cost per
request at each side's common rate); a ramp's steps are not rows. The matching is the model's
(matches.compare); this module lays it out.
"""
from __future__ import annotations

from servers.core.tables import markdown_table

from bench.report import matches, significance
from bench.report.answers import Standing
from bench.report.matches import CapacityMatch, Match
from bench.report.model import Config, Row
from bench.report.results_md import table
from bench.report.tables import CO_MARK, CO_NOTE, describe_pinning, ms, num, ratio, stack
from bench.schema import Result


def _rps(row: Row | None) -> str:
    return num(row.rps if row is not None and row.ok else None)


def _p99(row: Row | None) -> str:
    value = row.latency["p99"] if row is not None and row.ok else None
    return ms(value) + (CO_MARK if value is not None and row.coordinated_omission else "")


def _errors(row: Row | None) -> str:
    if row is None:
        return "–"
    return f"{row.errors_total + row.non_2xx:,}" if row.ok else "failed"


def _stack(m: Match) -> str:
    text = stack(m.row.config.stack, m.row.dev_only)
    if m.a is not None and m.b is not None and m.b.config.stack != m.a.config.stack:
        text += " → " + stack(m.b.config.stack, m.b.dev_only)
    return text


def _capacity(s: Standing | None) -> str:
    if s is None:
        return "–"
    return ("≥ " if s.void_reasons else "") + num(s.value)


def _interval(s: Standing | None) -> str:
    return f"{s.interval[0]:,.0f}–{s.interval[1]:,.0f}" if s is not None and s.interval else "–"


def _cpu(s: Standing | None, common: float | None) -> str:
    if s is None or s.cpu_us is None:
        return "–"
    return f"{s.cpu_us:,.0f} at {num(s.cost_rate if s.cost_rate else common)}/s"


def _apart(m: CapacityMatch) -> str:
    if m.apart is None:
        void = [s for s in (m.a, m.b) if s is not None and s.void_reasons]
        return "void: " + "; ".join(void[0].void_reasons) if void else "–"
    return "apart" if m.apart else "overlap: a tie"


def capacity_lines(matches: tuple[CapacityMatch, ...], name_a: str, name_b: str) -> tuple[list[str], list[list[str]]]:
    header = ["stack", "op", f"capacity/s {name_a}", "interval", f"capacity/s {name_b}", "interval", "B/A",
              "intervals", f"cpu µs/req {name_a}", f"cpu µs/req {name_b}", "cost B/A"]
    lines = []
    for m in matches:
        s = m.standing
        text = stack(s.capacity.label, s.dev_only)
        if m.a is not None and m.b is not None and m.b.capacity.label != m.a.capacity.label:
            text += " → " + stack(m.b.capacity.label, m.b.dev_only)
        lines.append([text, s.capacity.operation, _capacity(m.a), _interval(m.a), _capacity(m.b), _interval(m.b),
                      ratio(m.ratio), _apart(m), _cpu(m.a, m.common_rates[0]), _cpu(m.b, m.common_rates[1]),
                      ratio(m.cost_ratio)])
    return header, lines


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
    c = matches.compare(a, b, key)
    header = ["stack", "op", "tool", "load", "conn", "workers", f"req/s {name_a}", f"req/s {name_b}", "req/s B/A",
              "95% interval", "significant?",
              f"p99 ms {name_a}", f"p99 ms {name_b}", "p99 B/A", f"errors {name_a}", f"errors {name_b}"]
    lines = [[_stack(m), m.row.config.operation, m.row.config.tool, m.row.config.load, m.row.config.connection,
              num(m.row.config.workers), _rps(m.a), _rps(m.b), ratio(m.rps_ratio), m.verdict.interval_text(),
              m.verdict.verdict_text(), _p99(m.a), _p99(m.b), ratio(m.p99_ratio), _errors(m.a), _errors(m.b)]
             for m in c.matches]
    both = len(c.matches) - c.only_a - c.only_b
    parts = [f"# Compare: A = {name_a}, B = {name_b}", ""]
    if c.capacities:
        in_both = sum(1 for m in c.capacities if m.a is not None and m.b is not None)
        parts += ["## Capacity within the SLO", "",
                  f"{len(c.capacities)} capacities, {in_both} in both. B/A above 1: B held more. intervals: apart "
                  "when they do not overlap, else a tie; a void capacity (≥) is a lower bound, no ratio. cpu "
                  "µs/req: the server's CPU per request at each side's common rate (at the rate shown).", "",
                  table(*capacity_lines(c.capacities, name_a, name_b)), ""]
    if c.matches or not c.capacities:
        parts += (["## Fixed load", ""] if c.capacities else []) + [
                  f"{len(c.matches)} configurations: {both} in both, {c.only_a} only in A, "
                  f"{c.only_b} only in B. A ratio above 1 means B is higher (faster for req/s, slower for p99). "
                  f"req/s B/A: {significance.METHOD}."
                  + (f" {CO_NOTE}" if any(m.row.coordinated_omission for m in c.matches) else ""), "",
                  table(header, lines), ""]
    machines = []
    for name, s in zip((name_a, name_b), c.sessions):
        if s is not None:
            machines.append([name, f"{s.machine.get('cpu_model', '?')}, {s.machine.get('usable_cores', '?')} cores",
                             describe_pinning(s.pinning), ", ".join(s.tools)])
    parts.append(markdown_table(["", "machine", "pinning", "tools"], machines))
    parts.append("")
    return "\n".join(parts)
