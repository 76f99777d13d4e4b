"""Capacity within a latency bound: the open-loop step's parse, the SLO, the ramp, the summaries and the
self-checks, on recorded (synthetic) vegeta records; and one real short ramp against Go net/http."""
from __future__ import annotations

import json

import pytest

from bench import selfcheck
from bench.capacity import tally
from bench.capacity.search import Outcome, RampSettings, Slo, run_ramp
from bench.report import model, report_html
from bench.schema import Result
from loadtools.openloop import parse_csv


def record(rows) -> str:
    """`vegeta encode -to csv` lines: timestamp ns, code, latency ns, bytes out, bytes in, error, body,
    attack, seq, method, url, headers."""
    lines = []
    for seq, sent_ns, code, latency_ns, error in rows:
        err = f'"{error}"' if "," in error else error
        lines.append(f"{sent_ns},{code},{latency_ns},0,13,{err},,,{seq},GET,http://127.0.0.1:1/,")
    return "\n".join(lines) + "\n"


def stalled_record(rate=100, seconds=10, stall_at=3.0, stall_s=1.0, service_ms=1.0, workers=1):
    """A server that stalls once, loaded by a pacer with `workers` in flight at most: once the stall
    holds every worker, later hits are sent late (coordinated omission) and answered fast."""
    interval = 1e9 / rate
    t0 = 1_000_000_000_000
    rows, free_at = [], [t0] * workers
    for seq in range(int(rate * seconds)):
        slot = t0 + seq * interval
        w = min(range(workers), key=lambda i: free_at[i])
        sent = max(slot, free_at[w])
        start_s = (sent - t0) / 1e9
        if stall_at <= start_s < stall_at + stall_s:
            latency = (t0 + (stall_at + stall_s) * 1e9) - sent + service_ms * 1e6
        else:
            latency = service_ms * 1e6
        free_at[w] = sent + latency
        rows.append((seq, int(sent), 200, int(latency), ""))
    return record(rows)


def test_latency_counts_from_the_intended_send_time():
    step = parse_csv(stalled_record(), rate=100, duration_s=10)
    # vegeta's own latency (from the late sends) hides the stall: one slow request in a thousand
    assert step.service_ms["p99"] < 5
    # from the intended send, the hundred requests due during the stall waited up to 1 s
    assert step.latency_ms["p99"] >= 900
    assert step.latency_ms["p90"] >= 100
    assert step.send_lag_max_ms >= 900
    assert step.sent == 1000 and step.ok == 1000 and step.success_ratio == 1.0


def test_warmup_is_sent_but_not_counted_and_rates_are_per_window():
    text = record([(seq, 10**12 + seq * 10**7, 200, 2 * 10**6, "") for seq in range(300)])  # 100/s for 3 s
    step = parse_csv(text, rate=100, duration_s=3, warmup_s=1)
    assert step.sent == 200 and step.seconds == 2
    assert step.sent_rate == pytest.approx(100)
    assert step.total_completed == 300
    assert step.latency_ms["p50"] == pytest.approx(2.0)


def test_a_pacer_that_fell_behind_sends_fewer_than_offered():
    # 200/s asked for 2 s, 250 hits went out
    text = record([(seq, 10**12 + seq * 8 * 10**6, 200, 10**6, "") for seq in range(250)])
    step = parse_csv(text, rate=200, duration_s=2)
    assert step.sent_rate == pytest.approx(125)
    assert step.send_lag_max_ms > 700  # hit 249 was due at 1.245 s, sent at 1.992 s


def test_errors_and_non_2xx_count_against_success():
    rows = [(0, 10**12, 200, 10**6, ""), (1, 10**12 + 10**7, 503, 10**6, ""),
            (2, 10**12 + 2 * 10**7, 0, 5 * 10**9, "Get \"http://x\": dial tcp: connection refused"),
            (3, 10**12 + 3 * 10**7, 200, 10**6, "")]
    step = parse_csv(record(rows), rate=100, duration_s=0.04)
    assert (step.ok, step.non_2xx, step.completed) == (2, 1, 3)
    assert step.errors == {"connect": 1}
    assert step.success_ratio == 0.5
    m = step.measurement()
    assert m.non_2xx == 1 and m.errors["connect"] == 1 and m.requests == 3


