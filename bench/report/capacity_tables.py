"""The capacity sections of the report (bench/report/model.py's Report.capacities) as table cells: each stack's
capacity within the SLO with the cost per request at the common rate, and every step of the ramps
(the whole curve). bench/report/tables.py places them first; only formatting here.
"""
from __future__ import annotations

from bench.capacity import tally
from servers.core import catalog

NOTE = ("Capacity: the highest offered rate at which the step held the SLO (latency counted from each "
        "request's intended send time, so a stall cannot hide behind a waiting load tool), from an "
        "open-loop ramp: a geometric ladder, a failing rung measured again, then bisection. interval: the "
        "min–max of the repeats' capacities (every repeat climbs the same ladder, so the repeats are independent: "
        "say min–max of 3, not a confidence interval), or with one ramp the bracket between the rate that held "
        "and the first that did not. The common rate is "
        f"{tally.COMMON_FRACTION:.0%} of the slowest capacity of the operation, a rate every stack holds; "
        "cpu µs/req (the server's whole process tree) and RSS are each stack's in one step at that rate, run "
        "after every ramp (measured at: the common rate; where that step did not run, the stack's held ramp "
        "step nearest to it), the cost of a request. A void capacity is a lower bound: above it the load tool (its core busy, or past its own "
        "limit against a trivial server) or the backend was the bound, not the stack; it is not ranked.")


AXIS_NOTE = (
    "Each stack on every protocol it was measured on (harness.protocols): h1 plaintext HTTP/1.1, h1-tls HTTP/1.1 over "
    "TLS terminated by its own server, h2 HTTP/2 over that TLS (ALPN), h2c HTTP/2 in cleartext (prior knowledge); a "
    "server that cannot serve one is left out of it (the plan says why). capacity/s: the open loop's (vegeta; over "
    "HTTP/2 its workers' requests are streams of one connection, Go's HTTP/2 transport opening another only at the "
    "server's stream limit), a ≥ is a lower bound (void: the tool or the backend was the bound); cpu µs/req: the "
    "server's whole process tree at the operation's common rate, one rate for every protocol. The load tool's own "
    "limit is measured on each protocol (its TLS and its HTTP/2 framing cost it CPU too) and each cell is voided "
    "against its own protocol's.")

PROTOCOLS_NOTE = (
    "Each stack against plaintext HTTP/1.1 (h1) on another protocol: HTTP/1.1 over TLS terminated by its own server "
    "(h1-tls, the suite's local certificate, ECDSA P-256), HTTP/2 over that TLS (h2) or in cleartext (h2c). capacity: as "
    "in the answers (a ≥ is a lower bound). cpu µs/req: the server's whole process tree in one step at the operation's "
    "common rate, the same rate on every protocol; kept: connections kept alive; new conn: a connection per request "
    "(--close), so each request pays a TCP connection and, over TLS, a handshake (over HTTP/2 also its preface and "
    "SETTINGS). extra per request: what a request costs more than on h1 on a kept connection (for h1-tls the record "
    "layer's encryption; for h2c the HTTP/2 framing and HPACK, negative where it costs less); extra per connection: "
    "what a new connection costs more beyond that (over TLS, the handshake): (new conn - h1 new conn) - (extra per "
    "request); a server without keep-alive opens a connection per request in both passes, so all its extra is per "
    "connection (the kept pass's). Differences of two steps on a shared machine: read small ones as noise.")


def _rate(value: float | None) -> str:
    return "–" if value is None else f"{value:,.0f}"


def _stack(c) -> str:
    return f"`{c.label}`" + (" **dev-only**" if getattr(c.first, "dev_only", False) else "")


def _interval(interval) -> str:
    return f"{interval[0]:,.0f}–{interval[1]:,.0f}" if interval else "–"


def _named(s) -> str:
    return f"`{s.label}`"


def _capacity(s) -> str:
    """A ranked capacity; ≥ one that is a lower bound (the ramp ended on the tool or the backend's ceiling); a
    backend-bound one is what the stack and its backend held together on shared cores."""
    lower_bound = [w for w in s.void_reasons if w not in getattr(s, "backend_bound", ())]
    if lower_bound:
        return f"≥ {_rate(s.value)}"
    return f"{_rate(s.value)} (backend-bound)" if getattr(s, "backend_bound", ()) and s.value else _rate(s.value)


