"""The report model: results aggregated once into rows that carry every derived value.

build(results) folds the runs of each configuration into a Row (medians over the repeats, their
spread, errors summed, the share of the backend's ceiling, the noise flags), ranks the stacks of
each configuration with the significance of each step (Pair), groups the failures, and sums up the
session (machine, tools, noise). Its parts stand beside it: answers.py (each operation's stacks
ranked by capacity, the protocols side by side), conditions.py (where and how the runs were measured, and
whether the machine was quiet); matches.py matches the rows of two result sets. The renderers
(bench/report/: tables.py, results_md.py, report_html.py, charts.py, compare.py) only lay this out:
they compute nothing. A new column is one field of Row, computed in derive(), and shown by one
line of a table's columns in bench/report/tables.py.

"The same configuration" is defined once, by Config: runs of one Config are repeats of each other.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass, field, fields, replace

from servers.core import catalog

from bench import labels, selfcheck
from bench.capacity import tally
from bench.capacity.tally import Capacity
from bench.report import significance
from bench.report.answers import Answer, AxisRow, ProtocolCost, answers, protocol_axis, protocol_costs
from bench.report.conditions import Quiet, Session, quietness, session
from bench.report.significance import Verdict
from bench.schema import ERROR_KINDS, LATENCY_KEYS, Result


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
    cpu_per_request_ms: float | None  # median: the server's CPU per request, the headline of a backend route
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
    backend_cpu_per_request_ms: float | None = None  # median: the local backends' CPU per request, beside the server's

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
        void_reasons=tuple(dict.fromkeys([*(w for r in ok for w in r.void_reasons),
                                          *selfcheck.backend_bound([r for r in ok if not r.void_reasons])])),
        backend_cpu_per_request_ms=_median(getattr(r, "backend_cpu_per_request_ms", None) for r in ok),
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
    # capacity within the SLO (bench/capacity/tally.py): each stack's ramps per operation, the rate of each
    # operation every stack held (where the cost per request is compared), the load tool's own limit
    capacities: tuple[Capacity, ...] = ()
    common_rates: dict[str, float | None] = field(default_factory=dict)
    # (protocol, server cores, calibration operation) -> the tool's own limit
    tool_limits: dict[tuple[str, int | None, str], float | None] = field(default_factory=dict)
    answers: tuple[Answer, ...] = ()  # the report's opening: per operation (and protocol), the stacks ranked by capacity
    foreign: tally.ForeignLoad | None = None  # what other processes took of the machine, and what it cost
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
    caps = tally.capacities([r for r in results if r.loop == "open"])
    common_rates = {op: tally.common_rate(group) for op, group in tally.by_operation(caps).items()}
    foreign = tally.foreign_load([r for r in results if r.loop == "open" or not r.mode])
    all_answers = answers(caps, common_rates, foreign)
    return Report(session=session(results), rows=tuple(everything), closed=tuple(closed),
                  opened=tuple(r for r in everything if r.config.loop == "open" and r.ok and not r.config.mode),
                  pairs=tuple(ranked_pairs(closed)), route_pairs=tuple(route_pairs(closed)),
                  repeated=any(len(r.rps_values) >= 2 for r in closed), failures=tuple(failures(everything)),
                  capacities=tuple(caps), tool_limits=tally.tool_limits(results), common_rates=common_rates,
                  answers=tuple(all_answers), foreign=foreign, protocol_costs=tuple(protocol_costs(all_answers)),
                  protocol_axis=tuple(protocol_axis(all_answers)),
                  quiet=quietness(results))


