"""The statistics of repeats on fixed data, the order of interleaved rounds, the noise probe, and how
the reports show them (no benchmark run here; tests/bench/test_bench_rounds.py runs real ones)."""
from __future__ import annotations

import json
import math

import pytest

from servers.core import catalog

pytest.importorskip("numpy", reason="the bench extra is not installed: pip install -e '.[bench]'")

from bench import noise, schema  # noqa: E402
from bench.planning import plan, rounds
from bench.report import compare, model, report_html, results_md
from bench.report.significance import NEEDS, Verdict, ratio_of_medians  # noqa: E402
from bench.schema import Result  # noqa: E402


# -- the bootstrap interval of a ratio of medians -------------------------------------------------
def test_interval_known_from_the_resampling_distribution():
    # A is constant; a resample of B = [1, 3] has median 1 (1/4), 2 (1/2) or 3 (1/4): the 2.5 % and 97.5 %
    # quantiles are exactly 1 and 3.
    v = ratio_of_medians([1.0, 1.0], [1.0, 3.0])
    assert (v.ratio, v.low, v.high) == (2.0, 1.0, 3.0)
    assert v.significant is False  # 1.0 is inside (on the edge)
    v = ratio_of_medians([1.0, 1.0], [2.0, 4.0])
    assert (v.ratio, v.low, v.high, v.significant) == (3.0, 2.0, 4.0, True)


def test_clearly_apart_is_significant_and_overlapping_is_not():
    a = [100, 102, 98, 101, 99]
    twice = ratio_of_medians(a, [2 * x for x in a])
    assert twice.ratio == 2.0 and twice.significant is True
    assert 1.9 < twice.low < 2.0 < twice.high < 2.1
    assert twice.describe() == "2.00x [1.94, 2.06] significant"
    close = ratio_of_medians([100, 110, 90, 105, 95], [104, 114, 94, 109, 99])
    assert math.isclose(close.ratio, 1.04) and close.low < 1.0 < close.high and close.significant is False
    assert close.verdict_text() == "not significant"


def test_seeded_so_the_same_numbers_give_the_same_interval():
    a, b = [5.1, 4.8, 5.6, 5.0, 4.4], [6.0, 5.2, 6.3, 5.9, 7.1]
    first = ratio_of_medians(a, b)
    assert first == ratio_of_medians(a, b)
    assert (first.ratio, round(first.low, 4), round(first.high, 4)) == (1.2, 1.04, 1.4318)


def test_degenerate_inputs():
    same = ratio_of_medians([100, 100, 100], [150, 150, 150])  # no spread at all: a point interval
    assert (same.low, same.high, same.significant) == (1.5, 1.5, True)
    equal = ratio_of_medians([100, 100], [100, 100])
    assert (equal.ratio, equal.significant) == (1.0, False)
    one = ratio_of_medians([100], [120, 130])  # one repeat: a ratio but no interval
    assert one.ratio == 1.25 and one.significant is None and not one.has_interval
    assert one.verdict_text() == NEEDS == "n/a (needs --repeat >= 2)"
    assert one.describe() == "1.25x n/a (needs --repeat >= 2)" and one.interval_text() == "–"
    assert ratio_of_medians([0, 0], [1, 2]).ratio is None  # no ratio to a zero median
    assert ratio_of_medians([1, 2, 3], []).ratio is None and ratio_of_medians([], []).describe() == "–"
    assert ratio_of_medians([2, None, 4], [6, 6]).n_a == 2  # missing values are dropped
    zeros = ratio_of_medians([0, 1, 2], [1, 2])  # resamples of A with median 0 have no ratio
    assert zeros.ratio == 1.5 and zeros.has_interval and zeros.low > 0
    assert Verdict(None).verdict_text() == "–"


# -- the order of the runs -------------------------------------------------------------------------
def order(p: plan.Plan) -> list[tuple[str, int | None, list[int]]]:
    return [(s.group.entry.name, s.round, [r.repeat for r in s.runs]) for s in rounds.schedule(p)]


