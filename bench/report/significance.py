"""Is a difference between two sets of repeats bigger than the noise? A bootstrap interval of a ratio.

The statistic is the ratio of medians median(B) / median(A) (e.g. requests/s of two stacks, or of
one stack in two result files). Its 95 % interval is a percentile bootstrap: both samples are
resampled with replacement (independently), 10,000 times, from a fixed seed, so the same numbers
always give the same interval. The difference is significant when the interval excludes 1.0.

With fewer than 2 values on a side there is no spread to resample: the verdict is "n/a".
The percentile interval is transformation-respecting: the interval of A/B is the reciprocal of the
interval of B/A, so either way round reads the same.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass

import numpy as np

RESAMPLES = 10_000
CONFIDENCE = 0.95
SEED = 0
NEEDS = "n/a (needs --repeat >= 2)"
METHOD = (f"ratio of medians with a {CONFIDENCE:.0%} percentile bootstrap interval ({RESAMPLES:,} resamples "
          f"of each side, seed {SEED}); significant when the interval excludes 1.0")


@dataclass(frozen=True)
class Verdict:
    ratio: float | None  # median(B) / median(A); None when a median is missing or A's is 0
    low: float | None = None  # the interval; None when it cannot be computed (fewer than 2 values)
    high: float | None = None
    n_a: int = 0
    n_b: int = 0

    @property
    def has_interval(self) -> bool:
        return self.low is not None and self.high is not None

    @property
    def significant(self) -> bool | None:
        """True/False when there is an interval, None when not (too few repeats)."""
        if not self.has_interval:
            return None
        return not (self.low <= 1.0 <= self.high)

    def interval_text(self) -> str:
        if not self.has_interval:
            return "–"
        return f"[{self.low:.2f}, {self.high:.2f}]"

    def ratio_text(self) -> str:
        return "–" if self.ratio is None else f"{self.ratio:.2f}x"

    def verdict_text(self) -> str:
        if self.ratio is None:
            return "–"
        if self.significant is None:
            return NEEDS
        return "significant" if self.significant else "not significant"

    def describe(self) -> str:
        """'3.91x [3.52, 4.30] significant' or '1.02x n/a (needs --repeat >= 2)'."""
        if self.ratio is None:
            return "–"
        if not self.has_interval:
            return f"{self.ratio_text()} {NEEDS}"
        return f"{self.ratio_text()} {self.interval_text()} {self.verdict_text()}"


def _clean(values) -> list[float]:
    return [float(v) for v in values if v is not None]


def ratio_of_medians(a, b, resamples: int = RESAMPLES, confidence: float = CONFIDENCE,
                     seed: int = SEED) -> Verdict:
    """median(b) / median(a) and its bootstrap interval (see the module docstring)."""
    a, b = _clean(a), _clean(b)
    if not a or not b:
        return Verdict(None, n_a=len(a), n_b=len(b))
    mid_a, mid_b = statistics.median(a), statistics.median(b)
    if mid_a == 0:
        return Verdict(None, n_a=len(a), n_b=len(b))
    ratio = mid_b / mid_a
    if len(a) < 2 or len(b) < 2:
        return Verdict(ratio, n_a=len(a), n_b=len(b))
    rng = np.random.default_rng(seed)
    arr_a, arr_b = np.asarray(a), np.asarray(b)
    boot_a = np.median(arr_a[rng.integers(0, len(a), size=(resamples, len(a)))], axis=1)
    boot_b = np.median(arr_b[rng.integers(0, len(b), size=(resamples, len(b)))], axis=1)
    valid = boot_a != 0  # a resample of A whose median is 0 has no ratio
    ratios = boot_b[valid] / boot_a[valid]
    if ratios.size == 0:
        return Verdict(ratio, n_a=len(a), n_b=len(b))
    tail = (1.0 - confidence) / 2
    low, high = np.quantile(ratios, [tail, 1.0 - tail])
    return Verdict(ratio, float(low), float(high), len(a), len(b))
