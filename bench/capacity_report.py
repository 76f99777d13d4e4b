"""The capacity sections of the report (bench/model.py's Report.capacities) as table cells: each stack's
capacity within the SLO with the cost per request at the common rate, and every step of the ramps
(the whole curve). bench/report_tables.py places them first; only formatting here.
"""
from __future__ import annotations

from bench import capacity

NOTE = ("Capacity: the highest offered rate at which the step held the SLO (latency counted from each "
        "request's intended send time, so a stall cannot hide behind a waiting load tool), from an "
        "open-loop ramp: a geometric ladder, a failing rung measured again (not with --quick), then "
        "bisection. interval: "
        "min–max over the repeats, or with one ramp the bracket between the rate that held and the first "
        "that did not. The common rate is "
        f"{capacity.COMMON_FRACTION:.0%} of the slowest capacity of the operation, a rate every stack holds; "
        "cpu µs/req (the server's whole process tree) and RSS are each stack's in one step at that rate, run "
        "after every ramp (measured at: the common rate; where that step did not run, the stack's held ramp "
        "step nearest to it), the cost of a request. A void capacity is a lower bound: above it the load tool (its core busy, or past its own "
        "limit against a trivial server) or the backend was the bound, not the stack; it is not ranked.")


def _rate(value: float | None) -> str:
    return "–" if value is None else f"{value:,.0f}"


def _stack(c) -> str:
    return f"`{c.entrypoint}`" + (" **dev-only**" if getattr(c.first, "dev_only", False) else "")


def capacity_cells(report) -> tuple[list[str], list[list[str]]]:
    header = ["stack", "op", "capacity/s", "interval", "ramps", "first failed", "common rate", "measured at",
              "cpu µs/req", "rss MB", "void"]
    lines = []
    for op, group in capacity.by_operation(list(report.capacities)).items():
        common = report.common_rates.get(op)
        ranked = sorted(group, key=lambda c: (c.void, -(c.capacity or 0)))
        for c in ranked:
            near, cpu, rss = c.cost_at(common) if common else (None, None, None)
            interval = f"{c.interval[0]:,.0f}–{c.interval[1]:,.0f}" if c.interval else "–"
            first_failed = [r.first_failed for r in c.ramps if r.first_failed]
            cap = _rate(c.capacity) if not c.void else f"≥ {_rate(c.capacity)}"
            lines.append([_stack(c), op, cap, interval, str(len(c.ramps)), _rate(min(first_failed, default=None)),
                          _rate(common), _rate(near), "–" if cpu is None else f"{cpu:,.0f}",
                          "–" if rss is None else f"{rss:,.1f}",
                          "; ".join(c.void_reasons) or "–"])
    return header, lines


def curve_cells(report) -> tuple[list[str], list[list[str]]]:
    header = ["stack", "op", "ramp", "step", "offered/s", "sent/s", "achieved/s", "p50 ms", "p90 ms", "p99 ms",
              "p99.9 ms", "errors", "non-2xx", "cpu µs/req", "rss MB", "tool cpu %", "verdict"]
    lines = []
    for c in report.capacities:
        for r in c.curve():
            lat = r.latency_ms
            verdict = ("void: " + "; ".join(r.void_reasons)) if r.void_reasons else \
                "held" if r.slo_held else "missed: " + "; ".join(r.slo_misses)
            lines.append([_stack(c), c.operation, str(r.repeat + 1), r.phase, _rate(r.rate), _rate(r.sent_rate),
                          _rate(r.requests_per_s), *(_ms(lat.get(k)) for k in ("p50", "p90", "p99", "p99.9")),
                          f"{r.errors_total:,}", f"{r.non_2xx:,}",
                          "–" if r.cpu_per_request_ms is None else f"{1000 * r.cpu_per_request_ms:,.0f}",
                          "–" if r.server_peak_rss_mb is None else f"{r.server_peak_rss_mb:,.1f}",
                          "–" if r.tool_cpu_pct is None else f"{r.tool_cpu_pct:.0f}", verdict])
    return header, lines


def _ms(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value:.3f}" if value < 1 else f"{value:.2f}" if value < 100 else f"{value:,.0f}"


def context(report) -> list[str]:
    """Lines for the report's header: the SLO, the tool's own limit."""
    if not report.capacities:
        return []
    lines = [f"- capacity SLO: {report.capacities[0].slo.describe()}; open loop with vegeta (a fixed pool of "
             "workers), latency from each request's intended send time"]
    limit = report.tool_limit
    lines.append(f"- load tool's own limit: {limit:,.0f}/s held against Go net/http hello; cells above it are void"
                 if limit else "- load tool's own limit: not measured")
    return lines
