"""The free-threading comparison read off a run's results model (bench/report/model.py): docs/free-threading.md's table
and what it says to pick, computed here once; bench/free_threading/document.py only lays it out.

A run of `./bench.sh --preset free-threading` measures each free-threaded stack (an _ft entry on CPython 3.13t, or
3.14t with FT_VERSION=3.14) beside its base entry on the GIL twin (CPython 3.13 with the GIL, the same source, flags and package versions:
servers/core/interpreters.py) and on the default interpreter, on each operation and number of server cores.
build() pairs them (Match: the free-threaded side against the twin, the default beside), checks that the run
compared like with like (Controlled: each process said it ran on the interpreter asked, the twin and 3.13t
share their release and every package version) and on a quiet machine (conditions.Quiet), and picks, per kind of
route and core count, what to run (Pick). `conclusive` is what the page's renderer checks before it says
anything is better: a shared or uncontrolled run is shown, never read.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from harness import pinning
from servers.adapters.sizing import THREADS_PER_WORKER
from servers.core import catalog, interpreters

from bench.report import answers, conditions
from bench.report.answers import Standing
from bench.report.conditions import Quiet
from bench.report.model import Report

PAGE_OPS = ("fortunes",)  # a page like TechEmpower's fortunes: a query, a sort, a template
LIGHT_OPS = ("hello", "json")  # light routes: microseconds of Python per request
ROUTES = (("a page like fortunes", PAGE_OPS), ("light routes (hello, json)", LIGHT_OPS))
CHEAPER = 0.9  # a tie on capacity is decided by CPU per request where one costs under this share of the other


def builds(label: str) -> dict[str, str]:
    """A pick's build in words, for the free-threaded build of that label ('3.14t')."""
    return {"free-threaded": f"{label} (free-threaded)", "gil": f"{label.removesuffix('t')} (GIL twin)"}


def ft_label(interpreter: str) -> str:
    """'3.13t', '3.14t': how the page names a free-threaded side's build."""
    return interpreters.get(interpreter).label


@dataclass(frozen=True)
class Side:
    """One stack of the comparison: an entry on one interpreter, one operation, one number of server cores."""

    standing: Standing  # its capacity, interval, cost at the common rate (bench/report/answers.py)
    interpreter: str  # the key it was run on
    said: str  # what its process said it runs on (interpreters.describe), "?" when it said nothing
    layout: str  # "1 process x 16 threads", "2 processes x 16 threads", "1 process, 2 worker threads x 16"
    workers: int | None
    pss_per_worker_mb: float | None  # the stack's PSS over its workers
    mb_per_1000: float | None  # PSS per 1,000 req/s of its capacity: memory per served rate

    @property
    def label(self) -> str:
        return self.standing.label

    @property
    def ranked(self) -> bool:
        return self.standing.rank is not None

    @property
    def build(self) -> str:
        """'free-threaded' or 'gil' (the twin and the default alike)."""
        return "free-threaded" if interpreters.get(self.interpreter).free_threaded else "gil"


@dataclass(frozen=True)
class Match:
    """One server on one operation and core count: its free-threaded stack against its GIL twin, the default
    interpreter beside; the ratios are free-threaded / twin."""

    server: str
    operation: str
    cores: int | None
    free_threaded: Side | None
    twin: Side | None
    default: Side | None
    capacity_ratio: float | None  # both ranked (a void capacity is a lower bound)
    apart: bool | None  # their capacity intervals do not overlap (None: either missing or void)
    cpu_ratio: float | None  # CPU per request at the common rate
    pss_ratio: float | None  # memory at equal cores
    shared: tuple[str, ...] = ()  # what shared the server's cores on either side (harness/pinning.sharing)

    @property
    def per_request_cost(self) -> bool:
        """One process on one core on both sides: what it measures is the free-threaded build's cost per request,
        not threads against processes (there are no other cores for threads to use)."""
        return self.cores == 1

    @property
    def isolated(self) -> bool:
        """Whether this placement can compare threads of one process against processes: on 2+ cores, only with
        the server's cores its own (no load tool, no backend of its route on them)."""
        return self.per_request_cost or not self.shared

    @property
    def kind(self) -> str:
        if self.per_request_cost:
            return "per-request cost"
        return "threads against processes" if self.isolated else "not isolated"

    @property
    def verdict(self) -> str:
        """'3.13t ahead' (3.14t, ...), 'the twin ahead', 'a tie', or why there is no verdict."""
        if self.free_threaded is None or self.twin is None:
            return "one side missing"
        if not self.isolated:
            return (f"void, not isolated: the server shared its cores with the {' and the '.join(self.shared)}, so "
                    f"threads against processes is not measured")
        if self.apart is None:
            return "no verdict (void or no rate held)"
        if not self.apart:
            return "a tie"
        return f"{ft_label(self.free_threaded.interpreter)} ahead" if (self.capacity_ratio or 0) > 1 \
            else "the GIL twin ahead"


