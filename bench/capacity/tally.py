"""What a run's capacity steps add up to: each stack's ramps, its capacity within the SLO (a lower bound where
void), the common rate where the stacks' cost per request is compared, the load tool's own limit, and what
other processes took of the machine.

Once every ramp of a run is done (bench/capacity/search.py), each stack is measured once more at the common
rate of its operation (a share of the slowest capacity, a rate every stack holds: mode "cost"), where each
stack's CPU per request is compared. Each step is one Result line (mode "capacity", or "calibration" for the
tool's own limit); the summaries below are derived from those lines, never stored.
"""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field

from bench import labels
from bench.capacity.search import DEFAULT_SLO, FOREIGN_SUSPECT_PCT, Slo, _round_rate

COMMON_FRACTION = 0.5  # the common rate: a rung at or below this share of the slowest capacity


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
    def interval_kind(self) -> str:
        """What the interval is, in words a reader can weigh: the min-max of N independent ramps (each from the
        same ladder), or one ramp's bracket between the rate it held and the first it missed."""
        if len(self.values) >= 2:
            return f"min–max of {len(self.values)} repeats"
        return "one ramp: held–missed" if self.interval else ""

    @property
    def ramp_void_reasons(self) -> list[str]:
        """Why the capacity is a lower bound (a ramp ended on the tool or the backend's ceiling), else []."""
        reasons = []
        for ramp in self.ramps:
            reasons += [w for w in ramp.void_reasons if w not in reasons]
        return reasons

    @property
    def backend_bound(self) -> list[str]:
        """Why the capacity measures the backend as much as the stack (bench/selfcheck.backend_bound: the local
        backends on the server's cores took most of the CPU its requests cost), over its measured steps."""
        from bench import selfcheck

        steps = [r for ramp in self.ramps for r in ramp.steps if r.ok and not r.void_reasons and not r.superseded]
        return selfcheck.backend_bound(steps + [r for r in self.cost_steps if r.ok and not r.void_reasons])

    @property
    def void_reasons(self) -> list[str]:
        return self.ramp_void_reasons + self.backend_bound

    @property
    def void(self) -> bool:
        """Not ranked: the ramp ended on the tool or the backend (its capacity is a lower bound), or the cell is
        backend-bound (its capacity is the stack's and its backend's together)."""
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

    def backend_cost_at(self, rate: float) -> float | None:
        """The local backends' CPU µs per request where the server's cost was measured near rate (cost_at), the
        median over those steps; None for a route without a backend, or backends not started here."""
        near = self.cost_rate(rate)
        steps = [r for r in self.cost_steps if r.rate == near and r.ok and not r.void_reasons] or \
            [r for r in self.curve() if r.rate == near and r.slo_held and not r.void_reasons]
        cpu = [1000 * r.backend_cpu_per_request_ms for r in steps
               if getattr(r, "backend_cpu_per_request_ms", None) is not None]
        return statistics.median(cpu) if cpu else None

    def pss_at(self, rate: float) -> float | None:
        """The server's peak PSS (MB, shared pages split among its processes: bench/run/sampler.py) at the rate its
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


def tool_limit(results: list, protocol: str = "h1", cores: int | None = None,
               operation: str | None = None) -> float | None:
    """The load tool's own limit on a protocol (and, where given, with the server on that many cores: the
    cores axis; and against that calibration operation: hello for vegeta, ws-echo for wsload) in this run: its
    calibration ramp's capacity (None: not measured)."""
    cal = [c for c in capacities(results, mode="calibration")
           if c.protocol == protocol and (cores is None or c.server_cores == cores)
           and (operation is None or c.operation == operation)]
    values = [c.capacity for c in cal if c.capacity]
    return max(values) if values else None


def tool_limits(results: list) -> dict[tuple[str, int | None, str], float | None]:
    """(protocol, server cores, calibration operation) -> the load tool's own limit measured there."""
    measured = dict.fromkeys((c.protocol, c.server_cores, c.operation) for c in capacities(results, mode="calibration"))
    return {key: tool_limit(results, *key) for key in measured}


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
        if cap.ramp_void_reasons:  # a backend-bound cell is the placement's doing, not the machine's
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
