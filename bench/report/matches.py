"""Two result sets side by side (`bench.sh compare`): rows matched on their configuration, capacities
matched the same way, with the ratios B / A and whether a difference is bigger than the noise.
bench/report/compare.py lays this out.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

from bench.capacity import tally
from bench.report import significance
from bench.report.answers import Standing, _span, answers, overlap
from bench.report.conditions import Session, session
from bench.report.model import Config, Row, rows
from bench.report.significance import Verdict
from bench.schema import Result

@dataclass(frozen=True)
class Match:
    """A configuration in A, in B, or in both; ratios are B / A."""

    a: Row | None
    b: Row | None
    rps_ratio: float | None
    p99_ratio: float | None
    verdict: Verdict  # of the req/s ratio

    @property
    def row(self) -> Row:
        return self.a or self.b


@dataclass(frozen=True)
class CapacityMatch:
    """A stack's capacity on one operation in A, in B, or in both; ratios are B / A."""

    a: Standing | None
    b: Standing | None
    common_rates: tuple[float | None, float | None]  # each side's, where its cost was measured
    ratio: float | None  # capacity B / A (None where either is void or missing)
    cost_ratio: float | None  # cpu µs per request B / A
    apart: bool | None  # the two intervals do not overlap (None: one side missing or void)

    @property
    def standing(self) -> Standing:
        return self.a or self.b


@dataclass(frozen=True)
class Comparison:
    matches: tuple[Match, ...]  # the fixed-load configurations (a ramp's steps are in capacities)
    only_a: int
    only_b: int
    sessions: tuple[Session | None, Session | None]
    capacities: tuple[CapacityMatch, ...] = ()


def _ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None or a == 0 else b / a


def _match(a: Row | None, b: Row | None) -> Match:
    ok_a, ok_b = (a if a is not None and a.ok else None), (b if b is not None and b.ok else None)
    verdict = (significance.ratio_of_medians(a.rps_values, b.rps_values) if a is not None and b is not None
               else Verdict(None))
    return Match(a, b, _ratio(ok_a and ok_a.rps, ok_b and ok_b.rps),
                 _ratio(ok_a and ok_a.latency["p99"], ok_b and ok_b.latency["p99"]), verdict)


def _standings(results: list[Result]) -> tuple[list[Standing], dict[str, float | None]]:
    caps = tally.capacities([r for r in results if r.loop == "open"])
    common = {op: tally.common_rate(group) for op, group in tally.by_operation(caps).items()}
    return [s for a in answers(caps, common) for s in a.standings], common


def _capacity_config(s: Standing) -> Config:
    """The configuration of a capacity: its first step's, without the step's rate."""
    return replace(Config.of(s.capacity.first), rate=None, mode="capacity")


def capacity_matches(a: list[Result], b: list[Result], key: Callable[[Config], Config]) -> list[CapacityMatch]:
    """Each side's capacities matched as compare() matches rows: on key of their configuration."""
    (side_a, common_a), (side_b, common_b) = _standings(a), _standings(b)
    waiting: dict[Config, list[Standing]] = {}
    for s in side_b:
        waiting.setdefault(key(_capacity_config(s)), []).append(s)
    pairs = []
    for s in side_a:
        same = waiting.get(key(_capacity_config(s)))
        pairs.append((s, same.pop(0) if same else None))
    taken = {id(t) for _, t in pairs if t is not None}
    pairs += [(None, s) for s in side_b if id(s) not in taken]
    out = []
    for x, y in pairs:
        op = (x or y).capacity.operation
        ranked = x is not None and y is not None and x.rank is not None and y.rank is not None
        out.append(CapacityMatch(
            x, y, (common_a.get(op), common_b.get(op)),
            _ratio(x.value, y.value) if ranked else None,
            _ratio(x.cpu_us, y.cpu_us) if x is not None and y is not None else None,
            not overlap(_span(x.capacity), _span(y.capacity)) if ranked else None))
    return out


def compare(a: list[Result], b: list[Result], key: Callable[[Config], Config] = Config.without_session) -> Comparison:
    """The rows of A and B matched on key(config), in A's order then B's; none is left out: rows of
    one side that share a key are paired in order with the other side's, the rest stand alone. The
    steps of capacity ramps are not rows: each side's capacities are matched the same way."""
    fixed = [[r for r in side if not r.mode] for side in (a, b)]
    rows_b = rows(fixed[1])
    waiting: dict[Config, list[int]] = {}
    for i, row in enumerate(rows_b):
        waiting.setdefault(key(row.config), []).append(i)
    matches, matched = [], set()
    for row in rows(fixed[0]):
        same = waiting.get(key(row.config))
        j = same.pop(0) if same else None
        matched.add(j)
        matches.append(_match(row, None if j is None else rows_b[j]))
    only_a = sum(1 for m in matches if m.b is None)
    matches += [_match(None, row) for i, row in enumerate(rows_b) if i not in matched]
    return Comparison(tuple(matches), only_a, sum(1 for m in matches if m.a is None),
                      (session(a) if a else None, session(b) if b else None), tuple(capacity_matches(a, b, key)))
