"""Where and how a run's results were measured (the report's header): the machine, the tools, the
noise probe's readings, the stacks' verification and interpreters; and one verdict on the machine,
quiet or shared, that the report, its noise line and the free-threading page all say.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from servers.core import catalog, interpreters

from bench.schema import Result


def verification(r: Result) -> str:
    """What the run recorded of the stack's verification record (servers/core/records.py, through the
    catalog's tags): "unverified" while it lacks a complete conformance and reliability run; "" for
    results without the catalog's tags (a --target run, a hand-made result)."""
    if not r.tags:
        return ""
    return catalog.UNVERIFIED if catalog.UNVERIFIED in r.tags else "verified"


# -- the session ----------------------------------------------------------------------------------
PROBE_KEYS = (("cpu_ms", "cpu loop"), ("loopback_ms", "loopback requests"))  # bench/noise.py's readings


@dataclass(frozen=True)
class Noise:
    """What the noise probe (bench/noise.py) saw over the session."""

    probes: dict[str, tuple[float, float, float]]  # what -> (min, median, max) ms of its readings
    steal: tuple[float, float] | None  # CPU steal during runs, min and max %
    noisy: int  # runs flagged noisy
    probed: int  # runs with a probe reading
    threshold_pct: float | None
    reruns: int  # noisy runs measured again (--rerun-noisy), left out of the rows


def noise(results: list[Result]) -> Noise | None:
    probed = [r for r in results if r.probe_before]
    if not probed:
        return None
    probes = {}
    for key, what in PROBE_KEYS:
        values = [p[key] for r in probed for p in (r.probe_before, r.probe_after) if p and p.get(key) is not None]
        if values:
            probes[what] = (min(values), statistics.median(values), max(values))
    steal = [r.steal_pct for r in probed if r.steal_pct is not None]
    return Noise(probes, (min(steal), max(steal)) if steal else None, sum(1 for r in probed if r.noisy),
                 len(probed), probed[0].noise_threshold_pct, sum(1 for r in results if r.superseded))


@dataclass(frozen=True)
class Session:
    """Where and how the results were measured: the report's header."""

    machine: dict
    pinning: dict
    tools: tuple[str, ...]  # "wrk 4.2.0", each once
    runs: int
    first_run: str  # timestamps ("" when the results carry none)
    last_run: str
    target: str
    preset: str
    repeats: int  # the most repeats of a configuration
    rounds_order: str
    noise: Noise | None
    dev_only: tuple[str, ...]  # the dev-only stacks
    caveats: dict[str, tuple[str, ...]]  # stack -> the catalog's known limitations
    unverified: tuple[str, ...] = ()  # stacks without a complete conformance and reliability record (their tag)
    # the interpreters the servers ran on, as their processes said: key -> "3.13.5 (GIL)", ... (interpreters.describe)
    interpreters: dict[str, str] = field(default_factory=dict)


def session(results: list[Result]) -> Session:
    first = results[0]
    when = sorted(r.timestamp for r in results if r.timestamp)
    return Session(
        machine=first.machine, pinning=first.pinning,
        tools=tuple(sorted({f"{r.tool} {r.tool_version}".strip() for r in results})), runs=len(results),
        first_run=when[0] if when else "", last_run=when[-1] if when else "", target=first.target,
        preset=first.preset, repeats=max(r.repeats for r in results),
        rounds_order=next((r.rounds_order for r in results if r.rounds_order), ""), noise=noise(results),
        dev_only=tuple(sorted({r.entrypoint for r in results if r.dev_only})),
        caveats=dict(sorted({r.entrypoint: tuple(r.caveats) for r in results if r.caveats}.items())),
        unverified=tuple(sorted({r.entrypoint for r in results if verification(r) == catalog.UNVERIFIED})),
        interpreters=interpreters_seen(results))


def interpreters_seen(results: list[Result]) -> dict[str, str]:
    """key -> what the servers said they ran on (a key whose processes said different things lists each)."""
    seen: dict[str, list[str]] = {}
    for r in results:
        facts = getattr(r, "interpreter_facts", None)
        if r.interpreter and facts:
            said = interpreters.describe(facts)
            if said not in seen.setdefault(r.interpreter, []):
                seen[r.interpreter].append(said)
    return {key: " / ".join(said) for key, said in seen.items()}