def verdict(a) -> list[str]:
    """The answer of one operation in a few sentences (Markdown inline), read off the model."""
    out = []
    if a.ranked:
        chain = _named(a.ranked[0]) + f" {_rate(a.ranked[0].value)}/s"
        for link in a.links:
            chain += (" ≈ " if link.tie else " > ") + _named(link.lower) + f" {_rate(link.lower.value)}/s"
        legend = " (>: the intervals are apart; ≈: they overlap, a tie)" if any(l.tie for l in a.links) else ""
        out.append(f"Ranked by capacity: {chain}{legend}.")
        for chain in _tie_chains(a.links):
            names = [_named(s) for s in chain]
            out.append(f"A tie, not an order: {', '.join(names[:-1])} and {names[-1]} overlap"
                       + (" each with its neighbour" if len(names) > 2 else "") + " (their stacks' 'ties with' "
                       "names every overlap).")
        if a.links and not any(link.tie for link in a.links):
            out.append("No tie: each interval is apart from the next (>).")
    suspect = [s for s in a.ranked if s.suspect_foreign_cpu_pct is not None]
    if suspect:
        out.append("May hold more (the miss that decided the capacity ran while other processes took this share "
                   "of the machine): " + ", ".join(f"{_named(s)} ({s.suspect_foreign_cpu_pct:.0f}%)" for s in suspect)
                   + ".")
    for s in a.void:
        lower_bound = [w for w in s.void_reasons if w not in s.backend_bound]
        if not lower_bound:
            held = f"held {_rate(s.value)}/s" if s.value else "held no rate it was offered"
            out.append(f"Backend-bound, not ranked: {_named(s)} {held} with its backend on the server's cores: "
                       f"{'; '.join(s.backend_bound)}.")
            continue
        foreign = (f"; foreign load {s.void_foreign_cpu_pct:.0f}% of the machine at that step"
                   if s.void_foreign_cpu_pct is not None else "")
        out.append(f"Void, not ranked: {_named(s)} held {_capacity(s)}/s, a lower bound: "
                   f"{'; '.join(s.void_reasons)}{foreign}.")
    for s in a.none_held:
        out.append(f"{_named(s)} held no rate it was offered within the SLO.")
    unverified = [s for s in a.standings if s.verification == "unverified"]
    if unverified:
        out.append(("Unverified (no complete conformance and reliability run in its record, records/): "
                    if len(unverified) < len(a.standings) else "Every stack here is unverified (no complete "
                    "conformance and reliability run in its record, records/): ")
                   + ", ".join(_named(s) for s in unverified) + ".")
    costs = a.by_cost
    if costs and a.common_rate:
        elsewhere = [s for s in costs if s.cost_rate != a.common_rate]
        backends = any(s.backend_cpu_us is not None for s in costs)
        out.append(f"Cost per request at {_rate(a.common_rate)}/s, a rate every stack held (server CPU"
                   + ("; the local backends' own CPU per request beside it" if backends else "") + "): "
                   + ", ".join(_cost(s) for s in costs) + "."
                   + (" Measured at the stack's nearest held step instead (no step ran at the common rate): "
                      + ", ".join(f"{_named(s)} {_rate(s.cost_rate)}/s" for s in elsewhere) + "."
                      if elsewhere else ""))
    out += go_sentences(a)
    if a.placement:
        out.append("Placement: " + ", ".join(f"{piece} on cpu {','.join(map(str, cpus))}" if cpus else
                                             f"{piece} elsewhere" for piece, cpus in a.placement)
                   + f"; it measures {a.measures}.")
    return out


