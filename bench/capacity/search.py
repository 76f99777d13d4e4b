"""Capacity within a latency bound: the SLO, and the ramp that searches for the highest rate that holds it.

A ramp offers one constant rate per step (loadtools/openloop.py, latency from each request's
intended send time): a geometric ladder up until a step breaks the SLO, then bisection between
the last rate that held and the first that did not, down to `resolution`. The ladder starts near
the stack's knee when one is known (`knee_fraction` of a guess: its closed-loop rate of the same
run, knee_guess) and climbs by `factor`; without a guess it starts at `start_rate` and climbs by
`search_factor` (coarser: it has further to go). A step that breaks the SLO is measured again once
(`confirm`) before the ramp believes it: one step is not enough on a shared machine. A void step
(bench/selfcheck.py: the tool, not the stack, was the bound), once measured again (`void_reruns`,
bench/run/ramper.py) and still void, stops the climb like a failure, and
bisection goes on below it: when no step between the capacity found and the void one failed on
the stack's own account, the capacity is a lower bound, and the cell is void.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Callable

# Why p99 <= 25 ms: the suite's routes are a hello, a JSON body and one Redis or Mongo lookup on
# loopback; a stack that holds them serves a p99 of a few ms (Go net/http 6 ms at 20k/s, sanic
# 10 ms at 16k/s, flask on gunicorn sync 24 ms at 1,500/s, measured here) and collapses to
# seconds within a factor of 2 past its capacity. 25 ms separates the two on a noisy 2-core machine.
DEFAULT_SLO = "p99=25ms"
MIN_SUCCESS = 0.999
UNITS_MS = {"ms": 1.0, "s": 1000.0, "us": 0.001}
# a step that missed the SLO while other processes took this share of the machine (%) is suspect: it is
# measured again (RampSettings.spoiled_pct), and a cell it decided is named (ForeignLoad.suspect)
FOREIGN_SUSPECT_PCT = 30.0
STEP_OVERHEAD_S = 0.6  # vegeta's start and its per-request record read back, per step


@dataclass(frozen=True)
class Slo:
    """Latency bounds (ms) by percentile and the share of requests that must succeed."""

    bounds: tuple[tuple[str, float], ...] = (("p99", 25.0),)
    min_success: float = MIN_SUCCESS

    @classmethod
    def parse(cls, text: str) -> "Slo":
        """'p99=25ms', 'p50=5ms,p99=25ms,p99.9=100ms' (units ms, s or us; plain numbers are ms)."""
        bounds = []
        for part in [p.strip() for p in text.split(",") if p.strip()]:
            match = re.fullmatch(r"(p50|p90|p99|p99\.9)\s*[=<]=?\s*([\d.]+)\s*(ms|s|us)?", part)
            if not match:
                raise ValueError(f"--slo {text!r}: expected e.g. p99=25ms (p50, p90, p99 or p99.9; ms, s or us)")
            bounds.append((match.group(1), float(match.group(2)) * UNITS_MS[match.group(3) or "ms"]))
        if not bounds:
            raise ValueError(f"--slo {text!r}: no bound")
        return cls(tuple(bounds))

    def describe(self) -> str:
        return ", ".join(f"{k} <= {v:g} ms" for k, v in self.bounds) + f", >= {100 * self.min_success:g}% succeed"

    def as_dict(self) -> dict:
        return {"bounds_ms": dict(self.bounds), "min_success": self.min_success}

    @classmethod
    def from_dict(cls, data: dict) -> "Slo":
        return cls(tuple((data.get("bounds_ms") or {}).items()), data.get("min_success", MIN_SUCCESS))

    def misses(self, latency_ms: dict, success_ratio: float | None) -> list[str]:
        """What of the SLO a step missed ([] when it held)."""
        why = []
        for key, bound in self.bounds:
            value = latency_ms.get(key)
            if value is None or value > bound:
                why.append(f"{key} {'unknown' if value is None else f'{value:g} ms'} > {bound:g} ms")
        if success_ratio is None or success_ratio < self.min_success:
            why.append(f"success {100 * (success_ratio or 0):.2f}% < {100 * self.min_success:g}%")
        return why

    @property
    def tightest_quantile(self) -> float:
        return max(float(k[1:]) for k, _ in self.bounds)


@dataclass(frozen=True)
class RampSettings:
    start_rate: float = 250.0
    factor: float = 2.0
    max_rate: float = 64_000.0
    resolution: float = 1.1  # bisect until first failed / last held <= this
    max_bisections: int = 3
    step_s: float = 5.0  # measured seconds of a step (at least; see step_seconds)
    warmup_s: float = 1.0  # sent before each step's window, not counted
    tail_samples: int = 10  # requests beyond the tightest percentile a step must have
    confirm: bool = True  # measure a failing step again before believing it
    max_step_s: float = 30.0  # ... but no step longer than this (a slow rate's percentile is coarser)
    max_down: int = 3  # rungs below the first one tried, when it failed
    search_factor: float | None = None  # the ladder's factor without a guess of the knee (None: factor)
    knee_fraction: float = 0.7  # with a guess of the knee, the first rung is this share of it
    void_reruns: int = 1  # a void step measured again, at most this many times, before the ramp believes it
    void_pause_s: float = 1.0  # ... after this pause (a briefly busy machine calms down)
    # a step that missed the SLO while other processes took this share of the machine (%) is measured
    # again like a void one (None: never)
    spoiled_pct: float | None = FOREIGN_SUSPECT_PCT
    # a cost step (the common rate) lasts until it has served this many requests, up to cost_max_s: the
    # server's CPU is read in clock ticks (10 ms), so a step of 56 requests at 100 µs each reads 0 or 178 µs
    cost_requests: int = 3000
    cost_max_s: float = 20.0

    def step_seconds(self, rate: float, slo: Slo) -> float:
        """Measured seconds at rate: step_s, or longer until tail_samples lie beyond the percentile."""
        needed = self.tail_samples / (1 - slo.tightest_quantile / 100)
        return min(self.max_step_s, max(self.step_s, needed / rate))

    def cost_seconds(self, rate: float, slo: Slo) -> float:
        """Measured seconds of a cost step at rate: a ramp step's, or longer until cost_requests are served."""
        return max(self.step_seconds(rate, slo), min(self.cost_max_s, self.cost_requests / rate))

    def ladder(self, guess: float | None = None) -> list[float]:
        """The rungs: from knee_fraction x guess by factor, or (no guess) from start_rate by search_factor."""
        if guess:
            rate, factor = _round_rate(self.knee_fraction * guess), self.factor
        else:
            rate, factor = self.start_rate, self.search_factor or self.factor
        rates = []
        while rate <= self.max_rate:
            rates.append(rate)
            rate = _round_rate(rate * factor) if guess else rate * factor
        return rates

    def down_factor(self, guess: float | None = None) -> float:
        """Below a first rung that failed: from a guess, by factor squared (a closed-loop rate can be
        several times a stack's capacity within the bound); else as the ladder climbs."""
        return self.factor ** 2 if guess else self.search_factor or self.factor


