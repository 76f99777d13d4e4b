"""The report's charts, drawn with matplotlib (Agg) into PNG bytes: no window, no files, no fonts to fetch.

Each function takes rows of the report model (bench/report/model.py) and returns PNG bytes, or None when
there is nothing to draw; of_section says which are drawn above which table of report.html.
dev-only stacks are hatched and labelled, failed configurations are absent (they are in the tables).
"""
from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from bench.report.model import Report, RoutePair, Row  # noqa: E402
from bench.report.tables import CO_MARK  # noqa: E402
from servers.core import catalog  # noqa: E402

PERCENTILE_KEYS = ("p50", "p90", "p99", "p99.9")
OPEN_KEYS = ("mean", "p50", "p95", "p99", "max")
COLORS = {"p50": "#4c72b0", "p90": "#55a868", "p95": "#8172b2", "p99": "#dd8452", "p99.9": "#c44e52",
          "max": "#937860", "mean": "#64b5cd"}
OP_ORDER = catalog.ALL_OPS  # the catalog's order of the contract's operations


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


def label(row: Row, with_op: bool = False, with_load: bool = True) -> str:
    r = row.config
    text = r.stack
    if with_op:
        text += f" {r.operation}"
    if with_load:
        text += f" {r.load}" + ("" if r.keepalive else " close")
    if row.dev_only:
        text += " [dev-only]"
    if row.void:  # the tool or the backend was the bound (bench/selfcheck.py): the table says why
        text += " [VOID]"
    return text


def latency_label(row: Row, with_op: bool, with_load: bool) -> str:
    """A latency bar's label: a closed-loop row's percentiles carry the coordinated-omission mark."""
    return label(row, with_op, with_load) + (f" {CO_MARK}" if row.coordinated_omission else "")


def _ops(rows: list[Row]) -> list[str]:
    present = {r.config.operation for r in rows}
    return [op for op in OP_ORDER if op in present] + sorted(present - set(OP_ORDER))


def _varying_load(rows: list[Row]) -> bool:
    return len({(r.config.load, r.config.keepalive, r.config.tool) for r in rows}) > 1


def requests_per_second(rows: list[Row]) -> bytes | None:
    """Requests/s per stack, one panel per operation, with the min-max spread of the repeats."""
    rows = [r for r in rows if r.ok and r.rps is not None]
    if not rows:
        return None
    ops = _ops(rows)
    with_load = _varying_load(rows)
    heights = [max(1, len([r for r in rows if r.config.operation == op])) for op in ops]
    fig, axes = plt.subplots(len(ops), 1, figsize=(9, 0.9 + 0.32 * sum(heights) + 0.6 * len(ops)),
                             gridspec_kw={"height_ratios": heights}, squeeze=False,
                             layout="constrained")
    for ax, op in zip(axes[:, 0], ops):
        panel = sorted([r for r in rows if r.config.operation == op], key=lambda r: r.rps)
        ys = range(len(panel))
        values = [r.rps for r in panel]
        spreads = [r.rps_range for r in panel]
        err = [[v - (s[0] if s else v) for v, s in zip(values, spreads)],
               [(s[1] if s else v) - v for v, s in zip(values, spreads)]]
        bars = ax.barh(ys, values, xerr=err if any(any(e) for e in err) else None, color="#4c72b0",
                       ecolor="#333333", capsize=2)
        for bar, r in zip(bars, panel):
            if r.dev_only:
                bar.set_hatch("//")
                bar.set_facecolor("#a6bddb")
            if r.void_reasons:  # the tool or the backend was the bound: shown, grey, never ranked
                bar.set_facecolor("#c8c8c8")
                bar.set_hatch("xx")
                ax.annotate(" void", (bar.get_width(), bar.get_y() + 0.1), fontsize=7, color="#555555",
                            va="center")
            if r.errors_total or r.non_2xx:
                ax.annotate(f" errors {r.errors_total + r.non_2xx:,}", (bar.get_width(), bar.get_y() + 0.4),
                            fontsize=7, color="#c44e52", va="center")
        ax.set_yticks(list(ys), [label(r, with_load=with_load) for r in panel], fontsize=8)
        ax.set_title(op, fontsize=9, loc="left")
        ax.set_xlabel("requests/s (closed loop)", fontsize=8)
        ax.grid(axis="x", alpha=0.3)
    fig.suptitle("Requests per second (hatched: dev-only; grey, crossed: void, see the table)", fontsize=10)
    return _png(fig)


def _grouped_latency(rows: list[Row], keys: tuple[str, ...], title: str, with_op: bool) -> bytes | None:
    rows = [r for r in rows if r.ok and any(r.latency[k] for k in keys)]
    if not rows:
        return None
    rows = sorted(rows, key=lambda r: (OP_ORDER.index(r.config.operation) if r.config.operation in OP_ORDER else 99,
                                       r.latency["p50"] or 0))
    fig, ax = plt.subplots(figsize=(9, 1.2 + 0.42 * len(rows)), layout="constrained")
    width = 0.8 / len(keys)
    for i, key in enumerate(keys):
        ys = [n + i * width for n in range(len(rows))]
        values = [r.latency[key] or 0 for r in rows]
        ax.barh(ys, values, height=width, label=key, color=COLORS[key])
    ax.set_yticks([n + 0.4 - width / 2 for n in range(len(rows))],
                  [latency_label(r, with_op=with_op, with_load=_varying_load(rows)) for r in rows], fontsize=8)
    ax.set_xscale("log")
    ax.set_xlabel("latency, ms (log scale)", fontsize=8)
    ax.grid(axis="x", alpha=0.3, which="both")
    fig.legend(*ax.get_legend_handles_labels(), fontsize=7, loc="outside right upper")  # beside the bars, not on them
    ax.invert_yaxis()
    ax.set_title(title, fontsize=10, loc="left")
    return _png(fig)