@dataclass(frozen=True)
class Pick:
    """What to run for one kind of route on one number of server cores, and why, from the table."""

    routes: str  # ROUTES' words
    cores: int | None
    build: str  # "free-threaded", "gil" or "" (no pick)
    stack: Side | None  # the stack to run (None: no pick)
    # "capacity" (apart from the other build's best); on a tie "cpu" or "memory"; "" no pick: nothing held a
    # rate, ("void") a stack the load tool or the backend bounded may hold more than the best ranked one, or
    # ("not isolated") the server shared its cores with the load tool or a backend on 2+ cores
    decided_by: str
    against: Side | None  # the other build's best
    default_ahead: Side | None  # the default interpreter's best where it holds more, apart from the pick
    operations: tuple[str, ...]  # the operations that agree on it
    disagree: tuple[tuple[str, str], ...] = ()  # (operation, its own pick's stack) where they do not
    void: tuple[Side, ...] = ()  # the bounded stacks that leave it undecided (decided_by "void")
    shared: tuple[str, ...] = ()  # what shared the server's cores (decided_by "not isolated")
    isolates: str = ""  # ... and the machine that would isolate it (harness/pinning.what_isolates)


@dataclass(frozen=True)
class Controlled:
    """Whether the run compared like with like."""

    same: bool
    reasons: tuple[str, ...]  # what differed: an interpreter its process did not confirm, a package version
    versions: tuple[tuple[str, str, str], ...]  # (package, the twin's version, 3.Xt's): the page's table


@dataclass(frozen=True)
class FreeThreading:
    report: Report
    matches: tuple[Match, ...]
    picks: tuple[Pick, ...]
    quiet: Quiet
    controlled: Controlled
    core_counts: tuple[int | None, ...]
    pinning: dict  # server cores -> the pinning's words (harness/pinning.py)

    @property
    def conclusive(self) -> bool:
        """Whether the table may be read: a quiet machine, like compared with like, something measured."""
        return self.quiet.quiet and self.controlled.same and bool(self.matches)

    @property
    def refusals(self) -> tuple[str, ...]:
        """Why the table may not be read ((): it may)."""
        out = [*self.quiet.reasons, *self.controlled.reasons]
        if not self.matches:
            out.append("the run holds no free-threaded stack beside its GIL twin (run the free-threading preset)")
        return tuple(out)

    @property
    def label(self) -> str:
        """The free-threaded build this run compared ('3.13t', '3.14t'; the current lane's without a match)."""
        keys = [m.free_threaded.interpreter for m in self.matches if m.free_threaded is not None]
        return ft_label(keys[0] if keys else interpreters.FREE_THREADED)


def _layout(entry: catalog.Entry | None, workers: int | None, pool: int | None = None) -> str:
    """How a stack's requests are served: its processes and threads (pool: the pool threads it was started with,
    RunSpec.server_options, where not the suite's THREADS_PER_WORKER)."""
    if entry is None or workers is None:
        return "?"
    threads = f" x {pool or THREADS_PER_WORKER} threads"
    if entry.free_threaded and entry.server_spec.free_threaded_thread_workers:
        return f"1 process, {workers} worker thread{'s' if workers > 1 else ''}{threads}"
    if entry.free_threaded:
        return f"1 process{threads}" if workers == 1 else f"{workers} processes{threads}"
    if entry.model == "threads" and entry.server == "gunicorn-gthread":
        return f"{workers} process{'es' if workers > 1 else ''}{threads}"
    return f"{workers} process{'es' if workers > 1 else ''}" + (threads if entry.model == "threads" else "")