def test_interleaved_rounds_alternate_and_sequential_runs_back_to_back():
    s = plan.Settings(servers=["sanic", "tornado", "nethttp"], ops=["hello", "json"], repeat=3)
    assert order(plan.build(s)) == [
        ("sanic", 0, [0, 0]), ("tornado", 0, [0, 0]), ("nethttp", 0, [0, 0]),
        ("nethttp", 1, [1, 1]), ("tornado", 1, [1, 1]), ("sanic", 1, [1, 1]),
        ("sanic", 2, [2, 2]), ("tornado", 2, [2, 2]), ("nethttp", 2, [2, 2])]
    s.rounds_order = "sequential"
    assert order(plan.build(s)) == [(name, None, [0, 1, 2, 0, 1, 2]) for name in ("sanic", "tornado", "nethttp")]
    s.rounds_order, s.repeat = "interleaved", 1  # one round: one server start per stack either way
    assert order(plan.build(s)) == [(name, None, [0, 0]) for name in ("sanic", "tornado", "nethttp")]
    s.rounds_order = "shuffled"
    with pytest.raises(ValueError, match="interleaved, sequential"):
        rounds.schedule(plan.build(s))


def test_every_planned_run_is_scheduled_once_and_the_estimate_counts_restarts():
    s = plan.Settings(servers=["sanic", "nethttp"], ops=["hello"], connections=[10, 50], repeat=4)
    p = plan.build(s)
    scheduled = [run for stint in rounds.schedule(p) for run in stint.runs]
    assert sorted(map(id, scheduled)) == sorted(map(id, p.runs))
    interleaved = p.estimate_s()
    s.rounds_order = "sequential"
    assert plan.build(s).estimate_s() < interleaved  # one start and warm-up per stack, not per round
    assert "interleaved rounds" in rounds.describe("interleaved", 4)
    assert "back to back" in rounds.describe("sequential", 4) and "no repeats" in rounds.describe("interleaved", 1)


# -- the noise probe -------------------------------------------------------------------------------
def test_probe_moved_pct():
    assert noise.moved_pct({"cpu_ms": 10, "loopback_ms": 20}, {"cpu_ms": 12, "loopback_ms": 19}) == 20.0
    assert noise.moved_pct({"cpu_ms": 10, "loopback_ms": None}, {"cpu_ms": 9, "loopback_ms": 5}) == 10.0
    assert noise.moved_pct({}, {"cpu_ms": 1}) is None


def test_probe_reads_a_real_cpu_loop_and_loopback_server():
    with noise.Probe(threshold_pct=15) as probe:
        reading = probe.end(probe.begin())
    for side in (reading.before, reading.after):
        assert set(side) == set(noise.KEYS) and all(v > 0 for v in side.values())
    assert reading.moved_pct is not None and reading.noisy == (reading.moved_pct > 15)
    assert probe._server is None  # stopped on exit


# -- in the reports --------------------------------------------------------------------------------
def result(entry: str, rps: float, repeat: int, repeats: int, noisy: bool = False, **kw) -> Result:
    e = catalog.get(entry)
    return Result(entrypoint=e.name, dev_only=e.dev_only, operation="hello", path="/hello", tool="wrk",
                  connections=50, threads=2, requests=int(rps * 5), requests_per_s=rps, repeat=repeat,
                  repeats=repeats, rounds_order="interleaved", sequence=kw.pop("sequence", 0),
                  probe_before={"cpu_ms": 5.0, "loopback_ms": 10.0},
                  probe_after={"cpu_ms": 7.0 if noisy else 5.1, "loopback_ms": 10.0},
                  probe_moved_pct=40.0 if noisy else 2.0, noise_threshold_pct=15.0, noisy=noisy, steal_pct=0.5,
                  machine={"cpu_model": "test cpu", "cores": 2, "usable_cores": 2}, **kw)