def test_slo_parse_and_misses():
    slo = Slo.parse("p50=2ms, p99=0.025s,p99.9=100")
    assert dict(slo.bounds) == {"p50": 2.0, "p99": 25.0, "p99.9": 100.0}
    assert slo.misses({"p50": 1.0, "p99": 20.0, "p99.9": 90.0}, 1.0) == []
    assert slo.misses({"p50": 1.0, "p99": 30.0, "p99.9": 90.0}, 1.0) == ["p99 30 ms > 25 ms"]
    assert "success" in slo.misses({"p50": 1.0, "p99": 1.0, "p99.9": 1.0}, 0.998)[0]
    assert Slo.from_dict(slo.as_dict()) == slo
    for bad in ("p98=3ms", "p99", "p99=fast", ""):
        with pytest.raises(ValueError):
            Slo.parse(bad)
    # a step must be long enough for its tightest percentile
    assert RampSettings(step_s=1, tail_samples=10).step_seconds(1000, Slo.parse("p99.9=50ms")) == pytest.approx(10)


def fake_stack(capacity_rate, flaky=(), void_above=None):
    """measure(rate, phase): the SLO holds up to capacity_rate; `flaky` rates fail once first."""
    failed_once, calls = set(), []

    def measure(rate, phase):
        calls.append((rate, phase))
        if void_above and rate > void_above:
            return Outcome(rate, held=False, void=True)
        if rate in flaky and rate not in failed_once:
            failed_once.add(rate)
            return Outcome(rate, held=False)
        return Outcome(rate, held=rate <= capacity_rate)

    return measure, calls


def test_the_ramp_climbs_the_ladder_then_bisects():
    measure, calls = fake_stack(3000)
    out = run_ramp(measure, RampSettings(start_rate=250, resolution=1.1, max_bisections=5, confirm=False))
    assert [r for r, p in calls if p == "ladder"] == [250, 500, 1000, 2000, 4000]
    held = max(o.rate for o in out if o.held)
    failed = min(o.rate for o in out if not o.held)
    assert held <= 3000 < failed and failed / held <= 1.1


def test_a_failing_rung_is_confirmed_and_a_flake_does_not_stop_the_ladder():
    measure, calls = fake_stack(3000, flaky={1000})
    run_ramp(measure, RampSettings(start_rate=250, confirm=True))
    assert (1000, "confirm") in calls and (2000, "ladder") in calls


def test_the_ramp_stops_below_the_tool_limit_and_at_a_void_step():
    measure, calls = fake_stack(10**9)
    run_ramp(measure, RampSettings(start_rate=250, confirm=False), limit=3000)
    assert max(r for r, _ in calls) == 2000
    measure, calls = fake_stack(10**9, void_above=2500)
    out = run_ramp(measure, RampSettings(start_rate=250, confirm=True, max_bisections=2))
    assert any(o.void for o in out) and not any(p == "confirm" for _, p in calls)  # a void step is not retried


def test_a_first_rung_that_fails_goes_down_the_ladder():
    measure, calls = fake_stack(100)
    out = run_ramp(measure, RampSettings(start_rate=500, confirm=False))
    assert [r for r, p in calls if p == "down"][:2] == [250, 125]
    assert max(o.rate for o in out if o.held) <= 100


def step(entry, rate, held, repeat=0, void=(), cpu_ms=0.05, rss=30.0, op="hello", mode="capacity", seq=0):
    return Result(entrypoint=entry, operation=op, tool="vegeta", loop="open", rate=rate, mode=mode,
                  slo_held=held, void_reasons=list(void), cpu_per_request_ms=cpu_ms, server_peak_rss_mb=rss,
                  repeat=repeat, slo=Slo.parse("p99=25ms").as_dict(), sequence=seq)


