"""The report model: results aggregated once into rows that carry every derived value.

build(results) folds the runs of each configuration into a Row (medians over the repeats, their
spread, errors summed, the share of the backend's ceiling, the noise flags), ranks the stacks of
each configuration with the significance of each step (Pair), groups the failures, and sums up the
session (machine, tools, noise). compare(a, b) matches the rows of two result sets. The renderers
(bench/report_tables.py, results_md.py, report_html.py, charts.py, compare.py) only lay this out:
they compute nothing. A new column is one field of Row, computed in derive(), and shown by one
line of a table's columns in bench/report_tables.py.

"The same configuration" is defined once, by Config: runs of one Config are repeats of each other.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass, field, fields, replace
from typing import Callable

from servers.core import catalog, interpreters

from bench import capacity, labels, significance
from bench.capacity import Capacity
from bench.schema import ERROR_KINDS, LATENCY_KEYS, Result
from bench.significance import Verdict


@dataclass(frozen=True)
class Config:
    """What was run: a stack (entry and its workers), a route, a load, and the session's labels.

    The same configuration everywhere: a Row is a Config's repeats; two stacks are ranked, and two
    stacks of one file compared, on the Config without its stack; two files are compared on the
    Config without the session's labels (what tells the two sessions apart is what is compared).
    """

    entrypoint: str
    workers: int | None
    operation: str
    tool: str
    loop: str  # "closed" or "open"
    connections: int | None
    threads: int | None
    rate: float | None
    keepalive: bool
    target: str
    preset: str
    mode: str  # "" a fixed load; "capacity"/"calibration" a step of a ramp (Report.capacities)
    protocol: str = "h1"  # h1, h1-tls, h2, h2c (harness.protocols): stacks are ranked within one protocol
    streams: int | None = None  # HTTP/2 streams per connection of a closed loop (h2load -m); None: one
    interpreter: str = ""  # what the server ran on (servers/core/interpreters.py): the interpreter axis
    server_cores: int | None = None  # the server's cores (the cores axis): stacks are ranked within one count

    @classmethod
    def of(cls, r: Result) -> "Config":
        return cls(**{f.name: getattr(r, f.name) for f in fields(cls)})

    def without_stack(self) -> "Config":
        return replace(self, entrypoint="", workers=None, interpreter="")

    def without_session(self) -> "Config":
        return replace(self, target="", preset="")

    @property
    def load(self) -> str:
        if self.loop == "open":  # a capacity ramp that failed before its first step has no rate
            return f"{self.rate:g}/s" if self.rate is not None else "ramp"
        return (f"c={self.connections}" + (f" m={self.streams}" if self.streams and self.streams > 1 else "")
                + (f" t={self.threads}" if self.tool == "wrk" and self.threads else ""))

    @property
    def connection(self) -> str:
        return "keep-alive" if self.keepalive else "close"

    @property
    def stack(self) -> str:
        """How tables and charts name a row's stack (bench/labels.py): the entry, with its interpreter where not its
        own, its protocol unless plaintext HTTP/1.1."""
        return labels.stack(self.entrypoint, self.protocol, self.interpreter)


BASE_PROTOCOL = "h1"  # what every other protocol is compared with (harness.protocols.DEFAULT)


def _median(values) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


@dataclass(frozen=True)
class Row:
    """One configuration's runs and every value the reports show of it (ok runs only, unless said)."""

    config: Config
    results: tuple[Result, ...]  # every run, failed ones too (runs superseded by --rerun-noisy left out)
    dev_only: bool
    caveats: tuple[str, ...]
    n: int  # runs
    failed: int  # runs that failed
    failures: tuple[str, ...]  # their reasons, each once
    rps: float | None  # median requests/s over the repeats
    rps_values: tuple[float, ...]  # the repeats' requests/s: what the significance of a difference rests on
    rps_range: tuple[float, float] | None  # min, max
    spread_pct: float | None  # (max - min) / median of requests/s, in percent (2+ repeats)
    latency: dict[str, float | None]  # median of each latency key, ms
    success_ratio: float | None  # median
    cpu_per_request_ms: float | None  # median
    peak_rss_mb: float | None  # the largest
    errors: dict[str, int]  # by kind, summed over every run
    errors_total: int
    non_2xx: int  # summed over every run
    ceiling_rps: float | None  # what the backend alone served at this concurrency (backends.ceiling)
    ceiling_share: float | None  # rps / ceiling_rps
    noisy: int  # runs whose noise probe moved more than its threshold
    # the self-check (bench/selfcheck.py): why the stack was not the bound of some run (void: shown,
    # never ranked), the tool's own CPU (% of its cores), the connections open, rate x mean latency
    void_reasons: tuple[str, ...]
    tool_cpu_pct: float | None  # median
    connections_open: float | None  # median
    in_flight: float | None  # median of rate x mean latency (Little's law: ~ the connections, x the streams)

    @property
    def coordinated_omission(self) -> bool:
        """Closed loop (wrk, ab, hey, locust, h2load): a connection (a stream) sends its next request only after the last
        answer, so a stall delays the requests it should have timed and its percentiles understate the
        tail (wrk's are its own after-the-run estimate). Marked in tables and charts, never a capacity."""
        return self.config.loop == "closed"

    @property
    def ok(self) -> bool:
        return self.n > self.failed

    @property
    def void(self) -> bool:
        return bool(self.void_reasons)


