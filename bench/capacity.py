"""Capacity within a latency bound: the SLO, the ramp that searches for it, and what a run's steps add up to.

A ramp offers one constant rate per step (loadtools/openloop.py, latency from each request's
intended send time): a geometric ladder up until a step breaks the SLO, then bisection between
the last rate that held and the first that did not, down to `resolution`. The ladder starts near
the stack's knee when one is known (`knee_fraction` of a guess: its closed-loop rate of the same
run, knee_guess) and climbs by `factor`; without a guess it starts at `start_rate` and climbs by
`search_factor` (coarser: it has further to go).
Once every ramp of a run is done, each stack is measured once more at the common rate of its
operation (a share of the slowest capacity, a rate every stack holds: mode "cost"), where each
stack's CPU per request is compared. A step that breaks the SLO is measured again once
(`confirm`) before the ramp believes it: one step is not enough on a shared machine. A void step
(bench/selfcheck.py: the tool, not the stack, was the bound), once measured again (`void_reruns`,
bench/capacity_run.py) and still void, stops the climb like a failure, and
bisection goes on below it: when no step between the capacity found and the void one failed on
the stack's own account, the capacity is a lower bound, and the cell is void.

Each step is one Result line (mode "capacity", or "calibration" for the tool's own limit); the
summaries below are derived from those lines, never stored.
"""
from __future__ import annotations

import math
import re
import statistics
from dataclasses import dataclass, field
from typing import Callable

from bench import labels