def test_capacity_interval_common_rate_and_cost_from_the_steps():
    results = [step("a", 500, True), step("a", 1000, True), step("a", 2000, False), step("a", 1400, True),
               step("a", 500, True, repeat=1), step("a", 1000, True, repeat=1), step("a", 2000, True, repeat=1),
               step("a", 4000, False, repeat=1),
               step("b", 500, True, cpu_ms=0.3), step("b", 1000, False), step("b", 710, True),
               step("nethttp", 500, True, mode="calibration"), step("nethttp", 20000, True, mode="calibration")]
    caps = {c.entrypoint: c for c in tally.capacities(results)}
    assert set(caps) == {"a", "b"}
    assert caps["a"].values == [1400, 2000] and caps["a"].capacity == 1700
    assert caps["a"].interval == (1400, 2000)
    assert caps["b"].capacity == 710 and caps["b"].interval == (710, 1000)  # one ramp: its bracket
    # half the slowest capacity (710), and each stack's cost at its held step nearest below it
    assert tally.common_rate(list(caps.values())) == 360
    assert caps["b"].cost_at(360) == (500, 300.0, 30.0)  # none at or below: the lowest held step
    assert caps["a"].cost_at(1200) == (1000, 50.0, 30.0)
    assert tally.tool_limit(results) == 20000


def test_the_cost_is_the_step_at_the_common_rate_once_it_ran():
    results = [step("a", 500, True, cpu_ms=0.05), step("a", 1000, False),
               step("b", 250, True, cpu_ms=0.4), step("b", 500, False)]
    assert tally.common_rate(tally.capacities(results)) == 120
    results += [step("a", 120, True, cpu_ms=0.09, mode="cost", seq=9), step("b", 120, False, cpu_ms=0.5, mode="cost")]
    caps = {c.entrypoint: c for c in tally.capacities(results)}
    assert caps["a"].capacity == 500 and [r.rate for r in caps["a"].curve()] == [500, 1000]  # not a ramp step
    assert caps["a"].cost_at(120) == (120, 90.0, 30.0)
    assert caps["b"].cost_at(120) == (120, 500.0, 30.0)  # measured there, even where a noisy step missed the SLO
    results.append(step("c", 500, True, cpu_ms=0.07))  # a stack whose cost step never ran: its nearest held step
    assert {c.entrypoint: c for c in tally.capacities(results)}["c"].cost_at(120) == (500, 70.0, 30.0)


def test_a_capacity_whose_next_step_was_void_is_a_lower_bound():
    results = [step("a", 500, True), step("a", 1000, True), step("a", 2000, None, void=["load tool saturated"]),
               step("a", 1400, True)]
    (cap,) = tally.capacities(results)
    assert cap.capacity == 1400 and cap.void and cap.void_reasons == ["load tool saturated"]
    results.append(step("a", 1700, False))  # the stack failed below the void step: a real bound
    (cap,) = tally.capacities(results)
    assert cap.capacity == 1400 and not cap.void


def test_void_rules():
    check = selfcheck.Check
    assert selfcheck.void_reasons(check(loop="closed", connections=50, requests_per_s=10000,
                                        mean_latency_ms=5.0)) == []
    why = selfcheck.void_reasons(check(loop="closed", connections=512, requests_per_s=96000,
                                       mean_latency_ms=2.0, connections_open=512, tool_cpu_pct=80))
    assert len(why) == 1 and "Little's law" in why[0]  # 192 in flight for 512 connections, a busy tool
    assert selfcheck.void_reasons(check(loop="closed", connections=512, requests_per_s=96000, mean_latency_ms=2.0,
                                        tool_cpu_pct=20)) == []  # the tool had CPU to spare: not its pace
    assert selfcheck.void_reasons(check(loop="closed", connections=512, requests_per_s=96000, mean_latency_ms=2.0,
                                        error_share=0.2)) == []  # refused connections: the stack's finding
    assert "saturated" in selfcheck.void_reasons(check(loop="closed", tool_cpu_pct=97))[0]
    assert "backend" in selfcheck.void_reasons(check(loop="closed", backend_share=0.93))[0]
    assert "above the load tool's own limit" in selfcheck.void_reasons(
        check(loop="open", offered_rate=30000, sent_rate=30000, tool_limit_rate=20000))[0]
    # behind schedule with the tool's cores busy: the tool; with CPU to spare: the stack held every worker
    assert selfcheck.void_reasons(check(loop="open", offered_rate=4000, sent_rate=3000,
                                        tool_cores_busy_pct=99, tool_cpu_pct=40))
    assert selfcheck.void_reasons(check(loop="open", offered_rate=4000, sent_rate=3000,
                                        tool_cores_busy_pct=50, tool_cpu_pct=40)) == []