# -- a quiet machine or a shared one ---------------------------------------------------------------------
# One rule for the machine, from both of what a run reads of it: the foreign load its steps recorded (CPU of
# processes that are not the benchmark, its tool, the server or the local backends) and the noise probe around
# its closed-loop runs (bench/noise.py: a fixed loop and loopback requests timed before and after). A run had the
# machine to itself when others took at most QUIET_MEDIAN_PCT of all cores in the median step and no more than
# QUIET_HIGH_SHARE of its runs were disturbed: others took QUIET_HIGH_PCT or more there, or the noise probe moved
# more than its threshold (a cron job, not a neighbour's benchmark). A report never prints "quiet" beside a
# noisy count above that share: both say this one verdict. On this project's 2-core VM alone the median step
# saw 0-2 % (system daemons); shared with other sessions, 30-80 %, and the probe moved past 15 % in 42 of 63 runs.
QUIET_MEDIAN_PCT = 5.0
QUIET_HIGH_PCT = 20.0
QUIET_HIGH_SHARE = 0.05


@dataclass(frozen=True)
class Quiet:
    """Whether a run had the machine to itself (the rule above), and what it rests on."""

    quiet: bool
    measured: int  # steps with a foreign-load reading
    median_pct: float | None  # the median step's foreign load, % of all cores
    high_share: float | None  # the share of steps where it was QUIET_HIGH_PCT or more
    reasons: tuple[str, ...]  # why it was not quiet ("" for a quiet run)
    probed: int = 0  # runs with a noise-probe reading
    noisy: int = 0  # ... whose probe moved more than its threshold
    threshold_pct: float | None = None  # the probe's threshold

    @property
    def read(self) -> bool:
        """Whether anything was read of the machine (a foreign load or a probe)."""
        return bool(self.measured or self.probed)

    def describe(self) -> str:
        """The verdict in one line: the report's, the noise line's and the free-threading page's."""
        if self.quiet:
            probe = (f", and the noise probe moved more than {self.threshold_pct:g}% in {self.noisy} of {self.probed} "
                     f"runs" if self.probed else "")
            return f"quiet (others took at most a few percent of it{probe})"
        return "**shared** with other work: " + "; ".join(self.reasons)


def quietness(results: list[Result]) -> Quiet:
    """The run's verdict on its machine: a run without foreign-load readings is not known to be quiet."""
    kept = [r for r in results if not r.superseded]
    seen = [r.foreign_cpu_pct for r in kept if getattr(r, "foreign_cpu_pct", None) is not None]
    probed = [r for r in kept if r.probe_before and r.probe_moved_pct is not None]
    noisy = sum(1 for r in probed if r.noisy)
    threshold = probed[0].noise_threshold_pct if probed else None
    facts = dict(probed=len(probed), noisy=noisy, threshold_pct=threshold)
    reasons = []
    if probed and noisy / len(probed) > QUIET_HIGH_SHARE:
        reasons.append(f"the noise probe moved more than {threshold:g}% in {noisy} of {len(probed)} runs (quiet: at "
                       f"most {100 * QUIET_HIGH_SHARE:g}%)")
    if not seen:
        reasons.append("no step recorded the foreign load (a run older than the reading, or none ran): not known to "
                       "be quiet")
        return Quiet(False, 0, None, None, tuple(reasons), **facts)
    median = statistics.median(seen)
    high = sum(1 for pct in seen if pct >= QUIET_HIGH_PCT) / len(seen)
    if median > QUIET_MEDIAN_PCT:
        reasons.append(f"other processes took {median:.0f}% of the machine in the median step (quiet: at most "
                       f"{QUIET_MEDIAN_PCT:g}%)")
    if high > QUIET_HIGH_SHARE:
        reasons.append(f"{100 * high:.0f}% of the steps ran while others took {QUIET_HIGH_PCT:g}% or more (quiet: at "
                       f"most {100 * QUIET_HIGH_SHARE:g}%)")
    return Quiet(not reasons, len(seen), median, high, tuple(reasons), **facts)