def latency_percentiles(rows: list[Row]) -> bytes | None:
    return _grouped_latency(rows, PERCENTILE_KEYS, f"Latency percentiles (closed loop)\n{CO_MARK} coordinated omission: a stalled "
                            "server stops the tool, so the tail is understated",
                            with_op=True)


def open_loop_latency(rows: list[Row]) -> bytes | None:
    rows = [r for r in rows if r.config.loop == "open"]
    return _grouped_latency(rows, OPEN_KEYS, "Open loop: latency at a constant rate", with_op=True)


def pooled_vs_per_request(pairs: tuple[RoutePair, ...]) -> bytes | None:
    """Requests/s of the pooled and the per-request route side by side: one panel per backend."""
    by_backend: dict[str, list[tuple[Row, Row, float]]] = {}
    for p in pairs:
        by_backend.setdefault(p.backend, []).append((p.pooled, p.per_request, p.ratio))
    panels = list(by_backend.items())
    if not panels:
        return None
    heights = [len(pairs) for _, pairs in panels]
    fig, axes = plt.subplots(len(panels), 1, figsize=(9, 1.0 + 0.55 * sum(heights) + 0.7 * len(panels)),
                             gridspec_kw={"height_ratios": heights}, squeeze=False, layout="constrained")
    for ax, (backend, pairs) in zip(axes[:, 0], panels):
        with_load = _varying_load([p[0] for p in pairs])
        ys = range(len(pairs))
        ax.barh([y - 0.2 for y in ys], [p[0].rps for p in pairs], height=0.4, label="pooled", color="#4c72b0")
        ax.barh([y + 0.2 for y in ys], [p[1].rps for p in pairs], height=0.4, label="per-request", color="#dd8452")
        for y, (pooled, per, ratio) in zip(ys, pairs):
            ax.annotate(f" pooled {ratio:.3g}x", (max(pooled.rps, per.rps), y), fontsize=7,
                        va="center")
        ax.set_yticks(list(ys), [label(p[0], with_load=with_load) for p in pairs], fontsize=8)
        ax.invert_yaxis()
        ax.margins(x=0.15)
        ax.set_title(backend, fontsize=9, loc="left")
        ax.set_xlabel("requests/s", fontsize=8)
        ax.grid(axis="x", alpha=0.3)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside upper right", ncol=2, fontsize=7)
    fig.suptitle("Pooled client vs a new connection per request", fontsize=10)
    return _png(fig)


def cpu_per_request(rows: list[Row]) -> bytes | None:
    rows = [r for r in rows if r.ok and r.cpu_per_request_ms]
    if not rows:
        return None
    rows = sorted(rows, key=lambda r: (OP_ORDER.index(r.config.operation) if r.config.operation in OP_ORDER else 99,
                                       r.cpu_per_request_ms))
    fig, ax = plt.subplots(figsize=(9, 1.2 + 0.3 * len(rows)), layout="constrained")
    bars = ax.barh(range(len(rows)), [r.cpu_per_request_ms for r in rows], color="#55a868")
    for bar, r in zip(bars, rows):
        if r.dev_only:
            bar.set_hatch("//")
            bar.set_facecolor("#b7dfc0")
    ax.set_yticks(list(range(len(rows))), [label(r, with_op=True, with_load=_varying_load(rows)) for r in rows],
                  fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("server CPU ms per request (whole process tree)", fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    ax.set_title("CPU per request (hatched: dev-only)", fontsize=10)
    return _png(fig)


def open_loop_success(rows: list[Row]) -> bytes | None:
    rows = [r for r in rows if r.config.loop == "open" and r.ok and r.success_ratio is not None]
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(9, 1.2 + 0.32 * len(rows)), layout="constrained")
    values = [100 * r.success_ratio for r in rows]
    bars = ax.barh(range(len(rows)), values, color=["#55a868" if v >= 99.9 else "#c44e52" for v in values])
    for bar, v in zip(bars, values):
        ax.annotate(f" {v:.2f}%", (bar.get_width(), bar.get_y() + 0.4), fontsize=7, va="center")
    ax.set_yticks(list(range(len(rows))), [label(r, with_op=True) for r in rows], fontsize=8)
    ax.set_xlim(0, 110)
    ax.invert_yaxis()
    ax.set_xlabel("success, % of requests sent", fontsize=8)
    ax.set_title("Open loop: success rate at a constant rate", fontsize=10)
    return _png(fig)


def of_section(key: str, report: Report) -> list[tuple[bytes, str]]:
    """The charts drawn above a section's table (bench/report/tables.py's keys): (PNG, alt text)."""
    if key == "closed":
        drawn = [(requests_per_second(report.closed), "requests/s"), (latency_percentiles(report.closed), "latency"),
                 (pooled_vs_per_request(report.route_pairs), "pooled vs per-request"),
                 (cpu_per_request(report.closed), "CPU per request")]
    elif key == "open":
        drawn = [(open_loop_success(report.opened), "open-loop success"),
                 (open_loop_latency(report.opened), "open-loop latency")]
    else:
        drawn = []
    return [(png, alt) for png, alt in drawn if png]
