"""The report's answer: per operation (and protocol, and server cores), the stacks ranked by capacity within
the SLO, neighbours apart or tied, their cost per request at the common rate, against Go; and each stack on
every protocol it was measured on, side by side. Read off the capacities (bench/capacity/tally.py) by
bench/report/model.py's build(), and by matches.py and the free-threading comparison.
"""
from __future__ import annotations

from dataclasses import dataclass

from harness import pinning
from servers.core import catalog

from bench.capacity import tally
from bench.capacity.tally import Capacity
from bench.report.conditions import verification


BASE_PROTOCOL = "h1"  # what every other protocol is compared with (harness.protocols.DEFAULT)


# -- the answer: per operation, the stacks ranked by capacity within the SLO --------------------------
@dataclass(frozen=True)
class Standing:
    """One stack's place in its operation's answer."""

    capacity: Capacity
    rank: int | None  # 1, 2, ... among the ranked stacks; None: void (a lower bound) or no rate held
    value: float | None  # capacity/s (a lower bound when void)
    interval: tuple[float, float] | None  # min-max over the ramps, or the one ramp's bracket
    ties: tuple[str, ...]  # the ranked stacks whose interval overlaps this one's (a tie with each)
    void_reasons: tuple[str, ...]
    cost_rate: float | None  # where its cost was measured: the common rate (else its nearest held step)
    cpu_us: float | None  # server CPU µs per request there
    rss_mb: float | None
    cost_ratio: float | None  # cpu_us / the cheapest stack's cpu_us (a void one's cost at a held rate counts)
    dev_only: bool
    caveats: tuple[str, ...]  # the catalog's known limitations of the stack
    verification: str  # "verified", "unverified", or "" where the run does not know
    # what other processes took of the machine (tally.ForeignLoad): at its void steps (a void cell),
    # at the miss that decided its capacity when that was FOREIGN_SUSPECT_PCT or more (it may hold more)
    void_foreign_cpu_pct: float | None = None
    suspect_foreign_cpu_pct: float | None = None
    pss_mb: float | None = None  # the server's peak PSS where its cost was measured (shared pages counted once)
    backend_cpu_us: float | None = None  # the local backends' CPU µs per request there, beside the server's cpu_us
    backend_bound: tuple[str, ...] = ()  # why the cell measures its backend as much as its stack (in void_reasons too)
    # what shared the server's cores in its steps (harness/pinning.sharing: the load tool, its route's backend): a
    # cell with any is marked, and never compared on scaling nor threads against processes (bench/free_threading/comparison.py)
    shared_cores: tuple[str, ...] = ()
    interval_kind: str = ""  # what the interval is: "min–max of 3 repeats", "one ramp: held–missed" (Capacity's)

    @property
    def entrypoint(self) -> str:
        return self.capacity.entrypoint

    @property
    def label(self) -> str:
        """The stack as its answer names it: the entry, with its interpreter where not its own (bench/labels.py)."""
        return self.capacity.label


@dataclass(frozen=True)
class Link:
    """Two neighbours of a ranking: apart (their intervals do not overlap) or a tie (they do)."""

    upper: Standing
    lower: Standing
    tie: bool