# Why p99 <= 25 ms: the suite's routes are a hello, a JSON body and one Redis or Mongo lookup on
# loopback; a stack that holds them serves a p99 of a few ms (Go net/http 6 ms at 20k/s, sanic
# 10 ms at 16k/s, flask on gunicorn sync 24 ms at 1,500/s, measured here) and collapses to
# seconds within a factor of 2 past its capacity. 25 ms separates the two on a noisy 2-core machine.
DEFAULT_SLO = "p99=25ms"
MIN_SUCCESS = 0.999
COMMON_FRACTION = 0.5  # the common rate: a rung at or below this share of the slowest capacity
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
    # a later repeat's ramp starts from the capacity an earlier repeat of the same stack found (as from a
    # closed-loop knee: knee_fraction of it, then by factor) instead of the ladder's foot: fewer steps a ramp,
    # each still measured on its own (the free-threading preset: many stacks in about 40 minutes)
    guess_from_earlier: bool = False

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
# from a x1.4 bracket); no second look at a failing rung, one at a void step. Without a guess (the
# tool's calibration) a x3 ladder from 500/s, bisected four times to the same 10 %. About 5 steps,
# 7 s, a ramp; a p99 that one hiccup of the machine moves.
QUICK_RAMP = RampSettings(start_rate=500.0, factor=1.4, search_factor=3.0, step_s=0.6, warmup_s=0.2,
                          tail_samples=3, max_bisections=4, resolution=1.1, confirm=False, max_step_s=2.0,
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
        # a failing rung is measured again before the ladder stops on it; a failing bisection step
        # only narrows the bracket, so it is believed at once
        if not outcome.void and not outcome.held and settings.confirm and phase in ("ladder", "down"):
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


def earlier_capacity(results: list, run) -> float | None:
    """The capacity an earlier ramp of the same stack found in this run (RampSettings.guess_from_earlier), or
    None: the latest held ramp of the same entry, operation, interpreter, protocol, cores and workers."""
    found = [c.capacity for c in capacities([r for r in results if r.mode == "capacity"])
             if (c.entrypoint, c.operation, c.protocol, c.first.workers) ==
             (run.entry.name, run.operation, run.protocol, run.workers)
             and c.interpreter == run.interpreter and (run.cores is None or c.server_cores == run.cores)
             and c.capacity and not c.void]
    return found[-1] if found else None


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


# -- what the steps of a run add up to (read from Result lines) ----------------------------------
@dataclass
class Ramp:
    """One ramp of one stack and operation: its steps, the rate it held, and whether it ended void."""

    steps: list = field(default_factory=list)  # Result lines, in order

    @property
    def decided(self) -> dict[float, bool]:
        """rate -> held, the last (non-void) step at each rate deciding (a confirmation overrides)."""
        out: dict[float, bool] = {}
        for r in self.steps:
            if r.ok and not r.void_reasons and r.slo_held is not None:
                out[r.rate] = bool(r.slo_held)
        return out

    @property
    def capacity(self) -> float | None:
        decided = self.decided
        failed = [rate for rate, held in decided.items() if not held]
        ceiling = min(failed) if failed else math.inf
        held = [rate for rate, ok in decided.items() if ok and rate < ceiling]
        return max(held) if held else None

    @property
    def first_failed(self) -> float | None:
        failed = [rate for rate, held in self.decided.items() if not held]
        return min(failed) if failed else None

    @property
    def void_reasons(self) -> list[str]:
        """Why the ramp's capacity is only a lower bound: no step above it failed on the stack's
        account, and one there was void (the tool or the backend was the bound). Else []."""
        capacity, failed = self.capacity or 0.0, self.first_failed or math.inf
        for r in self.steps:
            if r.ok and r.void_reasons and capacity < r.rate < failed:
                return list(r.void_reasons)
        if self.capacity and self.first_failed is None:  # it held every step it was offered
            return [f"held every step up to {self.capacity:,.0f}/s: the climb stopped at the load tool's own "
                    f"limit or the ladder's top"]
        return []


def _ramp_key(r) -> tuple:
    return (r.entrypoint, r.operation, r.keepalive, r.workers, r.target, getattr(r, "protocol", "h1"),
            getattr(r, "interpreter", ""), getattr(r, "server_cores", None), r.mode)


def ramps(results: list) -> dict[tuple, list[Ramp]]:
    """(entrypoint, operation, keepalive, workers, target, protocol, interpreter, server cores, mode) -> its
    ramps, one per repeat."""
    out: dict[tuple, dict[int, Ramp]] = {}
    for r in results:
        if r.mode not in ("capacity", "calibration", "cost") or r.superseded:
            continue
        out.setdefault(_ramp_key(r), {}).setdefault(r.repeat, Ramp()).steps.append(r)
    return {k: [v[i] for i in sorted(v)] for k, v in out.items()}


@dataclass
class Capacity:
    """A stack's capacity on one operation over its repeats."""

    entrypoint: str
    operation: str
    first: object  # the first step Result (stack facts: dev_only, workers, ...)
    ramps: list[Ramp]
    slo: Slo
    cost_steps: list = field(default_factory=list)  # the steps at the common rate (mode "cost")
    close_steps: list = field(default_factory=list)  # ... with a connection per request (--close)

    @property
    def protocol(self) -> str:
        return getattr(self.first, "protocol", "h1")

    @property
    def interpreter(self) -> str:
        return getattr(self.first, "interpreter", "")

    @property
    def server_cores(self) -> int | None:
        return getattr(self.first, "server_cores", None)

    @property
    def label(self) -> str:
        """The stack as charts and tables name it (bench/labels.py): the entry, with its interpreter where not its
        own and its protocol unless plaintext HTTP/1.1 (its cores are its answer's)."""
        return labels.stack(self.entrypoint, self.protocol, self.interpreter)

    @property
    def values(self) -> list[float]:
        return [c for c in (r.capacity for r in self.ramps) if c is not None]

    @property
    def capacity(self) -> float | None:
        return statistics.median(self.values) if self.values else None

    @property
    def interval(self) -> tuple[float, float] | None:
        """min-max of the ramps' capacities (repeats), else the bracket of the one ramp: held .. failed."""
        if len(self.values) >= 2:
            return min(self.values), max(self.values)
        if len(self.ramps) == 1 and self.values and self.ramps[0].first_failed:
            return self.values[0], self.ramps[0].first_failed
        return None

    @property
    def void_reasons(self) -> list[str]:
        reasons = []
        for ramp in self.ramps:
            reasons += [w for w in ramp.void_reasons if w not in reasons]
        return reasons

    @property
    def void(self) -> bool:
        """The ramp ended on the tool or the backend: its capacity is a lower bound, not ranked."""
        return bool(self.void_reasons)

    def cost_rate(self, rate: float) -> float | None:
        """The rate this stack's cost was measured at: rate itself when its step at the common rate
        ran (mode "cost"), else its held ramp step nearest to rate, the highest at or below it, else
        the lowest above it (a run stopped before its cost pass)."""
        if any(r.rate == rate and r.ok and not r.void_reasons for r in self.cost_steps):
            return rate
        held = sorted({r.rate for r in self.curve() if r.slo_held and not r.void_reasons})
        if not held:
            return None
        below = [h for h in held if h <= rate]
        return below[-1] if below else held[0]

    def cost_at(self, rate: float) -> tuple[float | None, float | None, float | None]:
        """(the rate measured, server CPU us per request, peak RSS MB) near rate (cost_rate), medians
        over the held steps there."""
        near = self.cost_rate(rate)
        steps = [r for r in self.cost_steps if r.rate == near and r.ok and not r.void_reasons] or \
            [r for r in self.curve() if r.rate == near and r.slo_held and not r.void_reasons]
        cpu = [1000 * r.cpu_per_request_ms for r in steps if r.cpu_per_request_ms is not None]
        rss = [r.server_peak_rss_mb for r in steps if r.server_peak_rss_mb is not None]
        return near, statistics.median(cpu) if cpu else None, statistics.median(rss) if rss else None

    def pss_at(self, rate: float) -> float | None:
        """The server's peak PSS (MB, shared pages split among its processes: bench/sampler.py) at the rate its
        cost was measured near `rate` (cost_rate), the median over those steps; None where none recorded it."""
        near = self.cost_rate(rate)
        steps = [r for r in self.cost_steps if r.rate == near and r.ok and not r.void_reasons] or \
            [r for r in self.curve() if r.rate == near and r.slo_held and not r.void_reasons]
        pss = [r.server_peak_pss_mb for r in steps if getattr(r, "server_peak_pss_mb", None) is not None]
        return statistics.median(pss) if pss else None

    def close_cost_at(self, rate: float) -> float | None:
        """Server CPU us per request at rate with a connection per request (the cost pass with --close):
        the median of those steps, None where none ran there."""
        cpu = [1000 * r.cpu_per_request_ms for r in self.close_steps
               if r.rate == rate and r.ok and not r.void_reasons and r.cpu_per_request_ms is not None]
        return statistics.median(cpu) if cpu else None

    def curve(self) -> list:
        """Every non-superseded step, by offered rate (the latency/throughput curve)."""
        return sorted((r for ramp in self.ramps for r in ramp.steps if r.ok), key=lambda r: (r.rate, r.sequence))


def capacities(results: list, mode: str = "capacity") -> list[Capacity]:
    out = []
    by_key = ramps(results)
    for key, rs in by_key.items():
        if key[-1] != mode:
            continue
        first = rs[0].steps[0]
        entrypoint, operation, keepalive, workers, target, protocol, interpreter, cores, _ = key
        cost = [step for ramp in by_key.get((*key[:-1], "cost"), []) for step in ramp.steps]
        close = [step for ramp in by_key.get((entrypoint, operation, False, workers, target, protocol, interpreter,
                                              cores, "cost"), [])
                 for step in ramp.steps]
        out.append(Capacity(first.entrypoint, first.operation, first, rs,
                            Slo.from_dict(first.slo) if first.slo else Slo.parse(DEFAULT_SLO), cost, close))
    return out


def tool_limit(results: list, protocol: str = "h1", cores: int | None = None) -> float | None:
    """The load tool's own limit on a protocol (and, where given, with the server on that many cores: the
    cores axis) in this run: its calibration ramp's capacity (None: not measured)."""
    cal = [c for c in capacities(results, mode="calibration")
           if c.protocol == protocol and (cores is None or c.server_cores == cores)]
    values = [c.capacity for c in cal if c.capacity]
    return max(values) if values else None


def tool_limits(results: list) -> dict[tuple[str, int | None], float | None]:
    """(protocol, server cores) -> the load tool's own limit measured there."""
    measured = dict.fromkeys((c.protocol, c.server_cores) for c in capacities(results, mode="calibration"))
    return {(protocol, cores): tool_limit(results, protocol, cores) for protocol, cores in measured}


def common_rate(group: list[Capacity]) -> float | None:
    """The rate where the stacks' cost per request is compared: COMMON_FRACTION of the slowest
    capacity of the group (two significant digits), a rate every stack with a capacity holds."""
    slowest = min((c.capacity for c in group if c.capacity), default=None)
    return _round_rate(COMMON_FRACTION * slowest) if slowest else None


def by_operation(caps: list[Capacity]) -> dict[str, list[Capacity]]:
    out: dict[str, list[Capacity]] = {}
    for c in caps:
        out.setdefault(c.operation, []).append(c)
    return out


@dataclass
class ForeignLoad:
    """What other processes took of the machine during a run's steps (Result.foreign_cpu_pct), and
    what it cost: the void steps measured again, and the capacity cells that stayed void."""

    pct: tuple[float, float, float]  # min, median, max over the measured steps and runs, % of all cores
    measured: int
    reruns: list = field(default_factory=list)  # (void step superseded, the step that replaced it or None)
    void_cells: list = field(default_factory=list)  # (Capacity, max foreign % of its void steps, or None)
    # (Capacity, foreign %): cells whose deciding miss (the lowest rate that failed; every step, when
    # none held) ran while others took >= FOREIGN_SUSPECT_PCT of the machine: the stack may hold more
    suspect: list = field(default_factory=list)

    def describe(self) -> str:
        low, median, high = self.pct
        cleared = sum(1 for _, after in self.reruns if after is not None and not after.void_reasons)
        text = (f"foreign load (CPU of processes other than the server, tool, backends and benchmark): median "
                f"{median:.0f}% of the machine, max {high:.0f}% over {self.measured} measurements; "
                f"{len(self.reruns)} void steps measured again, {cleared} of them no longer void")
        if self.suspect:
            text += (f"; missed the SLO while others took >= {FOREIGN_SUSPECT_PCT:.0f}% of the machine (their "
                     f"capacity may be higher): " + ", ".join(f"{c.entrypoint} {c.operation} ({pct:.0f}%)"
                                                            for c, pct in self.suspect))
        if self.void_cells:
            text += "; void cells: " + ", ".join(
                f"{c.entrypoint} {c.operation} " + (f"(foreign up to {pct:.0f}%)" if pct is not None
                                                    else "(held every step up to the tool's limit)")
                for c, pct in self.void_cells)
        return text


def foreign_load(results: list) -> ForeignLoad | None:
    measured = [r.foreign_cpu_pct for r in results if getattr(r, "foreign_cpu_pct", None) is not None]
    if not measured:
        return None
    reruns = []
    for r in results:
        if r.superseded and r.void_reasons:
            after = next((x for x in results if x.rerun == r.rerun + 1 and x.rate == r.rate and x.mode == r.mode
                          and _ramp_key(x) == _ramp_key(r) and x.repeat == r.repeat and x.sequence > r.sequence), None)
            reruns.append((r, after))
    void_cells = []
    for cap in capacities(results):
        if cap.void:
            seen = [r.foreign_cpu_pct for ramp in cap.ramps for r in ramp.steps
                    if r.void_reasons and r.foreign_cpu_pct is not None]
            # None: no void step (it held every step up to the tool's limit), no foreign load to name
            void_cells.append((cap, max(seen, default=None)))
    suspect = []
    for cap in capacities(results):
        decided = [r for ramp in cap.ramps for r in ramp.steps if r.ok and not r.void_reasons and r.slo_held is False]
        if cap.capacity is not None:
            decided = [r for r in decided if r.rate == min(x.rate for x in decided)] if decided else []
        foreign = [r.foreign_cpu_pct for r in decided if r.foreign_cpu_pct is not None]
        if foreign and min(foreign) >= FOREIGN_SUSPECT_PCT:
            suspect.append((cap, min(foreign)))
    return ForeignLoad((min(measured), statistics.median(measured), max(measured)), len(measured), reruns,
                       void_cells, suspect)