def test_watch_counts_the_tools_cpu_and_the_connections_it_opens(tmp_path):
    import socket
    import subprocess
    import sys

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    port = server.getsockname()[1]
    script = (f"import socket,time\ns=[socket.create_connection(('127.0.0.1',{port})) for _ in range(3)]\n"
              "t=time.process_time()\nwhile time.process_time()-t<1.6: pass\n")
    with selfcheck.Watch(f"http://127.0.0.1:{port}", []) as watch:
        subprocess.run([sys.executable, "-c", script], check=True, timeout=30)
    server.close()
    assert watch.result.tool_cpu_s >= 1.0
    assert watch.result.connections_open == 3


@pytest.mark.alone  # the ramp's sent rate and void checks read the machine
def test_a_real_short_ramp_against_go_nethttp(tmp_path):
    from bench.planning.plan import Settings, build
    from bench.run.progress import Progress
    from bench.run.runner import Runner
    from loadtools import get, ToolMissing

    try:
        get("vegeta").binary()
    except ToolMissing as exc:
        pytest.skip(str(exc))
    ramp = RampSettings(start_rate=200, factor=4, max_rate=800, step_s=0.5, warmup_s=0.2, tail_samples=2,
                        max_bisections=1, confirm=False)
    settings = Settings(servers=["nethttp"], ops=["hello"], capacity_only=True, capacity_ops=["hello"],
                        slo="p99=2s", ramp=ramp, noise_probe=False)
    import io
    import re

    from rich.console import Console

    console = Console(file=io.StringIO(), width=300)
    results = Runner(build(settings), tmp_path, Progress(console, live=False)).execute()
    counts = [tuple(map(int, m.groups())) for m in re.finditer(r"^\[(\d+)/(\d+)\]", console.file.getvalue(), re.M)]
    assert counts and all(i <= n for i, n in counts), counts  # the ramp's steps count in N as they come
    modes = [r.mode for r in results]
    assert "calibration" in modes and "capacity" in modes
    # the steps the ramp believed (a void one, or a miss while other processes took the machine, is
    # measured again: the first look is kept, superseded)
    steps = [r for r in results if r.mode == "capacity" and not r.superseded]
    assert all(r.ok for r in steps), [r.failure for r in steps]
    first = steps[0]
    assert first.rate == 200 and first.sent_rate == pytest.approx(200, rel=0.2)
    # up the ladder when the first rung held, down it when it did not (a loaded machine)
    assert steps[1].rate == (800 if first.slo_held else 50)
    assert first.server_cpu_s is not None and first.tool_cpu_s is not None and first.slo["bounds_ms"] == {"p99": 2000}
    (cap,) = tally.capacities(results)
    assert len(cap.ramps) == 1 and [r.rate for r in cap.curve()] == sorted(r.rate for r in steps)
    (cost,) = [r for r in results if r.mode == "cost" and not r.superseded]  # after the ramps, one step at the common rate
    assert cost.rate == tally.common_rate([cap]) and cap.cost_at(cost.rate)[0] == cost.rate
    lines = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert {line["mode"] for line in lines} == {"capacity", "calibration", "cost"}