def go_sentences(a) -> list[str]:
    """The answer's ratio to Go, and how it was computed (answers.go_ratios): capacity only between cells that hold,
    else server CPU per request at the common rate."""
    from bench.report.answers import _is_go

    r = a.go
    if r is None:
        return []
    out = []
    left_out = (" Left out (void: bound by the tool or the backend, on either side): "
                + ", ".join(_named(s) for s in r.left_out) + "." if r.left_out else "")
    if r.go is not None and r.capacity:
        out.append(f"Ratio to Go, capacity over {_named(r.go)}'s {_rate(r.go.value)}/s, from the cells that are not "
                   "void (a backend-bound or tool-bound cell is neither numerator nor denominator): "
                   + ", ".join(f"{_named(s)} {ratio:.2f}" for s, ratio in r.capacity) + "." + left_out)
    else:
        go_void = [f"{_named(s)} {'backend-bound' if s.backend_bound else 'void'}" for s in r.left_out if _is_go(s)]
        why = (f"no Go cell holds ({', '.join(go_void)})" if go_void else "no Go cell held a rate") \
            if r.go is None else "no other stack's cell is ranked"
        out.append(f"No capacity ratio to Go from this run: {why}.{left_out}")
    if r.cost:
        out.append(f"Server CPU per request against Go's at {_rate(r.cost_go.cost_rate)}/s ({_named(r.cost_go)} "
                   f"{r.cost_go.cpu_us:,.0f} µs; the stack's own cost, which a backend-bound cell still measures): "
                   + ", ".join(f"{_named(s)} {ratio:.2f} of Go's speed ({s.cpu_us:,.0f} µs)" for s, ratio in r.cost)
                   + ".")
    return out


def _cost(s) -> str:
    ratio = f" ({s.cost_ratio:.1f}x)" if s.cost_ratio and s.cost_ratio >= 1.05 else ""
    backends = f" + backends {s.backend_cpu_us:,.0f} µs" if s.backend_cpu_us is not None else ""
    return f"{_named(s)} {s.cpu_us:,.0f} µs{ratio}{backends}"


def _tie_chains(links) -> list[list]:
    """The runs of neighbours that overlap in turn: [[a, b, c], ...] for a ≈ b ≈ c."""
    chains, current = [], []
    for link in links:
        if link.tie:
            current = current or [link.upper]
            current.append(link.lower)
        elif current:
            chains.append(current)
            current = []
    return chains + ([current] if current else [])


def answer_cells(a, caveats) -> tuple[list[str], list[list]]:
    """The table of one operation's answer; caveats(texts) is the collapsed cell of a stack's caveats."""
    backend = catalog.backend_of(a.operation) is not None
    # a backend route's headline is the server's CPU per request, the backends' own beside it
    cpu = ["server cpu µs/req", "backends cpu µs/req"] if backend else ["cpu µs/req"]
    header = ["rank", "stack", "capacity/s", "interval", "ramps", *cpu, "measured at", "rss MB", "pss MB",
              "ties with", "void", "verified", "caveats"]
    lines = []
    for s in a.standings:
        c = s.capacity
        costs = ["–" if s.cpu_us is None else f"{s.cpu_us:,.0f}"] + (
            ["–" if s.backend_cpu_us is None else f"{s.backend_cpu_us:,.0f}"] if backend else [])
        interval = _interval(s.interval) + (f" ({s.interval_kind})" if s.interval else "")
        lines.append([str(s.rank) if s.rank else "–", _stack(c), _capacity(s), interval,
                      str(len(c.ramps)), *costs,
                      _rate(s.cost_rate), "–" if s.rss_mb is None else f"{s.rss_mb:,.1f}",
                      "–" if s.pss_mb is None else f"{s.pss_mb:,.1f}",
                      ", ".join(f"`{t}`" for t in s.ties) or "–", "; ".join(s.void_reasons) or "–",
                      s.verification or "–", caveats(s.caveats)])
    return header, lines


def _us(value: float | None, signed: bool = False) -> str:
    return "–" if value is None else f"{value:+,.0f}" if signed else f"{value:,.0f}"


def protocol_cells(report) -> tuple[list[str], list[list[str]]]:
    """Each stack and operation on h1 and on another protocol, side by side (the model's ProtocolCost)."""
    header = ["stack", "op", "vs", "capacity/s h1", "capacity/s", "ratio", "measured at", "cpu µs/req h1 kept",
              "cpu µs/req kept", "extra µs/req", "cpu µs/req h1 new conn", "cpu µs/req new conn", "extra µs/conn"]
    lines = []
    for p in report.protocol_costs:
        b, o = p.base.standing, p.other.standing
        per_request = _us(p.extra_us_per_request, signed=True) if p.keeps_alive else "– (no keep-alive)"
        lines.append([f"`{p.entrypoint}`" + (" **dev-only**" if p.dev_only else ""), p.operation, p.other.protocol,
                      _capacity(b), _capacity(o), "–" if p.capacity_ratio is None else f"{p.capacity_ratio:.2f}x",
                      _rate(p.common_rate), _us(b.cpu_us), _us(o.cpu_us), per_request,
                      _us(p.base.close_cpu_us), _us(p.other.close_cpu_us),
                      _us(p.extra_us_per_connection, signed=True)])
    return header, lines


