"""Results of repeated runs folded into one row per configuration: the median and the spread.

A configuration is everything but the repeat index and the measurements: stack, route, tool,
load (connections or rate), keep-alive or close, workers, target. Errors are summed over the
repeats; a row of failed runs only carries their reasons.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from bench.schema import ERROR_KINDS, Result


def config_key(r: Result) -> tuple:
    return (r.entrypoint, r.operation, r.tool, r.loop, r.connections, r.rate, r.keepalive, r.threads,
            r.workers, r.target, r.preset)


def _median(values: list[float]) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


@dataclass
class Row:
    first: Result
    results: list[Result] = field(default_factory=list)

    @property
    def ok_results(self) -> list[Result]:
        return [r for r in self.results if r.ok]

    @property
    def n(self) -> int:
        return len(self.results)

    @property
    def failed(self) -> int:
        return self.n - len(self.ok_results)

    @property
    def failures(self) -> list[str]:
        return list(dict.fromkeys(r.failure for r in self.results if not r.ok))

    def median(self, attr: str) -> float | None:
        return _median([getattr(r, attr) for r in self.ok_results])

    def spread(self, attr: str) -> tuple[float, float] | None:
        values = [getattr(r, attr) for r in self.ok_results if getattr(r, attr) is not None]
        return (min(values), max(values)) if values else None

    @property
    def rps(self) -> float | None:
        return self.median("requests_per_s")

    def spread_pct(self) -> float | None:
        """(max - min) / median of requests/s over the repeats, in percent."""
        spread, mid = self.spread("requests_per_s"), self.rps
        if spread is None or not mid or len(self.ok_results) < 2:
            return None
        return 100.0 * (spread[1] - spread[0]) / mid

    def values(self, attr: str = "requests_per_s") -> list[float]:
        """The repeats' values of attr (ok runs only): what the significance of a difference rests on."""
        return [getattr(r, attr) for r in self.ok_results if getattr(r, attr) is not None]

    @property
    def noisy(self) -> int:
        """Runs of this row whose noise probe moved more than its threshold."""
        return sum(1 for r in self.ok_results if r.noisy)

    def latency(self, key: str) -> float | None:
        return _median([r.latency_ms.get(key) for r in self.ok_results])

    def errors(self) -> dict[str, int]:
        return {k: sum(r.errors.get(k, 0) for r in self.results) for k in ERROR_KINDS}

    @property
    def errors_total(self) -> int:
        return sum(self.errors().values())

    @property
    def non_2xx(self) -> int:
        return sum(r.non_2xx for r in self.results)

    @property
    def success_ratio(self) -> float | None:
        return self.median("success_ratio")

    @property
    def cpu_per_request_ms(self) -> float | None:
        return self.median("cpu_per_request_ms")

    @property
    def peak_rss_mb(self) -> float | None:
        values = [r.server_peak_rss_mb for r in self.ok_results if r.server_peak_rss_mb is not None]
        return max(values) if values else None

    @property
    def load(self) -> str:
        r = self.first
        if r.loop == "open":
            return f"{r.rate:g}/s"
        return f"c={r.connections}" + (f" t={r.threads}" if r.tool == "wrk" and r.threads else "")

    @property
    def connection(self) -> str:
        return "keep-alive" if self.first.keepalive else "close"


def rows(results: list[Result]) -> list[Row]:
    """One Row per configuration, in the order the configurations first appear.

    Runs superseded by a --rerun-noisy repeat are left out (they stay in results.jsonl).
    """
    grouped: dict[tuple, Row] = {}
    for r in results:
        if r.superseded:
            continue
        key = config_key(r)
        if key not in grouped:
            grouped[key] = Row(first=r)
        grouped[key].results.append(r)
    return list(grouped.values())