def closed(entry, rps, void=()):
    return Result(entrypoint=entry, operation="hello", tool="wrk", loop="closed", connections=50,
                  requests=int(rps * 3), requests_per_s=rps, latency_ms={"p99": 5.0, "mean": 2.0},
                  void_reasons=list(void), repeat=0)


def test_void_cells_are_shown_with_their_reason_and_never_ranked():
    from bench.report import model, results_md

    results = [closed("a", 9000), closed("a", 9100), closed("b", 5000), closed("b", 5100),
               closed("c", 20000, void=["load tool saturated: its CPU 97% of its cores"]),
               closed("c", 21000, void=["load tool saturated: its CPU 97% of its cores"])]
    for i, r in enumerate(results):
        r.repeat = i % 2
    report = model.build(results)
    pairs = [(p.faster.config.entrypoint, p.slower.config.entrypoint) for p in report.pairs]
    assert pairs == [("a", "b")]  # c is faster, and void: not ranked
    md = results_md.render(report)
    assert "**void**: load tool saturated" in md


def test_the_report_leads_with_capacity_and_its_cost_at_the_common_rate():
    from bench.report import model, results_md

    results = [step("a", 500, True, cpu_ms=0.05), step("a", 1000, True), step("a", 2000, False),
               step("b", 500, True, cpu_ms=0.2), step("b", 1000, False),
               step("c", 500, True), step("c", 1000, None, void=["load tool saturated"])]
    report = model.build(results)
    assert report.common_rates == {"hello": 250}  # half of b's 500/s
    md = results_md.render(report)
    # the answer comes first, then how it was measured, then the curves
    assert md.index("## hello: capacity within p99 <= 25 ms") < md.index("## How it was measured") \
        < md.index("## Latency against throughput")
    answer = md.split("## hello: capacity within")[1].split("##")[0]
    rows = {line.split("|")[2].strip(): line for line in answer.splitlines() if line.startswith("| ")}
    assert rows["`a`"].startswith("| 1 | `a` | 1,000 | 1,000–2,000 (one ramp: held–missed) |")
    assert "| 50 | 500 |" in rows["`a`"]  # 50 µs of CPU a request, measured at 500/s (its nearest held step)
    assert rows["`b`"].startswith("| 2 | `b` | 500 | 500–1,000 (one ramp: held–missed) |") and "| 200 | 500 |" in rows["`b`"]
    assert rows["`c`"].startswith("| – | `c` | ≥ 500 |") and "load tool saturated" in rows["`c`"]  # void: unranked
    # a held 1,000/s and b failed there: apart (the brackets touch, they do not overlap)
    assert "- Ranked by capacity: `a` 1,000/s > `b` 500/s" in answer and "- No tie" in answer
    assert "- Void, not ranked: `c` held ≥ 500/s, a lower bound: load tool saturated." in answer
    assert ("- Cost per request at 250/s, a rate every stack held (server CPU): `a` 50 µs, `c` 50 µs, `b` 200 µs "
            "(4.0x). Measured at the stack's nearest held step instead (no step ran at the common rate): `a` 500/s, "
            "`c` 500/s, `b` 500/s.") in answer


def bracket(entry, held, failed, op="hello", repeat=0, void=()):
    """A ramp that held `held` and failed (or was void) at `failed`: its capacity's bracket."""
    return [step(entry, held, True, op=op, repeat=repeat),
            step(entry, failed, None if void else False, op=op, repeat=repeat, void=void)]