# --quick: short steps (0.6 s, at least 300 requests: 3 beyond the p99), starting at 0.7 x the
# stack's closed-loop rate of the same run (its knee, near enough: a stack holds its p99 bound a
# little below its closed-loop maximum) and climbing x1.4, then bisecting to 10 % (two bisections
# from a x1.4 bracket); a failing rung measured again before the ladder stops on it (a p99 that one
# hiccup of the machine moves), one more look at a void step. Without a guess (the tool's calibration) a
# x3 ladder from 500/s, bisected four times to the same 10 %. About 6 steps, 8 s, a ramp.
QUICK_RAMP = RampSettings(start_rate=500.0, factor=1.4, search_factor=3.0, step_s=0.6, warmup_s=0.2,
                          tail_samples=3, max_bisections=4, resolution=1.1, confirm=True, max_step_s=2.0,
                          max_down=3, void_reruns=1, void_pause_s=1.0, cost_requests=1500, cost_max_s=8.0)


@dataclass
class Outcome:
    """What a ramp needs of one step: did the SLO hold, was the step void."""

    rate: float
    held: bool
    void: bool = False
    why: str = ""


def run_ramp(measure: Callable[[float, str], Outcome], settings: RampSettings,
             limit: float | None = None, guess: float | None = None) -> list[Outcome]:
    """Climb, confirm, bisect; measure(rate, phase) runs one step; guess is the stack's knee as far
    as it is known (RampSettings.ladder). Returns every outcome in order."""
    outcomes: list[Outcome] = []

    def step(rate: float, phase: str) -> Outcome:
        outcome = measure(rate, phase)
        outcomes.append(outcome)
        # a failing rung is measured again before the ladder stops on it; a failing step down the ladder (it
        # goes on down) or of the bisection (it only narrows the bracket) is believed at once
        if not outcome.void and not outcome.held and settings.confirm and phase == "ladder":
            again = measure(rate, "confirm")
            outcomes.append(again)
            return again
        return outcome

    # held: the highest rate that held; failed: the lowest that did not, or that was void (the tool,
    # not the stack, was the bound there: unknown, but no use climbing past it)
    held, failed = None, None
    for rate in settings.ladder(guess):
        if limit and rate > limit:  # above the tool's own limit every step would be void
            if held is None and failed is None:  # the guess itself is past it: start at the limit
                rate = limit
            else:
                break
        o = step(rate, "ladder")
        if o.held and not o.void:
            held = rate
        else:
            failed = rate
            break
    if held is None and failed is not None:  # the first rung failed: down the ladder
        rate = failed
        for _ in range(settings.max_down):
            rate = _round_rate(rate / settings.down_factor(guess)) if guess else rate / settings.down_factor()
            o = step(rate, "down")
            if o.held and not o.void:
                held = rate
                break
            failed = rate
    if held is None or failed is None:
        return outcomes
    for _ in range(settings.max_bisections):
        if failed / held <= settings.resolution:
            break
        mid = _round_rate(math.sqrt(held * failed))
        if mid <= held or mid >= failed:
            break
        o = step(mid, "bisect")
        if o.held and not o.void:
            held = mid
        else:
            failed = mid
    return outcomes


