"""Progress of a benchmark: a rich live bar on a terminal, and one line per finished run always.

The line says what ran, i/N, and its requests/s, p99 and errors (or why it failed).
"""
from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress as RichProgress, TextColumn, TimeElapsedColumn

from bench.schema import Result

FOREIGN_SHOWN_PCT = 10.0  # a run's line says what other processes took of the machine from this share on


def fmt_num(value: float | None, digits: int = 0) -> str:
    if value is None:
        return "-"
    return f"{value:,.{digits}f}"


def run_line(result: Result) -> str:
    """One human line for a finished run (no markup)."""
    if not result.ok:
        return f"FAILED: {result.failure}"
    parts = [f"{fmt_num(result.requests_per_s)} req/s"]
    if result.loop == "open":
        parts.append(f"success {100 * (result.success_ratio or 0):.1f}%")
    p99 = result.latency_ms.get("p99")
    if p99 is not None:
        parts.append(f"p99 {p99:.2f} ms")
    errors = result.errors_total + result.non_2xx
    parts.append(f"errors {result.errors_total}" + (f" non-2xx {result.non_2xx}" if result.non_2xx else "")
                 if errors else "no errors")
    if result.cpu_per_request_ms is not None:
        parts.append(f"cpu {result.cpu_per_request_ms:.3f} ms/req")
    if result.noisy:
        parts.append(f"NOISY: probe moved {result.probe_moved_pct:.1f}%")
    if result.mode:
        parts.insert(0, f"sent {fmt_num(result.sent_rate)}/s of {fmt_num(result.rate)}/s")
        if result.slo_held is not None:
            parts.append("SLO held" if result.slo_held else "SLO missed: " + "; ".join(result.slo_misses))
    if result.foreign_cpu_pct is not None and result.foreign_cpu_pct >= FOREIGN_SHOWN_PCT:
        parts.append(f"others took {result.foreign_cpu_pct:.0f}% of the machine")
    if result.void_reasons:
        parts.append("VOID: " + "; ".join(result.void_reasons))
    return ", ".join(parts)


class Progress:
    def __init__(self, console: Console | None = None, live: bool | None = None):
        self.console = console or Console(stderr=True, highlight=False, soft_wrap=True)
        self.live = self.console.is_terminal if live is None else live
        self.total = 0
        self.index = 0
        self.current = ""
        self._bar: RichProgress | None = None
        self._task = None

    def start(self, total: int) -> None:
        self.total = total
        if self.live:
            self._bar = RichProgress(TextColumn("[bold]bench[/bold]"), BarColumn(), MofNCompleteColumn(),
                                     TimeElapsedColumn(), TextColumn("{task.description}"),
                                     console=self.console, transient=True)
            self._bar.start()
            self._task = self._bar.add_task("", total=total)

    def note(self, message: str, style: str = "") -> None:
        text = escape(message)
        self.console.print(f"  [{style}]{text}[/{style}]" if style else f"  {text}")

    def begin(self, index: int, description: str) -> None:
        self.index, self.current = index, description
        if index > self.total:  # a capacity ramp's steps are known only as it climbs: N grows with them
            self.total = index
            if self._bar is not None:
                self._bar.update(self._task, total=index)
        if self._bar is not None:
            self._bar.update(self._task, description=escape(description))

    def end(self, result: Result) -> None:
        line = escape(run_line(result))
        style = "red" if not result.ok else ("yellow" if result.errors_total or result.non_2xx else "green")
        self.console.print(f"[{self.index}/{self.total}] {escape(self.current)}: [{style}]{line}[/{style}]")
        if self._bar is not None:
            self._bar.advance(self._task)

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