def test_the_answer_ranks_by_capacity_and_says_a_tie_only_where_intervals_overlap():
    from bench.report import model

    results = (bracket("fast", 8000, 9000) + bracket("mid", 4000, 5000) + bracket("mid2", 4500, 7000)
               + bracket("slow", 1000, 1200) + bracket("busy", 2000, 4000, void=["load tool saturated"])
               + [step("none", 500, False)])
    (a,) = model.build(results).answers
    assert [(s.entrypoint, s.rank) for s in a.standings] == [
        ("fast", 1), ("mid2", 2), ("mid", 3), ("slow", 4), ("busy", None), ("none", None)]
    # 4,500–7,000 and 4,000–5,000 overlap: a tie; 8,000–9,000 and 4,500–7,000 do not; nor 4,000 and 1,200
    assert [(l.upper.entrypoint, l.lower.entrypoint, l.tie) for l in a.links] == [
        ("fast", "mid2", False), ("mid2", "mid", True), ("mid", "slow", False)]
    ties = {s.entrypoint: s.ties for s in a.standings}
    assert ties == {"fast": (), "mid2": ("mid",), "mid": ("mid2",), "slow": (), "busy": (), "none": ()}
    assert [s.entrypoint for s in a.void] == ["busy"] and [s.entrypoint for s in a.none_held] == ["none"]
    # a tie goes when the intervals part: mid's ramp failing at 4,400 is apart from mid2's 4,500
    results[3] = step("mid", 4400, False)
    (a,) = model.build(results).answers
    assert not any(l.tie for l in a.links) and all(not s.ties for s in a.standings)


def test_the_verdict_names_each_run_of_overlapping_neighbours_a_tie():
    from bench.report import capacity_tables, model

    results = (bracket("a", 8000, 9000) + bracket("b", 4000, 5000) + bracket("c", 4500, 7000)
               + bracket("d", 4800, 6000) + bracket("e", 1000, 1200))
    (a,) = model.build(results).answers
    said = capacity_tables.verdict(a)
    assert said[0].startswith("Ranked by capacity: `a` 8,000/s > `d` 4,800/s ≈ `c` 4,500/s ≈ `b` 4,000/s > `e`")
    assert said[1].startswith("A tie, not an order: `d`, `c` and `b` overlap each with its neighbour")
    assert not any("No tie" in s for s in said)


def test_capacity_is_never_read_from_a_closed_loop_run():
    """A closed-loop run's latency suffers coordinated omission: a wrk line, even one labelled as a
    capacity step, is no capacity (it would have held the SLO at 50,000/s here)."""
    from bench.report import model

    wrk = Result(entrypoint="a", operation="hello", tool="wrk", loop="closed", connections=50, rate=50_000,
                 requests=150_000, requests_per_s=50_000, latency_ms={"p99": 2.0}, mode="capacity", slo_held=True,
                 slo=Slo.parse("p99=25ms").as_dict())
    report = model.build(bracket("a", 1000, 2000) + [wrk])
    (c,) = report.capacities
    assert c.capacity == 1000 and c.interval == (1000, 2000)
    assert [r.tool for r in c.curve()] == ["vegeta", "vegeta"]


def test_compare_puts_capacities_side_by_side_not_ramp_steps():
    from bench.report import compare

    def run(scale, cost_b):
        return (bracket("a", 1000 * scale, 1400 * scale) + bracket("b", 500, 700)
                + [step("b", 250, True, cpu_ms=cost_b, mode="cost"), step("a", 250, True, cpu_ms=0.05, mode="cost")]
                + [closed("a", 9000)])

    md = compare.render(run(1, 0.2), run(2, 0.1), "before", "after")
    capacities, _, fixed = md.partition("## Capacity within the SLO")[2].partition("## Fixed load")
    rows = {line.split(" | ")[0].strip("| `"): line for line in capacities.splitlines() if line.startswith("| `")}
    assert set(rows) == {"a", "b"}
    # a doubled: 1,000 -> 2,000, brackets 1,000–1,400 and 2,000–2,800 apart; b the same, a tie; b's cost halved
    assert "| 1,000 | 1,000–1,400 | 2,000 | 2,000–2,800 | 2.00x | apart | 50 at 250/s | 50 at 250/s | 1.00x |" \
        in rows["a"]
    assert "| 500 | 500–700 | 500 | 500–700 | 1.00x | overlap: a tie | 200 at 250/s | 100 at 250/s | 0.50x |" \
        in rows["b"]
    assert "1 configurations: 1 in both" in fixed  # the wrk row; no ramp step is a row
    wrk = next(line for line in fixed.splitlines() if line.startswith("| `a`")).split(" | ")
    assert wrk[11:13] == ["5.00†", "5.00†"]  # its p99s, closed loop: marked
    assert "| vegeta |" not in fixed