@dataclass(frozen=True)
class Answer:
    """An operation's answer: its stacks ranked by capacity, neighbours apart or tied, the void and
    the failed stacks, the cost per request at the common rate."""

    operation: str
    slo: str  # the SLO, described
    common_rate: float | None
    standings: tuple[Standing, ...]  # the ranked by capacity, then the void, then those that held no rate
    links: tuple[Link, ...]  # between neighbours of the ranked
    protocol: str = BASE_PROTOCOL  # every stack of one answer was measured on this protocol
    cores: int | None = None  # ... with the server on this many cores, where the run had a cores axis
    go: "GoRatios | None" = None  # the stacks against Go, from the cells that hold (None: no Go stack, or no other)
    placement: tuple[tuple[str, tuple[int, ...]], ...] = ()  # (piece, its cores) of its first stack's steps
    measures: str = ""  # what that placement can measure (harness/pinning.measures)

    @property
    def key(self) -> str:
        """The answer's name among a report's: its operation, with its protocol unless plaintext HTTP/1.1 and its
        server cores where the run compared several counts."""
        key = self.operation if self.protocol == BASE_PROTOCOL else f"{self.operation} {self.protocol}"
        return key + (f", {self.cores} server core{'s' if self.cores > 1 else ''}" if self.cores else "")

    @property
    def ranked(self) -> tuple[Standing, ...]:
        return tuple(s for s in self.standings if s.rank is not None)

    @property
    def void(self) -> tuple[Standing, ...]:
        return tuple(s for s in self.standings if s.void_reasons)

    @property
    def none_held(self) -> tuple[Standing, ...]:
        return tuple(s for s in self.standings if s.rank is None and not s.void_reasons)

    @property
    def by_cost(self) -> tuple[Standing, ...]:
        return tuple(sorted((s for s in self.standings if s.cpu_us is not None), key=lambda s: s.cpu_us))