def axis_cells(report) -> tuple[list[str], list[list[str]]]:
    """The protocol as an axis: per stack and operation, capacity and cpu µs/req on each protocol (answers.AxisRow)."""
    from bench.report.answers import PROTOCOL_ORDER

    shown = [p for p in PROTOCOL_ORDER if any(p in row.cells for row in report.protocol_axis)]
    header = ["stack", "op", "measured at", *(f"capacity/s {p}" for p in shown), *(f"cpu µs/req {p}" for p in shown)]
    lines = []
    for row in report.protocol_axis:
        cap = [_capacity(row.cells[p]) if p in row.cells else "–" for p in shown]
        cpu = [_us(row.cells[p].cpu_us) if p in row.cells else "–" for p in shown]
        lines.append([f"`{row.entrypoint}`" + (" **dev-only**" if row.dev_only else ""), row.operation,
                      _rate(row.common_rate), *cap, *cpu])
    return header, lines


def curve_cells(report) -> tuple[list[str], list[list[str]]]:
    header = ["stack", "op", "ramp", "step", "offered/s", "sent/s", "achieved/s", "p50 ms", "p90 ms", "p99 ms",
              "p99.9 ms", "errors", "non-2xx", "cpu µs/req", "rss MB", "tool cpu %", "verdict"]
    lines = []
    several_counts = len({c.server_cores for c in report.capacities}) > 1  # the cores axis: say each row's
    for c in report.capacities:
        cores = c.server_cores
        named = _stack(c) + (f" ({cores} core{'s' if cores > 1 else ''})" if several_counts and cores else "")
        for r in c.curve():
            lat = r.latency_ms
            verdict = ("void: " + "; ".join(r.void_reasons)) if r.void_reasons else \
                "held" if r.slo_held else "missed: " + "; ".join(r.slo_misses)
            lines.append([named, c.operation, str(r.repeat + 1), r.phase, _rate(r.rate), _rate(r.sent_rate),
                          _rate(r.requests_per_s), *(_ms(lat.get(k)) for k in ("p50", "p90", "p99", "p99.9")),
                          f"{r.errors_total:,}", f"{r.non_2xx:,}",
                          "–" if r.cpu_per_request_ms is None else f"{1000 * r.cpu_per_request_ms:,.0f}",
                          "–" if r.server_peak_rss_mb is None else f"{r.server_peak_rss_mb:,.1f}",
                          "–" if r.tool_cpu_pct is None else f"{r.tool_cpu_pct:.0f}", verdict])
    return header, lines


def _ms(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value:.3f}" if value < 1 else f"{value:.2f}" if value < 100 else f"{value:,.0f}"


def context(report) -> list[str]:
    """Lines for the report's header: the SLO, the tool's own limit."""
    if not report.capacities:
        return []
    websocket = any(c.operation in catalog.WS_OPERATIONS for c in report.capacities)
    lines = [f"- capacity SLO: {report.capacities[0].slo.describe()}; open loop with vegeta (a fixed pool of "
             "workers)" + ("; WebSocket echoes with wsload's echo-rate (64 connections)" if websocket else "") +
             ", latency from each request's intended send time"]
    limits = report.tool_limits or {("h1", None, "hello"): None}
    several = len({cores for _, cores, _ in limits}) > 1
    for (protocol, cores, operation), limit in limits.items():
        where = protocol + (f", the server on {cores} core{'s' if cores > 1 else ''}" if several and cores else "")
        tool = "wsload" if operation in catalog.WS_OPERATIONS else "vegeta"
        lines.append(f"- load tool's own limit on {where} ({tool}): {limit:,.0f}/s held against Go net/http "
                     f"{operation}; cells above it are void" if limit else
                     f"- load tool's own limit on {where} ({tool}): not measured")
    return lines