def _side(s: Standing) -> Side:
    first = s.capacity.first
    entry = catalog.BY_NAME.get(s.entrypoint)
    workers = first.workers
    facts = getattr(first, "interpreter_facts", None) or {}
    pss = s.pss_mb
    pool = dict(getattr(first, "server_options", None) or {}).get("threads")
    return Side(s, s.capacity.interpreter or (entry.interpreter if entry else ""),
                interpreters.describe(facts) if facts else "?", _layout(entry, workers, pool), workers,
                pss / workers if pss is not None and workers else None,
                1000 * pss / s.value if pss is not None and s.value and s.rank is not None else None)


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def _match(server: str, operation: str, cores: int | None, sides: list[Side]) -> Match:
    by = {}
    for side in sides:
        role = ("free_threaded" if side.build == "free-threaded" else
                "default" if side.interpreter == interpreters.GIL else "twin")
        by.setdefault(role, side)
    ft, twin = by.get("free_threaded"), by.get("twin")
    both = ft is not None and twin is not None and ft.ranked and twin.ranked
    apart = (not answers.overlap(answers._span(ft.standing.capacity), answers._span(twin.standing.capacity))
             if both else None)
    shared = tuple(dict.fromkeys(w for side in (ft, twin) if side is not None for w in side.standing.shared_cores))
    return Match(server, operation, cores, ft, twin, by.get("default"),
                 _ratio(ft.standing.value, twin.standing.value) if both else None, apart,
                 _ratio(ft.standing.cpu_us, twin.standing.cpu_us) if ft and twin else None,
                 _ratio(ft.standing.pss_mb, twin.standing.pss_mb) if ft and twin else None, shared)


def _best(sides: list[Side]) -> Side | None:
    ranked = sorted((s for s in sides if s.ranked), key=lambda s: -s.standing.value)
    return ranked[0] if ranked else None


def _op_pick(matches: list[Match]) -> tuple[Side | None, str, Side | None, Side | None, tuple[Side, ...]]:
    """(the stack to run, what decided it, the other build's best, the default's best where it holds more, the
    void stacks that leave it undecided) for one operation and core count: the highest capacity of the two
    builds ("capacity"); where the other build's best ties with it (their intervals overlap), the cheaper in CPU
    per request ("cpu"), or in memory where their CPU is within CHEAPER of each other ("memory"). No pick
    ("void") where a stack bounded by the load tool or the backend held as much as the best ranked one: it may
    hold more."""
    controlled = [s for m in matches for s in (m.free_threaded, m.twin) if s is not None]
    top = _best(controlled)
    if top is None:
        return None, "", None, None, ()
    void = tuple(s for s in controlled if s.standing.void_reasons and (s.standing.value or 0) >= top.standing.value)
    if void:
        return None, "void", top, None, void
    span = answers._span
    tie = [top, *(s for s in controlled if s.ranked and s is not top
                  and answers.overlap(span(top.standing.capacity), span(s.standing.capacity)))]
    pick, decided = top, "capacity"
    by_cpu = sorted((s for s in tie if s.standing.cpu_us is not None), key=lambda s: s.standing.cpu_us)
    if len({s.build for s in tie}) > 1 and by_cpu:
        pick, decided = by_cpu[0], "cpu"
        close = len(by_cpu) > 1 and by_cpu[0].standing.cpu_us > CHEAPER * by_cpu[1].standing.cpu_us
        if close and all(s.standing.pss_mb is not None for s in by_cpu[:2]):
            pick, decided = min(by_cpu[:2], key=lambda s: s.standing.pss_mb), "memory"
    against = _best([s for s in controlled if s.build != pick.build])
    default = _best([m.default for m in matches if m.default is not None])
    ahead = (default if default is not None and default.standing.value > pick.standing.value
             and not answers.overlap(span(default.standing.capacity), span(pick.standing.capacity)) else None)
    return pick, decided, against, ahead, ()


def _picks(matches: list[Match], core_counts: tuple[int | None, ...]) -> list[Pick]:
    picks = []
    for words, ops in ROUTES:
        for cores in core_counts:
            here = [m for m in matches if m.operation in ops and m.cores == cores]
            shared = tuple(dict.fromkeys(w for m in here if not m.isolated for w in m.shared))
            if shared:  # threads against processes on cores the server did not have to itself: not measured
                picks.append(Pick(words, cores, "", None, "not isolated", None, None,
                                  tuple(dict.fromkeys(m.operation for m in here if not m.isolated)), shared=shared,
                                  isolates=pinning.what_isolates(cores or 1)))
                continue
            per_op = {op: _op_pick([m for m in matches if m.operation == op and m.cores == cores]) for op in ops}
            undecided = {op: p for op, p in per_op.items() if p[1] == "void"}
            if undecided:  # one route the load tool bounded leaves the kind of route undecided
                op, (_, _, best, _, void) = next(iter(undecided.items()))
                picks.append(Pick(words, cores, "", None, "void", best, None, tuple(undecided), void=void))
                continue
            per_op = {op: p for op, p in per_op.items() if p[0] is not None}
            if not per_op:
                picks.append(Pick(words, cores, "", None, "", None, None, ()))
                continue
            pick, decided, against, ahead, _ = next(iter(per_op.values()))
            agree = tuple(op for op, p in per_op.items() if p[0].label == pick.label)
            disagree = tuple((op, p[0].label) for op, p in per_op.items() if p[0].label != pick.label)
            picks.append(Pick(words, cores, pick.build, pick, decided, against, ahead, agree, disagree))
    return picks