def session() -> list[Result]:
    out = []
    for i in range(3):
        out.append(result("nethttp", [40_000, 42_000, 41_000][i], i, 3, noisy=(i == 1)))
        out.append(result("sanic", [10_000, 10_500, 9_800][i], i, 3))
        out.append(result("tornado", [9_900, 10_400, 10_100][i], i, 3))
    # a noisy run measured again: the first one stays in the file, left out of the tables
    out.append(result("tornado", 1_000, 2, 3, noisy=True, superseded=True))
    return out


def test_report_states_the_scheme_the_noise_and_the_significance(tmp_path):
    results = session()
    path = tmp_path / "results.jsonl"
    for r in results:
        schema.append(path, r)
    assert schema.read(path) == results  # the new fields round-trip
    md = results_md.render(model.build(results))
    assert "- repeats: 3 interleaved rounds" in md and "bootstrap interval" in md
    assert "machine noise over the session (probe min / median / max): cpu loop 5.0 / 5.0 / 7.0 ms" in md
    assert "noisy runs (probe moved more than 15% from before to after the run): 2 of 10" in md
    assert "1 noisy runs were measured again" in md
    nethttp = next(line for line in md.splitlines() if line.startswith("| `nethttp` | hello"))
    assert "(noisy 1/3)" in nethttp and "41,000" in nethttp
    tornado = next(line for line in md.splitlines() if line.startswith("| `tornado` | hello"))
    assert "10,100" in tornado  # the superseded 1,000 req/s run is not in the median
    section = md.split("## Are the differences above the noise?")[1]
    fast = next(line for line in section.splitlines() if "`nethttp` | `tornado`" in line)
    assert "4.06x" in fast and "| significant |" in fast and "3 / 3" in fast
    close = next(line for line in section.splitlines() if "`tornado` | `sanic`" in line)
    assert "not significant" in close
    assert "Are the differences above the noise?" in report_html.render(model.build(results))


def test_ranked_pairs_need_repeats_and_skip_other_configurations():
    single = [result("nethttp", 40_000, 0, 1), result("sanic", 10_000, 0, 1),
              result("sanic", 5_000, 0, 1, keepalive=False)]
    report = model.build(single)
    pairs = report.pairs
    assert [(p.faster.config.entrypoint, p.slower.config.entrypoint) for p in pairs] == [("nethttp", "sanic")]  # close is another configuration
    assert pairs[0].verdict.verdict_text() == NEEDS
    md = results_md.render(report)
    assert "Are the differences" not in md and "interleaved" not in md  # no repeats: no section, no scheme


def test_old_result_files_still_read_and_report(tmp_path):
    old = {"entrypoint": "nethttp", "operation": "hello", "tool": "wrk", "connections": 50, "requests": 10,
           "requests_per_s": 100.0, "repeat": 0, "repeats": 1, "schema_version": 1}
    path = tmp_path / "old.jsonl"
    path.write_text(json.dumps(old) + "\n")
    (r,) = schema.read(path)
    assert r.probe_before == {} and not r.noisy and not r.superseded and r.rounds_order == ""
    md = results_md.render(model.build([r]))
    assert "machine noise" not in md and "| `nethttp` | hello" in md


def test_compare_shows_the_interval_for_files_and_for_two_stacks():
    a = session()
    b = [Result(**{**r.__dict__, "requests_per_s": r.requests_per_s * 2}) for r in a]
    md = compare.render(a, b, "before", "after")
    line = next(l for l in md.splitlines() if l.startswith("| `sanic`"))
    assert "2.00x" in line and "| significant |" in line and "[" in line
    md = compare.render_stacks(a, "sanic", "nethttp")
    line = next(l for l in md.splitlines() if l.startswith("| `sanic` → `nethttp`"))
    assert "4.10x" in line and "| significant |" in line
    single = [result("nethttp", 40_000, 0, 1), result("sanic", 10_000, 0, 1)]
    assert NEEDS in compare.render_stacks(single, "sanic", "nethttp")
    with pytest.raises(ValueError, match="no results of stack 'gin'"):
        compare.render_stacks(a, "gin", "sanic")
