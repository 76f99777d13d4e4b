"""The capacity charts of report.html, drawn with plotly: interactive (values on hover, stacks toggled in
the legend) and self-contained (plotly.js is embedded once per page, so the file opens offline).

capacity_bars: per operation (the model's Answer), each stack's capacity within the SLO with its
interval; a void capacity (a lower bound: the tool or the backend was the bound) is grey and says why.
curves: per operation, p50 and p99 (from the intended send time) against the achieved rate, one
line per stack, log latency axis, the SLO's bounds drawn; void steps are grey crosses.
"""
from __future__ import annotations

import math

import plotly.graph_objects as go

from bench.capacity.search import Slo
from bench.capacity.tally import Capacity
from bench.report.answers import Answer

PALETTE = ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b2", "#937860", "#da8bc3", "#8c8c8c", "#ccb974",
           "#64b5cd", "#1b9e77", "#d95f02")
VOID_COLOR = "#b0b0b0"


def _name(c: Capacity) -> str:
    return c.label + (" [dev-only]" if getattr(c.first, "dev_only", False) else "")


def capacity_bars(answer: Answer) -> go.Figure | None:
    """The answer's capacities as bars, slowest at the bottom, the interval as error bars."""
    group = [s for s in reversed(answer.standings) if s.value]
    if not group:
        return None
    lows = [s.value - (s.interval[0] if s.interval else s.value) for s in group]
    highs = [(s.interval[1] if s.interval else s.value) - s.value for s in group]
    hover = []
    for s in group:
        text = f"{_name(s.capacity)}<br>capacity {s.value:,.0f}/s"
        if s.interval:
            text += f"<br>interval {s.interval[0]:,.0f}–{s.interval[1]:,.0f}/s"
        text += f"<br>ramps {len(s.capacity.ramps)}"
        if s.void_reasons:
            text += "<br>VOID (a lower bound): " + "; ".join(s.void_reasons)
        hover.append(text)
    fig = go.Figure(go.Bar(
        x=[s.value for s in group], y=[_name(s.capacity) + (" (void)" if s.void_reasons else "") for s in group],
        orientation="h", marker_color=[VOID_COLOR if s.void_reasons else PALETTE[0] for s in group],
        marker_pattern_shape=["/" if s.void_reasons else "" for s in group],
        error_x={"type": "data", "symmetric": False, "array": highs, "arrayminus": lows},
        hovertext=hover, hoverinfo="text"))
    fig.update_layout(title=f"{answer.key}: capacity within {answer.slo}", xaxis_title="requests/s held",
                      height=140 + 32 * len(group), margin={"l": 10, "r": 10, "t": 50, "b": 40},
                      template="plotly_white")
    return fig


def curves(caps: list[Capacity], answer: Answer) -> go.Figure | None:
    group = [c for c in caps if c.operation == answer.operation and c.protocol == answer.protocol and c.curve()
             and (answer.cores is None or c.server_cores == answer.cores)]
    if not group:
        return None
    fig = go.Figure()
    for i, c in enumerate(sorted(group, key=lambda c: c.label)):
        color = PALETTE[i % len(PALETTE)]
        steps = [r for r in c.curve() if not r.void_reasons]
        for key, dash in (("p99", "solid"), ("p50", "dot")):
            # by throughput, then latency; two steps equal in both (a step measured again) keep their order
            points = sorted(((r.requests_per_s, r.latency_ms.get(key), r) for r in steps
                             if r.latency_ms.get(key) is not None), key=lambda p: p[:2])
            fig.add_trace(go.Scatter(
                x=[p[0] for p in points], y=[p[1] for p in points], mode="lines+markers",
                name=f"{_name(c)} {key}", legendgroup=c.label, line={"color": color, "dash": dash},
                hovertext=[f"{_name(c)} {key} {p[1]:,.2f} ms<br>offered {p[2].rate:,.0f}/s, achieved "
                           f"{p[0]:,.0f}/s<br>{'SLO held' if p[2].slo_held else 'SLO missed'}" for p in points],
                hoverinfo="text"))
        void = [r for r in c.curve() if r.void_reasons and r.latency_ms.get("p99") is not None]
        if void:
            fig.add_trace(go.Scatter(
                x=[r.requests_per_s for r in void], y=[r.latency_ms["p99"] for r in void], mode="markers",
                name=f"{_name(c)} void", legendgroup=c.label,
                marker={"color": VOID_COLOR, "symbol": "x", "size": 10},
                hovertext=[f"{_name(c)} VOID at {r.rate:,.0f}/s: {'; '.join(r.void_reasons)}" for r in void],
                hoverinfo="text"))
    slo: Slo = group[0].slo
    for key, bound in slo.bounds:
        # the label is an annotation of its own: on a log axis an annotation's y is log10 of the value
        # (add_hline's annotation_text put 25 ms at 10^25 and stretched the axis from 1 to 10^24 ms)
        fig.add_hline(y=bound, line_dash="dash", line_color="#c44e52")
        fig.add_annotation(y=math.log10(bound), x=0, xref="paper", yref="y", text=f"SLO {key} {bound:g} ms",
                           showarrow=False, xanchor="left", yanchor="bottom", font={"color": "#c44e52"})
    drawn = [y for trace in fig.data for y in trace.y if y] + [bound for _, bound in slo.bounds]
    fig.update_layout(title=f"{answer.key}: latency against throughput (from each request's intended send)",
                      xaxis_title="achieved requests/s", yaxis_title="latency, ms (log)", yaxis_type="log",
                      yaxis_range=[math.log10(min(drawn)) - 0.15, math.log10(max(drawn)) + 0.15],
                      height=460, margin={"l": 10, "r": 10, "t": 50, "b": 40}, template="plotly_white")
    return fig


def placed(answers: tuple[Answer, ...], caps: list[Capacity]) -> dict[str, list[str]]:
    """The charts' HTML by where report.html places them: "answer:OP" an operation's capacity bars (by
    its answer), "curves" every latency curve; plotly.js is embedded with the first one only."""
    order = [(f"answer:{a.key}", capacity_bars(a)) for a in answers] + \
        [("curves", curves(caps, a)) for a in answers]
    out: dict[str, list[str]] = {}
    for n, (key, fig) in enumerate(order):
        if fig is not None:  # ids of their own: the same model renders the same page
            div = fig.to_html(full_html=False, include_plotlyjs=not out, config={"displaylogo": False},
                              div_id=f"chart-{n}")
            out.setdefault(key, []).append(div)
    return out
