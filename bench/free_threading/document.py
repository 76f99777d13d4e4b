"""`bench.sh free-threading [RESULTS]`: docs/free-threading.md's measured section, written from a run of the
free-threading preset through its model (bench/free_threading/comparison.py). Only layout here: every number, ratio and
pick is the model's.

The section says what to pick only where the model says the run may be read (FreeThreading.conclusive: a quiet
machine, like compared with like). Otherwise it says why not, in place of the picks, and marks the table as
a shared (or uncontrolled) run's: shown so that the run can be checked, never read.
"""
from __future__ import annotations

import re
from pathlib import Path

from servers.core import interpreters
from servers.core.tables import markdown_table

from bench import labels
from bench.free_threading.comparison import FreeThreading, Match, Pick, Side, builds, ft_label
from bench.planning import rounds
from bench.report import tables
from harness import machine

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "free-threading.md"
START = "<!-- free-threading-run:start (written by ./bench.sh free-threading from a run: do not edit by hand) -->"
END = "<!-- free-threading-run:end -->"
TITLE = "## Measured: the controlled comparison"
DEFAULT_LABEL = f"{interpreters.DEFAULT_FT_VERSION}t"  # the lane whose run the section above (START, END) holds


def markers(label: str) -> tuple[str, str, str]:
    """The section's start, end and title for a run of that free-threaded build: 3.13t's are START, END and TITLE;
    each other version (FT_VERSION=3.14) has a section of its own on the page."""
    if label == DEFAULT_LABEL:
        return START, END, TITLE
    return (f"<!-- free-threading-run-{label}:start (written by FT_VERSION={label[:-1]} ./bench.sh free-threading "
            "from a run: do not edit by hand) -->", f"<!-- free-threading-run-{label}:end -->",
            f"## Measured on {label}: the controlled comparison")

def _rate(value: float | None) -> str:
    return "–" if value is None else f"{value:,.0f}"


def _mb(value: float | None) -> str:
    return "–" if value is None else f"{value:,.1f}"


def _x(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}x"


def _cores(cores: int | None) -> str:
    return "default cores" if cores is None else f"{cores} core{'s' if cores > 1 else ''}"


def _capacity(side: Side) -> str:
    s = side.standing
    return f"≥ {_rate(s.value)}" if s.void_reasons else _rate(s.value)


def _interval(side: Side) -> str:
    i = side.standing.interval
    return f"{i[0]:,.0f}–{i[1]:,.0f} ({side.standing.interval_kind})" if i else "–"


def _runs_on(side: Side) -> str:
    label = labels.interpreter_name(side.interpreter) if side.interpreter else "?"
    return f"{label}: {side.said}"


def _vs(m: Match, side: Side) -> str:
    if side is not m.free_threaded:
        return ""
    return (f"{m.verdict}: capacity {_x(m.capacity_ratio)}, cpu {_x(m.cpu_ratio)}, memory {_x(m.pss_ratio)}"
            if m.twin is not None else m.verdict)


def table(view: FreeThreading, operation: str) -> str:
    header = ["cores", "stack", "runs on", "workers", "capacity/s", "interval", "cpu µs/req", "PSS MB",
              "PSS MB/worker", "MB per 1,000 req/s", f"{view.label} / GIL twin"]
    rows = []
    for m in (m for m in view.matches if m.operation == operation):
        for side in (m.free_threaded, m.twin, m.default):
            if side is None:
                continue
            rows.append([_cores(m.cores) + f" ({m.kind})", f"`{side.label}`", _runs_on(side), side.layout,
                         _capacity(side),
                         _interval(side), _rate(side.standing.cpu_us), _mb(side.standing.pss_mb),
                         _mb(side.pss_per_worker_mb), _mb(side.mb_per_1000), _vs(m, side)])
    return markdown_table(header, rows, right=lambda title: title.startswith(("capacity", "cpu", "PSS", "MB")))


def _named(side: Side) -> str:
    """`flask_granian_ft` 1,550/s (1,500–1,600): a stack with its capacity."""
    return f"`{side.label}` {_capacity(side)}/s" + (f" ({_interval(side)})" if side.standing.interval else "")


def _ft_label(p: Pick) -> str:
    """The free-threaded build a pick weighed ('3.14t'): its stack's or the other side's."""
    side = next((s for s in (p.stack, p.against) if s is not None and s.build == "free-threaded"), None)
    return ft_label(side.interpreter if side is not None else interpreters.FREE_THREADED)