def derive(config: Config, results: list[Result]) -> Row:
    """The Row of one configuration's runs: each derived value computed here, once."""
    ok = [r for r in results if r.ok]
    first = results[0]
    rps_values = tuple(r.requests_per_s for r in ok if r.requests_per_s is not None)
    rps = _median(rps_values)
    rps_range = (min(rps_values), max(rps_values)) if rps_values else None
    spread = 100.0 * (rps_range[1] - rps_range[0]) / rps if rps and len(ok) >= 2 else None
    errors = {k: sum(r.errors.get(k, 0) for r in results) for k in ERROR_KINDS}
    rss = [r.server_peak_rss_mb for r in ok if r.server_peak_rss_mb is not None]
    ceiling = (first.backend_ceiling or {}).get("requests_per_s") or None
    return Row(
        config=config, results=tuple(results), dev_only=first.dev_only, caveats=tuple(first.caveats),
        n=len(results), failed=len(results) - len(ok),
        failures=tuple(dict.fromkeys(r.failure for r in results if not r.ok)),
        rps=rps, rps_values=rps_values, rps_range=rps_range, spread_pct=spread,
        latency={k: _median(r.latency_ms.get(k) for r in ok) for k in LATENCY_KEYS},
        success_ratio=_median(r.success_ratio for r in ok),
        cpu_per_request_ms=_median(r.cpu_per_request_ms for r in ok),
        peak_rss_mb=max(rss) if rss else None,
        errors=errors, errors_total=sum(errors.values()), non_2xx=sum(r.non_2xx for r in results),
        ceiling_rps=ceiling, ceiling_share=rps / ceiling if ceiling and rps is not None else None,
        noisy=sum(1 for r in ok if r.noisy),
        void_reasons=tuple(dict.fromkeys(w for r in ok for w in r.void_reasons)),
        tool_cpu_pct=_median(r.tool_cpu_pct for r in ok), connections_open=_median(r.connections_open for r in ok),
        in_flight=_median(r.littles_ratio * r.connections * (r.streams or 1)
                          for r in ok if r.littles_ratio and r.connections))


def rows(results: list[Result]) -> list[Row]:
    """One Row per configuration, in the order the configurations first appear.

    Runs superseded by a --rerun-noisy repeat are left out (they stay in results.jsonl).
    """
    grouped: dict[Config, list[Result]] = {}
    for r in results:
        if not r.superseded:
            grouped.setdefault(Config.of(r), []).append(r)
    return [derive(config, runs) for config, runs in grouped.items()]


@dataclass(frozen=True)
class Pair:
    """A stack against the next slower one of the same configuration: verdict of faster / slower req/s."""

    faster: Row
    slower: Row
    verdict: Verdict


def ranked_pairs(closed: list[Row]) -> list[Pair]:
    """For every closed-loop configuration run by 2+ stacks: each stack against the next slower one
    (n-1 lines per configuration instead of every pair)."""
    groups: dict[Config, list[Row]] = {}
    for row in closed:
        if row.rps is not None and not row.void:  # a void row is shown, never ranked
            groups.setdefault(row.config.without_stack(), []).append(row)
    pairs = []
    for group in groups.values():
        ranked = sorted(group, key=lambda row: row.rps, reverse=True)
        for faster, slower in zip(ranked, ranked[1:]):
            pairs.append(Pair(faster, slower, significance.ratio_of_medians(slower.rps_values, faster.rps_values)))
    return pairs


@dataclass(frozen=True)
class Failure:
    """The failed runs of one stack, tool, load and reason: its operations on one line."""

    entrypoint: str  # the stack: the entry, with its protocol unless plaintext HTTP/1.1
    dev_only: bool
    operations: tuple[str, ...]
    tool: str
    load: str
    connection: str
    failed: int
    total: int
    why: str


