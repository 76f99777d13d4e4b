"""The report model (bench/report/model.py) as text: the header's lines and each section's table cells.

results.md and report.html lay out the same sections, so both show the same rows. Cells are
Markdown inline text (`code`, **dev-only**), which report.html turns into HTML; results.md escapes
their pipes. Only formatting here.
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Callable

from bench import labels
from bench.planning import rounds
from bench.report import capacity_tables, significance
from bench.report.conditions import Session
from bench.report.model import Failure, Pair, Report, Row
from harness import machine, pinning

NOTE = ("Latencies are in ms from the tool's own histogram or percentiles (– where the tool gives none: "
        "ab and hey have no p99.9). errors are requests without an answer (connect, read, write, timeout, "
        "other); non-2xx are answers with another status. cpu ms/req is the server's whole process tree. "
        "of backend: req/s as a share of what the backend alone served to a direct client loop at the same "
        "concurrency just before (python -m backends.ceiling): near 100% the backend is the bound, far "
        "below it the stack. check: each cell checks itself (bench/selfcheck.py): the load tool's own CPU "
        "(tool cpu %, of its cores), the TCP connections actually open, and Little's law (rate x mean: the "
        "requests in flight, about the connections when each kept one in flight, x the streams of h2load -m); a **void** cell (the tool "
        "or the backend was the bound) says why and is left out of rankings, ratios and capacity. wrk's "
        "latencies carry wrk's own after-the-run correction for coordinated omission (synthetic samples at "
        "each connection's mean interval): an estimate, not a measurement (marked †, as every closed-loop "
        "percentile); capacity counts open-loop latency from each request's intended send time instead.")
CO_MARK = "†"
CO_NOTE = (f"{CO_MARK} coordinated omission: a closed-loop tool (wrk, ab, hey, locust, h2load: each stream) sends a connection's next "
           "request only after the last answer, so while the server stalls it stops sending and never times "
           "the requests it should have sent: these percentiles understate the tail (wrk's are its own "
           "after-the-run estimate) and are never used for capacity.")
NUMERIC = ("req", "p", "max", "mean", "cpu", "rss", "pss", "rate", "capacity", "offered", "sent", "achieved", "tool",
           "open", "common", "first", "ramp", "measured")  # right-aligned columns start so


@dataclass(frozen=True)
class Collapsed:
    """A table cell shown collapsed (<details>): its summary, and the text that opens under it."""

    summary: str
    body: tuple[str, ...]


@dataclass(frozen=True)
class Section:
    key: str  # "answer", "closed", "significance", "open", "failures": what report.html places charts by
    title: str
    intro: str
    header: list[str]
    lines: list[list]  # cells: Markdown inline text, or Collapsed
    verdict: tuple[str, ...] = ()  # sentences said before the table (the answer's)
    operation: str = ""  # the answer's operation


def caveats_cell(texts: tuple[str, ...]) -> Collapsed | str:
    """A stack's known limitations, by its rows and collapsed (they are not the results)."""
    if not texts:
        return "–"
    return Collapsed(f"{len(texts)} caveat" + ("s" if len(texts) > 1 else ""), tuple(texts))


def num(value: float | None, digits: int = 0) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


def ms(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value:.3f}" if value < 1 else f"{value:.2f}" if value < 100 else f"{value:.0f}"


def ratio(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}x"


def stack(name: str, dev_only: bool) -> str:
    return f"`{name}`" + (" **dev-only**" if dev_only else "")


def row_stack(row: Row) -> str:
    return stack(row.config.stack, row.dev_only)


def errors_cell(row: Row) -> str:
    kinds = {k: v for k, v in row.errors.items() if v}
    if not kinds:
        return "0"
    return f"{row.errors_total:,} (" + ", ".join(f"{k} {v:,}" for k, v in kinds.items()) + ")"


def spread_cell(row: Row) -> str:
    text = "–" if row.spread_pct is None else f"±{row.spread_pct / 2:.1f}%"
    if row.noisy:  # the noise probe moved during some of its runs
        text += f" (noisy {row.noisy}/{row.n - row.failed})"
    return text


def ceiling_cell(row: Row) -> str:
    """'34% of 2,610'; '–' for runs without a backend or ceiling."""
    if row.ceiling_share is None:
        return "–"
    return f"{100 * row.ceiling_share:.0f}% of {row.ceiling_rps:,.0f}"


def cpu_cell(row: Row) -> str:
    return "–" if row.cpu_per_request_ms is None else f"{row.cpu_per_request_ms:.3f}"


def check_cell(row: Row) -> str:
    return ("**void**: " + "; ".join(row.void_reasons)) if row.void else "ok"


