"""What one load tool run says (Measurement), with the latency keys and error kinds every tool reports.

The load tools' parsers (loadtools/) produce it; bench's Result (bench/schema.py) and the anatomy carry it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

PERCENTILES = ("p50", "p90", "p95", "p99", "p99.9")
LATENCY_KEYS = (*PERCENTILES, "max", "mean")
ERROR_KINDS = ("connect", "read", "write", "timeout", "other")


def empty_errors() -> dict[str, int]:
    return {kind: 0 for kind in ERROR_KINDS}


def empty_latency() -> dict[str, float | None]:
    return {key: None for key in LATENCY_KEYS}


@dataclass
class Measurement:
    """What one load tool run says: counts, rates, latency (ms), errors by kind.

    requests counts completed responses of any status; errors are requests that got no response
    (socket errors, timeouts). A latency the tool does not give (ab and hey have no p99.9) is None.
    """

    requests: int = 0
    duration_s: float = 0.0
    requests_per_s: float = 0.0
    latency_ms: dict[str, float | None] = field(default_factory=empty_latency)
    errors: dict[str, int] = field(default_factory=empty_errors)
    non_2xx: int = 0
    status_codes: dict[str, int] = field(default_factory=dict)
    success_ratio: float | None = None
    error_samples: list[str] = field(default_factory=list)

    @property
    def errors_total(self) -> int:
        return sum(self.errors.values())

    def finish(self) -> "Measurement":
        """Fill success_ratio from the counts when the tool did not give one."""
        if self.success_ratio is None:
            attempted = self.requests + self.errors_total
            ok = self.requests - self.non_2xx
            self.success_ratio = round(ok / attempted, 6) if attempted else 0.0
        return self