def failures(all_rows: list[Row]) -> list[Failure]:
    grouped: dict[tuple, list[Row]] = {}
    for row in all_rows:
        if row.failed:
            c = row.config
            grouped.setdefault((c.stack, c.tool, c.load, c.connection, "; ".join(row.failures)), []).append(row)
    return [Failure(entrypoint, group[0].dev_only, tuple(dict.fromkeys(r.config.operation for r in group)),
                    tool, load, conn, sum(r.failed for r in group), sum(r.n for r in group), why)
            for (entrypoint, tool, load, conn, why), group in grouped.items()]


@dataclass(frozen=True)
class RoutePair:
    """One stack's pooled and per-request route of a backend, at one load."""

    backend: str
    pooled: Row
    per_request: Row
    ratio: float  # pooled / per-request requests/s


def route_pairs(closed: list[Row]) -> list[RoutePair]:
    pairs = []
    for backend in catalog.BACKENDS:
        pooled_op, per_request_op = catalog.POOLED_PAIRS[backend]
        by_config: dict[Config, dict[str, Row]] = {}
        for row in closed:
            if row.rps and not row.void and row.config.operation in (pooled_op, per_request_op):
                by_config.setdefault(replace(row.config, operation=""), {})[row.config.operation] = row
        pairs += [RoutePair(backend, two[pooled_op], two[per_request_op], two[pooled_op].rps / two[per_request_op].rps)
                  for two in by_config.values() if len(two) == 2]
    return pairs


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
    # what other processes took of the machine (capacity.ForeignLoad): at its void steps (a void cell),
    # at the miss that decided its capacity when that was FOREIGN_SUSPECT_PCT or more (it may hold more)
    void_foreign_cpu_pct: float | None = None
    suspect_foreign_cpu_pct: float | None = None
    pss_mb: float | None = None  # the server's peak PSS where its cost was measured (shared pages counted once)

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


def verification(r: Result) -> str:
    """What the run recorded of the stack's verification record (servers/core/records.py, through the
    catalog's tags): "unverified" while it lacks a complete conformance and reliability run; "" for
    results without the catalog's tags (a --target run, a hand-made result)."""
    if not r.tags:
        return ""
    return catalog.UNVERIFIED if catalog.UNVERIFIED in r.tags else "verified"


def _cell(c: Capacity) -> tuple:
    """A capacity's identity across the model's lists (the same entry on two interpreters is two cells)."""
    return (c.entrypoint, c.operation, c.protocol, c.interpreter, c.server_cores, c.first.workers)


def answer(operation: str, group: list[Capacity], common: float | None,
           foreign: capacity.ForeignLoad | None = None, cores: int | None = None) -> Answer:
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
            suspect_foreign_cpu_pct=suspect.get(_cell(c)), pss_mb=c.pss_at(common) if common else None))
    top = [s for s in standings if s.rank is not None]
    links = tuple(Link(a, b, overlap(_span(a.capacity), _span(b.capacity))) for a, b in zip(top, top[1:]))
    return Answer(operation, group[0].slo.describe(), common, tuple(standings), links, group[0].protocol, cores)


def answers(caps: list[Capacity], common_rates: dict[str, float | None],
            foreign: capacity.ForeignLoad | None = None) -> list[Answer]:
    """One Answer per operation, protocol and number of server cores (stacks are ranked within a protocol and
    a core count), in the catalog's order of the operations, plaintext HTTP/1.1 first, fewer cores first; the
    common rate is the operation's, every protocol's and core count's."""
    groups = capacity.by_operation(caps)
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
# What other processes may have taken of the machine in a run that answers a comparison whose differences are
# tens of percent (the free-threading page's): at most QUIET_MEDIAN_PCT of all cores in the median step, and at
# least QUIET_HIGH_PCT in no more than QUIET_HIGH_SHARE of the steps (a cron job, not a neighbour's benchmark).
# On this project's 2-core VM alone the median step saw 0-2 % (system daemons); shared with other sessions,
# 30-80 %.
QUIET_MEDIAN_PCT = 5.0
QUIET_HIGH_PCT = 20.0
QUIET_HIGH_SHARE = 0.05


@dataclass(frozen=True)
class Quiet:
    """Whether a run had the machine to itself, from the foreign load its steps recorded (Result.foreign_cpu_pct:
    CPU of processes that are not the benchmark, its tool, the server or the local backends)."""

    quiet: bool
    measured: int  # steps with a foreign-load reading
    median_pct: float | None  # the median step's foreign load, % of all cores
    high_share: float | None  # the share of steps where it was QUIET_HIGH_PCT or more
    reasons: tuple[str, ...]  # why it was not quiet ("" for a quiet run)