def _latency(key: str) -> Callable[[Row], str]:
    def cell(row: Row) -> str:
        value = row.latency[key]
        return ms(value) + (CO_MARK if value is not None and row.coordinated_omission else "")
    return cell


# A table of rows is its columns: (title, the cell of a row). A new column of the model is one line here.
STACK_COLUMNS: tuple[tuple[str, Callable[[Row], str]], ...] = (
    ("stack", row_stack), ("op", lambda row: row.config.operation))
CLOSED_COLUMNS = (
    *STACK_COLUMNS, ("tool", lambda row: row.config.tool), ("load", lambda row: row.config.load),
    ("conn", lambda row: row.config.connection), ("workers", lambda row: num(row.config.workers)),
    ("req/s", lambda row: num(row.rps)), ("of backend", ceiling_cell), ("spread", spread_cell),
    *((f"{key} ms", _latency(key)) for key in ("p50", "p90", "p99", "p99.9", "max")),
    ("errors", errors_cell), ("non-2xx", lambda row: num(row.non_2xx)), ("cpu ms/req", cpu_cell),
    ("rss MB", lambda row: num(row.peak_rss_mb, 1)), ("tool cpu %", lambda row: num(row.tool_cpu_pct)),
    ("open conn", lambda row: num(row.connections_open)), ("rate x mean", lambda row: num(row.in_flight, 1)),
    ("check", check_cell), ("caveats", lambda row: caveats_cell(row.caveats)))
OPEN_COLUMNS = (
    *STACK_COLUMNS, ("rate", lambda row: row.config.load), ("conn", lambda row: row.config.connection),
    ("workers", lambda row: num(row.config.workers)), ("req/s done", lambda row: num(row.rps)),
    ("success", lambda row: "–" if row.success_ratio is None else f"{100 * row.success_ratio:.2f}%"),
    *((f"{key} ms", _latency(key)) for key in ("mean", "p50", "p95", "p99", "max")),
    ("errors", errors_cell), ("non-2xx", lambda row: num(row.non_2xx)), ("cpu ms/req", cpu_cell),
    ("tool cpu %", lambda row: num(row.tool_cpu_pct)), ("check", check_cell),
    ("caveats", lambda row: caveats_cell(row.caveats)))


def row_cells(columns, rows: tuple[Row, ...]) -> tuple[list[str], list[list[str]]]:
    return [title for title, _ in columns], [[cell(row) for _, cell in columns] for row in rows]


def significance_cells(pairs: tuple[Pair, ...]) -> tuple[list[str], list[list[str]]]:
    header = ["op", "tool", "load", "conn", "faster", "slower", "req/s ratio", "95% interval", "verdict", "repeats"]
    return header, [[p.faster.config.operation, p.faster.config.tool, p.faster.config.load,
                     p.faster.config.connection, row_stack(p.faster), row_stack(p.slower), p.verdict.ratio_text(),
                     p.verdict.interval_text(),
                     p.verdict.verdict_text() if p.verdict.has_interval else significance.NEEDS,
                     f"{p.verdict.n_b} / {p.verdict.n_a}"] for p in pairs]


def failure_cells(failures: tuple[Failure, ...]) -> tuple[list[str], list[list[str]]]:
    return ["stack", "ops", "tool", "load", "conn", "failed", "why"], [
        [stack(f.entrypoint, f.dev_only), ", ".join(f.operations), f.tool, f.load, f.connection,
         f"{f.failed}/{f.total}", f.why[:400]] for f in failures]


def opening(report: Report) -> list[Section]:
    """The answer, first: per operation, the stacks ranked by capacity within the SLO, said in a few
    sentences, then the table (its caveats collapsed by each stack's row)."""
    return [Section("answer", f"{a.key}: capacity within {a.slo}", "",
                    *capacity_tables.answer_cells(a, caveats_cell), verdict=tuple(capacity_tables.verdict(a)),
                    operation=a.key)
            for a in report.answers]


def sections(report: Report) -> list[Section]:
    """What follows the answer and the session's facts: the curves, the closed and open-loop rows."""
    out = []
    if report.protocol_axis:
        out.append(Section("protocol-axis", "The protocol as an axis: each stack on h1, h1+TLS, h2 and h2c",
                           capacity_tables.AXIS_NOTE, *capacity_tables.axis_cells(report)))
    if report.protocol_costs:
        out.append(Section("protocols", "Each stack against plaintext HTTP/1.1: what TLS and HTTP/2 cost it",
                           capacity_tables.PROTOCOLS_NOTE, *capacity_tables.protocol_cells(report)))
    if report.capacities:
        out.append(Section("curves", "Latency against throughput: every step of the ramps", capacity_tables.NOTE,
                           *capacity_tables.curve_cells(report)))
    if report.closed:
        out.append(Section("closed", "Closed loop (N connections, each waits for its answer)", CO_NOTE,
                           *row_cells(CLOSED_COLUMNS, report.closed)))
        if report.repeated and report.pairs:
            out.append(Section("significance", "Are the differences above the noise?",
                               "Each stack against the next slower one of the same configuration: the ratio of "
                               "their median req/s (faster / slower) and its bootstrap interval.",
                               *significance_cells(report.pairs)))
    if report.opened:
        out.append(Section("open", "Open loop (constant request rate)",
                           "The load tool sends requests on schedule whether or not earlier ones came back, so "
                           "latency includes queueing and success rate is the result; requests/s is what was "
                           "done of the offered rate.", *row_cells(OPEN_COLUMNS, report.opened)))
    if report.failures:
        out.append(Section("failures", "Failed runs", "", *failure_cells(report.failures)))
    return out