def overlap(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """Whether two capacity intervals overlap (a tie). Touching is apart: a one-ramp bracket runs from
    the rate that held up to the first that failed, so a stack that held 1,000/s is above one that
    failed at 1,000/s."""
    return a == b or (a[0] < b[1] and b[0] < a[1])


def _span(c: Capacity) -> tuple[float, float] | None:
    """The interval of a capacity, a point where it has none (a tie is said only where these overlap)."""
    return c.interval or ((c.capacity, c.capacity) if c.capacity is not None else None)


def _cell(c: Capacity) -> tuple:
    """A capacity's identity across the model's lists (the same entry on two interpreters is two cells)."""
    return (c.entrypoint, c.operation, c.protocol, c.interpreter, c.server_cores, c.first.workers)


@dataclass(frozen=True)
class GoRatios:
    """An answer's stacks against Go, from cells that hold: capacity over the fastest ranked Go stack's, only
    between ranked cells (a void one, bound by the tool or its backend, is neither numerator nor denominator);
    where no Go stack is ranked, server CPU per request at the common rate over Go's instead (the stack's own
    cost, which a backend-bound cell still measures), and why."""

    go: Standing | None  # the denominator: the fastest ranked Go stack (None: none is ranked)
    capacity: tuple[tuple[Standing, float], ...]  # (a ranked stack of another language, its capacity / Go's)
    cost_go: Standing | None  # the cheapest Go stack with a server CPU per request at the common rate
    cost: tuple[tuple[Standing, float], ...]  # (a stack of another language, Go's CPU per request over its own)
    left_out: tuple[Standing, ...]  # the void cells of either side, left out of the capacity ratio


def _is_go(s: Standing) -> bool:
    entry = catalog.BY_NAME.get(s.entrypoint)
    return entry is not None and entry.language == "go"


def go_ratios(standings: list[Standing]) -> GoRatios | None:
    """An answer's ratios to Go (GoRatios), None where it has no Go stack or no other."""
    go = [s for s in standings if _is_go(s)]
    others = [s for s in standings if not _is_go(s)]
    if not go or not others:
        return None
    ranked_go = [s for s in go if s.rank is not None]
    top = ranked_go[0] if ranked_go else None
    capacity_ratios = tuple((s, s.value / top.value) for s in others
                            if top is not None and s.rank is not None and s.value and top.value)
    costed_go = sorted((s for s in go if s.cpu_us), key=lambda s: s.cpu_us)
    cost_go = costed_go[0] if costed_go else None
    cost = tuple((s, cost_go.cpu_us / s.cpu_us) for s in others
                 if cost_go is not None and s.cpu_us and s.cost_rate == cost_go.cost_rate)
    return GoRatios(top, capacity_ratios, cost_go, cost, tuple(s for s in standings if s.void_reasons))


def answer(operation: str, group: list[Capacity], common: float | None,
           foreign: tally.ForeignLoad | None = None, cores: int | None = None) -> Answer:
    ranked = sorted((c for c in group if c.capacity is not None and not c.void), key=lambda c: -c.capacity)
    rest = sorted((c for c in group if c.void), key=lambda c: -(c.capacity or 0)) + \
        sorted((c for c in group if c.capacity is None and not c.void), key=lambda c: c.label)
    costs = {_cell(c): c.cost_at(common) if common else (None, None, None) for c in group}
    cheapest = min((cost[1] for cost in costs.values() if cost[1]), default=None)
    void_foreign = {_cell(c): pct for c, pct in (foreign.void_cells if foreign else ())}
    suspect = {_cell(c): pct for c, pct in (foreign.suspect if foreign else ())}
    standings = []
    for c in ranked + rest:
        rank = ranked.index(c) + 1 if c in ranked else None
        ties = tuple(o.label for o in ranked if o is not c and rank is not None and overlap(_span(c), _span(o)))
        rate, cpu, rss = costs[_cell(c)]
        standings.append(Standing(
            capacity=c, rank=rank, value=c.capacity, interval=c.interval, ties=ties,
            void_reasons=tuple(c.void_reasons), cost_rate=rate, cpu_us=cpu, rss_mb=rss,
            cost_ratio=cpu / cheapest if cpu and cheapest else None,
            dev_only=bool(getattr(c.first, "dev_only", False)), caveats=tuple(getattr(c.first, "caveats", ()) or ()),
            verification=verification(c.first),
            void_foreign_cpu_pct=void_foreign.get(_cell(c)),
            suspect_foreign_cpu_pct=suspect.get(_cell(c)), pss_mb=c.pss_at(common) if common else None,
            backend_cpu_us=c.backend_cost_at(common) if common else None, backend_bound=tuple(c.backend_bound),
            shared_cores=tuple(dict.fromkeys(w for ramp in c.ramps for r in ramp.steps
                                             for w in getattr(r, "shared_cores", ()) or ())),
            interval_kind=c.interval_kind))
    top = [s for s in standings if s.rank is not None]
    links = tuple(Link(a, b, overlap(_span(a.capacity), _span(b.capacity))) for a, b in zip(top, top[1:]))
    where = getattr(group[0].first, "placement", None) or {}
    shared = list(dict.fromkeys(w for s in standings for w in s.shared_cores))
    return Answer(operation, group[0].slo.describe(), common, tuple(standings), links, group[0].protocol, cores,
                  go_ratios(standings), tuple((piece, tuple(cpus)) for piece, cpus in where.items()),
                  pinning.measures(shared) if where else "")


def answers(caps: list[Capacity], common_rates: dict[str, float | None],
            foreign: tally.ForeignLoad | None = None) -> list[Answer]:
    """One Answer per operation, protocol and number of server cores (stacks are ranked within a protocol and
    a core count), in the catalog's order of the operations, plaintext HTTP/1.1 first, fewer cores first; the
    common rate is the operation's, every protocol's and core count's."""
    groups = tally.by_operation(caps)
    order = [op for op in catalog.ALL_OPS if op in groups] + sorted(set(groups) - set(catalog.ALL_OPS))
    several_counts = len({c.server_cores for c in caps}) > 1
    out = []
    for op in order:
        by_place: dict[tuple, list[Capacity]] = {}
        for c in sorted(groups[op], key=lambda c: (c.protocol != BASE_PROTOCOL, c.server_cores or 0)):
            by_place.setdefault((c.protocol, c.server_cores if several_counts else None), []).append(c)
        out += [answer(op, group, common_rates.get(op), foreign, cores) for (_, cores), group in by_place.items()]
    return out


# -- protocols side by side: what TLS and HTTP/2 cost or save each stack --------------------------------
@dataclass(frozen=True)
class OnProtocol:
    """One stack's figures for one operation on one protocol."""

    protocol: str
    standing: Standing  # its capacity and its cost at the common rate on kept connections (its answer's)
    close_cpu_us: float | None  # server CPU µs per request at the common rate, a connection per request (--close)


@dataclass(frozen=True)
class ProtocolCost:
    """A stack and operation on another protocol against plaintext HTTP/1.1, at one common rate: the
    capacity ratio, and the server CPU a request costs more on a kept connection (the record layer's
    crypto, for TLS) and a new connection costs more (its handshake: what the extra of a connection per
    request exceeds the kept connection's by)."""

    entrypoint: str
    operation: str
    common_rate: float | None
    base: OnProtocol  # h1
    other: OnProtocol
    capacity_ratio: float | None  # other / base, where both are ranked (void capacities are lower bounds)
    extra_us_per_request: float | None  # other's cpu µs/req - base's, kept connections (None: the server keeps none)
    extra_us_per_connection: float | None  # (other's - base's with a connection per request) - the kept extra
    # the server keeps connections alive (the catalog's Entry.keepalive; True for a stack it does not know):
    # one that closes after every response pays a new connection in both passes, so all its extra is per connection
    keeps_alive: bool = True

    @property
    def dev_only(self) -> bool:
        return self.base.standing.dev_only


def protocol_costs(all_answers: list[Answer]) -> list[ProtocolCost]:
    """Each stack and operation measured on plaintext HTTP/1.1 and on another protocol, side by side."""
    on: dict[tuple, dict[str, OnProtocol]] = {}
    for a in all_answers:
        for s in a.standings:
            close = s.capacity.close_cost_at(a.common_rate) if a.common_rate else None
            on.setdefault((s.entrypoint, a.operation, s.capacity.interpreter, a.cores), {})[a.protocol] = \
                OnProtocol(a.protocol, s, close)
    out = []
    for (entrypoint, operation, _, _), sides in on.items():
        base = sides.get(BASE_PROTOCOL)
        if base is None:
            continue
        for protocol, other in sides.items():
            if protocol == BASE_PROTOCOL:
                continue
            b, o = base.standing, other.standing
            kept = o.cpu_us - b.cpu_us if o.cpu_us is not None and b.cpu_us is not None and o.cost_rate == b.cost_rate \
                else None
            close = (other.close_cpu_us - base.close_cpu_us
                     if other.close_cpu_us is not None and base.close_cpu_us is not None else None)
            ranked = b.rank is not None and o.rank is not None and b.value and o.value
            entry = catalog.BY_NAME.get(entrypoint)
            keeps_alive = entry.keepalive if entry is not None else True
            if keeps_alive:
                per_request, per_connection = kept, close - kept if close is not None and kept is not None else None
            else:  # both passes open a connection per request: every extra microsecond is the connection's
                per_request, per_connection = None, kept if kept is not None else close
            out.append(ProtocolCost(entrypoint, operation, b.cost_rate, base, other,
                                    o.value / b.value if ranked else None, per_request, per_connection, keeps_alive))
    return out


PROTOCOL_ORDER = ("h1", "h1-tls", "h2", "h2c")  # harness.protocols' axis, as the report's columns


@dataclass(frozen=True)
class AxisRow:
    """One stack and operation on every protocol it was measured on: the protocol as an axis."""

    entrypoint: str
    operation: str
    common_rate: float | None
    cells: dict[str, Standing]  # protocol -> its standing there (capacity, cost at the common rate)

    @property
    def dev_only(self) -> bool:
        return next(iter(self.cells.values())).dev_only


def protocol_axis(all_answers: list[Answer]) -> list[AxisRow]:
    """Each stack and operation measured on two or more protocols, its cells in PROTOCOL_ORDER."""
    cells: dict[tuple[str, str], dict[str, Standing]] = {}
    rates: dict[str, float | None] = {}
    for a in all_answers:
        rates[a.operation] = a.common_rate
        for s in a.standings:
            cells.setdefault((s.entrypoint, a.operation), {})[a.protocol] = s
    order = {p: i for i, p in enumerate(PROTOCOL_ORDER)}
    return [AxisRow(entrypoint, operation, rates.get(operation),
                    dict(sorted(by.items(), key=lambda kv: order.get(kv[0], len(order)))))
            for (entrypoint, operation), by in cells.items() if len(by) > 1]