def quietness(results: list[Result]) -> Quiet:
    """The run's verdict on its machine: a run without foreign-load readings is not known to be quiet."""
    seen = [r.foreign_cpu_pct for r in results if not r.superseded and getattr(r, "foreign_cpu_pct", None) is not None]
    if not seen:
        return Quiet(False, 0, None, None, ("no step recorded the foreign load (a run older than the reading, or "
                                            "none ran): not known to be quiet",))
    median = statistics.median(seen)
    high = sum(1 for pct in seen if pct >= QUIET_HIGH_PCT) / len(seen)
    reasons = []
    if median > QUIET_MEDIAN_PCT:
        reasons.append(f"other processes took {median:.0f}% of the machine in the median step (quiet: at most "
                       f"{QUIET_MEDIAN_PCT:g}%)")
    if high > QUIET_HIGH_SHARE:
        reasons.append(f"{100 * high:.0f}% of the steps ran while others took {QUIET_HIGH_PCT:g}% or more (quiet: at "
                       f"most {100 * QUIET_HIGH_SHARE:g}%)")
    return Quiet(not reasons, len(seen), median, high, tuple(reasons))


# -- the report -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Report:
    session: Session | None  # None without results
    rows: tuple[Row, ...]  # every configuration
    closed: tuple[Row, ...]  # closed loop, with an ok run
    opened: tuple[Row, ...]  # open loop, with an ok run
    pairs: tuple[Pair, ...]  # the ranking of the closed-loop stacks, step by step
    route_pairs: tuple[RoutePair, ...]  # pooled against per-request, closed loop
    repeated: bool  # some configuration has 2+ ok repeats: the pairs have intervals
    failures: tuple[Failure, ...]
    # capacity within the SLO (bench/capacity.py): each stack's ramps per operation, the rate of each
    # operation every stack held (where the cost per request is compared), the load tool's own limit
    capacities: tuple[Capacity, ...] = ()
    common_rates: dict[str, float | None] = field(default_factory=dict)
    tool_limits: dict[tuple[str, int | None], float | None] = field(default_factory=dict)  # (protocol, server cores) -> the tool's own limit
    answers: tuple[Answer, ...] = ()  # the report's opening: per operation (and protocol), the stacks ranked by capacity
    foreign: capacity.ForeignLoad | None = None  # what other processes took of the machine, and what it cost
    protocol_costs: tuple[ProtocolCost, ...] = ()  # each stack on h1 and on another protocol, side by side
    protocol_axis: tuple[AxisRow, ...] = ()  # each stack on every protocol it was measured on
    quiet: Quiet | None = None  # whether the run had the machine to itself (None without results)


def build(results: list[Result]) -> Report:
    if not results:
        return Report(session=None, rows=(), closed=(), opened=(), pairs=(), route_pairs=(), repeated=False,
                      failures=())
    everything = rows(results)
    closed = [r for r in everything if r.config.loop == "closed" and r.ok]
    # capacity from open-loop steps only: a closed-loop tool's latency suffers coordinated omission
    caps = capacity.capacities([r for r in results if r.loop == "open"])
    common_rates = {op: capacity.common_rate(group) for op, group in capacity.by_operation(caps).items()}
    foreign = capacity.foreign_load([r for r in results if r.loop == "open" or not r.mode])
    all_answers = answers(caps, common_rates, foreign)
    return Report(session=session(results), rows=tuple(everything), closed=tuple(closed),
                  opened=tuple(r for r in everything if r.config.loop == "open" and r.ok and not r.config.mode),
                  pairs=tuple(ranked_pairs(closed)), route_pairs=tuple(route_pairs(closed)),
                  repeated=any(len(r.rps_values) >= 2 for r in closed), failures=tuple(failures(everything)),
                  capacities=tuple(caps), tool_limits=capacity.tool_limits(results), common_rates=common_rates,
                  answers=tuple(all_answers), foreign=foreign, protocol_costs=tuple(protocol_costs(all_answers)),
                  protocol_axis=tuple(protocol_axis(all_answers)),
                  quiet=quietness(results))


# -- two result sets side by side -----------------------------------------------------------------
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
    caps = capacity.capacities([r for r in results if r.loop == "open"])
    common = {op: capacity.common_rate(group) for op, group in capacity.by_operation(caps).items()}
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