def _controlled(matches: list[Match]) -> Controlled:
    reasons: list[str] = []
    versions: dict[str, tuple[str, str]] = {}
    differ: dict[tuple[str, str, str], list[str]] = {}  # (package, twin's, 3.Xt's) -> the entries
    label = "the free-threaded build"
    for m in matches:
        for side in (m.free_threaded, m.twin, m.default):
            if side is None:
                continue
            facts = getattr(side.standing.capacity.first, "interpreter_facts", None) or {}
            if not facts:
                why = f"{side.label}: its process did not say what it ran on"
            elif mismatch := interpreters.mismatch(side.interpreter, facts):
                why = f"{side.label}: {mismatch}"
            elif side.build == "free-threaded" and facts.get("gil") != "off":
                why = f"{side.label}: the GIL was on at its start"
            else:
                why = ""
            if why and why not in reasons:
                reasons.append(why)
        if m.free_threaded is None or m.twin is None:
            continue
        label = ft_label(m.free_threaded.interpreter)
        ft = dict(getattr(m.free_threaded.standing.capacity.first, "versions", None) or {})
        twin = dict(getattr(m.twin.standing.capacity.first, "versions", None) or {})
        ft["python"] = ft.get("python", "").removesuffix("t")
        for package in sorted(set(ft) | set(twin)):
            pair = (twin.get(package, "missing"), ft.get(package, "missing"))
            versions.setdefault(package, pair)
            if pair[0] != pair[1]:
                entries = differ.setdefault((package, *pair), [])
                if m.twin.standing.entrypoint not in entries:
                    entries.append(m.twin.standing.entrypoint)
    reasons += [f"{package} {twin} on the GIL twin, {ft} on {label} ({', '.join(entries)})"
                for (package, twin, ft), entries in differ.items()]
    return Controlled(not reasons, tuple(reasons),
                      tuple((package, twin, ft) for package, (twin, ft) in sorted(versions.items())))


def build(report: Report) -> FreeThreading:
    """The comparison of a run: its matches (every operation, core count and server with a free-threaded stack),
    the picks, and the checks that decide whether any of it may be read."""
    sides: dict[tuple, list[Side]] = {}
    for a in report.answers:
        for s in a.standings:
            entry = catalog.BY_NAME.get(s.entrypoint)
            if entry is None or entry.language != "python":
                continue
            base = s.entrypoint.removesuffix(interpreters.ENTRY_SUFFIX)
            sides.setdefault((a.operation, s.capacity.server_cores, entry.server, base), []).append(_side(s))
    order = {op: i for i, op in enumerate((*PAGE_OPS, *LIGHT_OPS, *catalog.ALL_OPS))}
    matches = [_match(server, op, cores, group) for (op, cores, server, _), group in
               sorted(sides.items(), key=lambda kv: (order.get(kv[0][0], 99), kv[0][1] or 0, kv[0][2]))
               if any(s.build == "free-threaded" for s in group)]
    core_counts = tuple(dict.fromkeys(m.cores for m in sorted(matches, key=lambda m: m.cores or 0)))
    pinning = {}
    for c in report.capacities:
        pinning.setdefault(c.server_cores, getattr(c.first, "pinning", {}) or {})
    return FreeThreading(report, tuple(matches), tuple(_picks(matches, core_counts)),
                         report.quiet or conditions.quietness([]), _controlled(matches), core_counts, pinning)


def newest_run(results_dir: Path, preset: str = "free-threading") -> Path | None:
    """The newest results.jsonl under results_dir written by that preset, or None."""
    from bench import schema

    for path in sorted(results_dir.glob("*/results.jsonl"), key=lambda p: p.stat().st_mtime, reverse=True):
        try:
            first = next(schema.iter_results(path), None)
        except (OSError, ValueError):
            continue
        if first is not None and first.preset == preset:
            return path
    return None