def describe_pinning(p: dict) -> str:
    """Where the server, the load tool and the local backends ran (harness/pinning.py says it)."""
    if not p:
        return "none"
    return pinning.Pinning(**{f.name: p[f.name] for f in fields(pinning.Pinning) if f.name in p}).describe()


def load_lines(report: Report) -> list[str]:
    """What a shared machine cost the run (capacity.ForeignLoad): the foreign load it saw, the void steps
    measured again. The cells it cost are said in their answers."""
    f = report.foreign
    if f is None:
        return []
    low, median, high = f.pct
    lines = [f"- foreign load (CPU of processes that are not the benchmark, its tool, the server or the local "
             f"backends, % of the machine): median {median:.0f}%, max {high:.0f}% over {f.measured} measurements"]
    if f.reruns:
        cleared = sum(1 for _, after in f.reruns if after is not None and not after.void_reasons)
        lines.append(f"- void steps measured again: {len(f.reruns)}, {cleared} of them no longer void on the second "
                     "look (the void ones stay in results.jsonl)")
    return lines


def noise_lines(s: Session) -> list[str]:
    n = s.noise
    if n is None:
        return []
    text = "- machine noise over the session (probe min / median / max): " + "; ".join(
        f"{what} {low:.1f} / {mid:.1f} / {high:.1f} ms (±{50 * (high - low) / mid:.0f}%)"
        for what, (low, mid, high) in n.probes.items())
    if n.steal:
        text += f"; CPU steal during runs {n.steal[0]:.1f}–{n.steal[1]:.1f}%"
    flagged = (f"- noisy runs (probe moved more than {n.threshold_pct:g}% from before to after the run): "
               f"{n.noisy} of {n.probed}" + (", marked \"noisy\" in the spread column" if n.noisy else ""))
    if n.reruns:
        flagged += f"; {n.reruns} noisy runs were measured again (--rerun-noisy) and are left out of the tables"
    return [text, flagged]


def context(s: Session, report: Report | None = None) -> list[str]:
    """The header's lines, each a Markdown list item."""
    lines = [f"- machine: {machine.summary(s.machine)}" if s.machine else "- machine: unknown",
             f"- tools: {', '.join(s.tools)}",
             f"- pinning: {describe_pinning(s.pinning)}"]
    if s.first_run:
        lines.append(f"- runs: {s.runs} from {s.first_run} to {s.last_run}")
    if s.target:
        lines.append(f"- target: {s.target} (started elsewhere: no server CPU or RSS)")
    if s.preset:
        lines.append(f"- preset: {s.preset}")
    if s.interpreters:
        lines.append("- interpreters (as each server's process said at its start): " + "; ".join(
            f"{labels.interpreter_name(key)} = {said}"
            for key, said in s.interpreters.items()))
    if s.repeats > 1:
        lines.append("- req/s and latencies are medians over the repeats; spread is ±half the min–max range")
        if s.rounds_order:
            lines.append(f"- repeats: {rounds.describe(s.rounds_order, s.repeats)}")
        lines.append(f"- significance of a difference: {significance.METHOD}")
    lines += noise_lines(s)
    lines += load_lines(report) if report is not None else []
    q = report.quiet if report is not None else None
    if q is not None and q.read:  # the one verdict on the machine, from the probe and the foreign load alike
        lines.append("- the machine: " + q.describe())
    lines += capacity_tables.context(report) if report is not None else []
    if s.dev_only:
        lines.append(f"- **dev-only** stacks ({', '.join(s.dev_only)}) are measured to be compared, not deployed")
    if s.unverified:
        lines.append(f"- **unverified** stacks ({', '.join(s.unverified)}): no record of a complete conformance and "
                     "reliability run yet (records/<entry>.json), so their caveats may be incomplete")
    if s.caveats:
        lines.append(f"- caveats: {len(s.caveats)} stacks have known limitations (the catalog's), each shown "
                     "collapsed by its stack's rows")
    return lines