def pick_sentence(p: Pick) -> str:
    head = f"**{p.routes[0].upper()}{p.routes[1:]}, {_cores(p.cores)}**: "
    if p.decided_by == "not isolated":
        return (head + f"no pick, not isolated: the server shared its cores with the {' and the '.join(p.shared)} "
                f"({', '.join(p.operations)}), so threads of one process against processes is not measured here. "
                f"What would measure it: {p.isolates}.")
    if p.decided_by == "void":
        return (head + "no pick: " + ", ".join(_named(s) for s in p.void) + f" {'was' if len(p.void) == 1 else 'were'} "
                f"bounded by the load tool or the backend, not the stack ({'; '.join(p.void[0].standing.void_reasons)}), "
                f"at or above the best ranked, {_named(p.against)} ({', '.join(p.operations)}).")
    if p.stack is None:
        return head + "no stack of either build held a rate it was offered: nothing to pick."
    s = p.stack.standing
    text = head + f"`{s.entrypoint}` on {builds(_ft_label(p))[p.build]}"
    other = p.against
    if p.decided_by == "capacity":
        text += f", {_rate(s.value)}/s ({_interval(p.stack)})"
        text += (f", apart from the other build's best, {_named(other)}." if other is not None
                 else "; the other build held no rate it was offered.")
    else:
        text += (f": capacity does not decide, {_named(p.stack)} and {_named(other)} overlap" if other is not None
                 else ": capacity does not decide")
        if p.decided_by == "cpu":
            text += (f"; it costs {_rate(s.cpu_us)} µs of server CPU per request against "
                     f"{_rate(other.standing.cpu_us) if other else '–'}.")
        else:
            text += (f"; their CPU per request is within 10 % ({_rate(s.cpu_us)} and "
                     f"{_rate(other.standing.cpu_us) if other else '–'} µs) and it takes {_mb(s.pss_mb)} MB against "
                     f"{_mb(other.standing.pss_mb) if other else '–'}.")
    if p.default_ahead is not None:
        text += (f" The default interpreter ({p.default_ahead.said}) holds more still, {_named(p.default_ahead)}: "
                 f"there the interpreter's version, not the GIL, decides.")
    if p.disagree:
        text += " " + "; ".join(f"{op} alone picks `{label}`" for op, label in p.disagree) + "."
    return text


def run_lines(view: FreeThreading, results_path: str) -> list[str]:
    report = view.report
    s = report.session
    q = view.quiet
    lines = [f"- results: `{results_path}` ({s.runs} steps, {s.first_run} to {s.last_run}); machine: "
             f"{machine.summary(s.machine) if s.machine else 'unknown'}"]
    if s.interpreters:
        lines.append("- interpreters, as each server's process said at its start: " + "; ".join(
            f"{labels.interpreter_name(key)} = {said}"
            for key, said in s.interpreters.items()))
    for cores, pins in view.pinning.items():
        lines.append(f"- {_cores(cores)}: {tables.describe_pinning(pins)}")
    if s.repeats > 1:
        lines.append(f"- repeats: {rounds.describe(s.rounds_order, s.repeats)}")
    if report.capacities:
        lines.append(f"- capacity: the highest offered rate with {report.capacities[0].slo.describe()} (open loop, "
                     f"latency from each request's intended send time); interval: as each cell says (the min–max of its "
                     f"repeats, or one ramp's bracket). cpu µs/req "
                     f"and memory at the common rate of each route (half its slowest capacity): "
                     + ", ".join(f"{op} {_rate(rate)}/s" for op, rate in report.common_rates.items()))
    foreign = report.foreign
    if foreign is not None:
        low, median, high = foreign.pct
        lines.append(f"- foreign load (CPU of processes that are not the benchmark, its tool, the server or the "
                     f"backends, % of the machine): median {median:.0f}%, max {high:.0f}% over {foreign.measured} steps")
    lines.append("- the machine: " + q.describe())
    return lines


def versions_table(view: FreeThreading) -> str:
    rows = [[package, twin, ft, "same" if twin == ft else "**differs**"] for package, twin, ft in view.controlled.versions]
    return markdown_table(["package", f"GIL twin ({view.label[:-1]})", view.label, ""], rows)


def _env(label: str) -> str:
    """The set-up's FT_VERSION for a run of another version's lane ('' for the default lane's)."""
    return "" if label == DEFAULT_LABEL else f"FT_VERSION={label[:-1]} "


def section(view: FreeThreading, results_path: str) -> str:
    """The page's measured section (between START and END)."""
    start, end, title = markers(view.label)
    parts = [start, title, "",
             f"Written by `./bench.sh free-threading` from a run of `{_env(view.label)}./bench.sh --preset "
             "free-threading` (the section \"how it is run\" says what each figure is).", "",
             "### The run", "", *run_lines(view, results_path), "", versions_table(view), "",
             "### What to pick", ""]
    if view.conclusive:
        parts += [f"- {pick_sentence(p)}" for p in view.picks]
    else:
        parts += ["**No conclusion is drawn from this run.** Why: " + "; ".join(view.refusals) + ".",
                  "", "The tables below are shown to check that the run went through, not to be read: run the "
                      "preset on a quiet machine (nothing else running), then `./bench.sh free-threading` again."]
    parts.append("")
    for op in dict.fromkeys(m.operation for m in view.matches):
        heading = f"### {op}" + ("" if view.conclusive else " (a shared or uncontrolled run: not to be read)")
        parts += [heading, "", table(view, op), ""]
    parts.append(end)
    return "\n".join(parts)


def write(view: FreeThreading, results_path: str, page: Path = PAGE) -> Path:
    """Replace the page's measured section (or add it at the end) with this run's."""
    text = page.read_text(encoding="utf-8") if page.exists() else ""
    new = section(view, results_path)
    start, end, _ = markers(view.label)
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.DOTALL)
    text = pattern.sub(lambda _: new, text) if pattern.search(text) else text.rstrip("\n") + "\n\n" + new
    page.write_text(text.rstrip("\n") + "\n", encoding="utf-8")
    return page