def _round_rate(rate: float) -> float:
    """Two significant digits: rates a reader can compare across stacks (1,400/s, not 1,414.2/s)."""
    return float(f"{rate:.2g}")


def knee_guess(results: list, entrypoint: str, operation: str, interpreter: str = "",
               cores: int | None = None) -> float | None:
    """Where a ramp of this stack and operation starts looking: its latest closed-loop rate of the run
    (the most it served with every connection busy; its capacity within a latency bound lies a
    little below), or None."""
    rates = [r.requests_per_s for r in results
             if r.entrypoint == entrypoint and r.operation == operation and r.loop == "closed" and r.ok
             and getattr(r, "interpreter", "") == interpreter and (cores is None or r.server_cores == cores)
             and not r.superseded and not r.void_reasons and r.requests_per_s]
    return rates[-1] if rates else None


def estimate_ramp_s(settings: RampSettings, slo: Slo, guessed: bool | None = None) -> float:
    """About how long one ramp takes (for the plan's estimate): steps at rung rates, with overhead. guessed:
    whether the ramp starts from a guess of the knee (None: as --quick's ramps do, which have no search_factor
    of their own only when they never get one)."""
    if guessed is None:
        guessed = settings.search_factor is not None
    climb = 3 if guessed else 4  # a guess of the knee starts near it
    bisections = 2 if guessed else settings.max_bisections
    steps = climb + bisections + (1 if settings.confirm else 0)
    rates = settings.ladder()[:steps] or [settings.start_rate]
    rates += [rates[-1]] * (steps - len(rates))
    return sum(settings.step_seconds(r, slo) + settings.warmup_s + STEP_OVERHEAD_S for r in rates)