def test_the_report_says_the_foreign_load_the_void_reruns_and_where_the_backends_ran():
    from dataclasses import replace

    from bench.report import model, results_md

    def seen(r, foreign, seq, **kw):
        return replace(r, foreign_cpu_pct=foreign, sequence=seq, **kw,
                       pinning={"enabled": True, "server_cpus": [0], "tool_cpus": [1], "backends": "with the server",
                                "backend_cpus": [0]})

    busy = ["the tool sent 1,857/s of 4,500/s with its cores 100% busy"]
    results = [seen(step("a", 500, True), 2.0, 1), seen(step("a", 1000, None, void=busy), 60.0, 2, superseded=True),
               seen(step("a", 1000, True), 3.0, 3, rerun=1), seen(step("a", 2000, False), 4.0, 4),
               seen(step("b", 500, True), 5.0, 5), seen(step("b", 1000, None, void=busy), 70.0, 6, superseded=True),
               seen(step("b", 1000, None, void=busy), 80.0, 7, rerun=1),
               seen(step("c", 500, True), 1.0, 8), seen(step("c", 1000, False), 45.0, 9)]
    report = model.build(results)
    assert report.foreign.pct == (1.0, 5.0, 80.0)  # the superseded steps' readings included
    assert len(report.foreign.reruns) == 2  # a's void step held on a second look, b's stayed void
    md = results_md.render(report)
    assert "median 5%, max 80% over 9 measurements" in md
    assert "- void steps measured again: 2, 1 of them no longer void on the second look" in md
    assert "- Void, not ranked: `b` held ≥ 500/s, a lower bound: " + busy[0] + "; foreign load 80% of the machine at that step." \
        in md
    assert "- Ranked by capacity: `a` 1,000/s" in md  # a's capacity from its second look at 1,000/s
    # c's capacity was decided by a miss while others took 45% of the machine: it may hold more
    assert "- May hold more (the miss that decided the capacity ran while other processes took this share of the " \
        "machine): `c` (45%)." in md
    assert "taskset: server on cpu 0, load tool on cpu 1; local backends on cpu 0 (with the server)" in md


def test_a_stack_without_a_verification_record_shows_as_unverified():
    from dataclasses import replace

    from bench.report import model, results_md
    from servers.core import catalog

    def tagged(r, verified):
        return replace(r, tags=[catalog.PRODUCTION] + ([] if verified else [catalog.UNVERIFIED]))

    results = [tagged(r, True) for r in bracket("a", 1000, 2000)] + [tagged(r, False) for r in bracket("b", 500, 700)]
    results += bracket("c", 300, 400)  # a result without the catalog's tags: not known
    (a,) = model.build(results).answers
    assert {s.entrypoint: s.verification for s in a.standings} == {"a": "verified", "b": "unverified", "c": ""}
    md = results_md.render(model.build(results))
    assert "- Unverified (no complete conformance and reliability run in its record, records/): `b`." in md
    row = next(line for line in md.splitlines() if line.startswith("| 2 | `b` |"))
    assert "| unverified |" in row
    assert "- **unverified** stacks (b): no record of a complete conformance" in md


def test_the_report_draws_steps_alike_in_throughput_and_latency():
    """Two steps of one ramp can give the same throughput and latency (a step measured again, a tool that
    rounds): the latency curve orders its points by those two alone, and the report renders (a tls-cost run
    once crashed there comparing the steps themselves)."""
    results = [step("a", 500, True), step("a", 500, True, seq=1), step("a", 1000, False, seq=2),
               step("nethttp", 20000, True, mode="calibration")]
    for r in results:
        r.requests_per_s, r.latency_ms = float(r.rate), {"p50": 1.0, "p99": 2.0 if r.slo_held else 40.0}
    page = report_html.render(model.build(results))
    assert "a p99" in page
