"""The measurement side of a capacity run: where a ramp starts and how it narrows (on synthetic step
results), a void step measured again through the one step API, the backends' placement, and the
foreign load a step records."""
from __future__ import annotations

import shutil
import subprocess
import sys
import time
from dataclasses import replace
from types import SimpleNamespace

import psutil
import pytest

from bench import selfcheck
from bench.capacity import search, tally
from bench.capacity.search import Outcome, QUICK_RAMP, RampSettings, Slo, run_ramp
from bench.planning.plan import RunSpec, Settings
from bench.run.ramper import Ramper
from bench.run.steps import Target
from bench.schema import Result
from harness import pinning
from servers.core import catalog


def stack(capacity_rate, void_at=()):
    """measure(rate, phase): the SLO holds up to capacity_rate; rates in void_at are void (the tool
    was the bound there). Records every call."""
    calls = []

    def measure(rate, phase):
        calls.append((rate, phase))
        if rate in void_at:
            return Outcome(rate, held=False, void=True)
        return Outcome(rate, held=rate <= capacity_rate)

    return measure, calls


def bracket(outcomes):
    held = max(o.rate for o in outcomes if o.held and not o.void)
    failed = min(o.rate for o in outcomes if not o.held and not o.void)
    return held, failed


@pytest.mark.parametrize("knee, guess", [(3000, 4000), (3000, 3100), (900, 6000), (4700, 5000), (12_000, 9000)])
def test_a_quick_ramp_starts_near_the_guess_and_narrows_to_ten_percent(knee, guess):
    measure, calls = stack(knee)
    out = run_ramp(measure, QUICK_RAMP, guess=guess)
    assert calls[0] == (search._round_rate(0.7 * guess), "ladder")  # near the knee, not at 500/s
    held, failed = bracket(out)
    assert held <= knee < failed and failed / held <= 1.1 + 1e-9, (held, failed, calls)
    assert len(calls) <= 8, calls  # a quick ramp stays short: no climb from the ladder's foot
    # the rung that stopped the climb was measured twice before the ladder believed it
    stopped = next(rate for rate, phase in calls if phase == "ladder" and (rate, "confirm") in calls)
    assert calls.count((stopped, "ladder")) == 1 and (stopped, "confirm") in calls


def test_without_a_guess_the_quick_ladder_searches_coarsely_then_bisects_to_ten_percent():
    measure, calls = stack(3000)
    out = run_ramp(measure, QUICK_RAMP)
    assert [r for r, p in calls if p == "ladder"] == [500, 1500, 4500]
    held, failed = bracket(out)
    assert held <= 3000 < failed and failed / held <= 1.1


def test_stacks_a_quarter_apart_do_not_tie():
    """The old quick ramp (x3 ladder from 500/s, one bisection) put 4,500 and 6,000 both at 4,500."""
    old = RampSettings(start_rate=500.0, factor=3.0, max_bisections=1, resolution=1.3, confirm=False, max_down=2)
    brackets = {}
    for knee in (4600, 6000):
        measure, _ = stack(knee)
        assert bracket(run_ramp(measure, old))[0] == 4500  # the tie the issue saw
        measure, _ = stack(knee)
        brackets[knee] = bracket(run_ramp(measure, QUICK_RAMP, guess=knee * 1.3))
    (h1, f1), (h2, f2) = brackets[4600], brackets[6000]
    assert f1 <= h2, brackets  # the intervals do not overlap


def test_a_guess_past_the_tools_limit_starts_at_the_limit():
    measure, calls = stack(10**9)
    run_ramp(measure, QUICK_RAMP, limit=5000, guess=20_000)
    assert calls[0] == (5000, "ladder") and max(r for r, _ in calls) == 5000


def test_knee_guess_is_the_latest_closed_loop_rate_of_that_stack_and_operation():
    def closed(entry, op, rps, **kw):
        return Result(entrypoint=entry, operation=op, loop="closed", requests_per_s=rps, **kw)

    results = [closed("a", "hello", 1000), closed("a", "hello", 1200), closed("a", "hello", 9000, void_reasons=["x"]),
               closed("a", "json", 500), closed("b", "hello", 7000),
               Result(entrypoint="a", operation="hello", loop="open", mode="capacity", requests_per_s=3000)]
    assert search.knee_guess(results, "a", "hello") == 1200
    assert search.knee_guess(results, "a", "redis-pooled") is None


class FakeSteps:
    """The step API (bench/run/steps.py) over synthetic results: void(rate, rerun) says which steps are void."""

    def __init__(self, knee, void, foreign=lambda rate, rerun: 5.0):
        self.knee, self.void, self.foreign = knee, void, foreign
        self.recorded: list[Result] = []
        self.openloop = SimpleNamespace(vegeta=SimpleNamespace(binary=lambda: "vegeta"))
        self.progress = SimpleNamespace(note=lambda *a, **k: None)

    def open(self, run, target, rate, *, phase, mode, slo, limit=None, rerun=0):
        r = Result(entrypoint=run.entry.name, operation=run.operation, loop="open", mode=mode, phase=phase,
                   rate=rate, rerun=rerun, slo=slo.as_dict(), tool="vegeta")
        if self.void(rate, rerun):
            r.void_reasons = [f"the tool sent less than {rate:g}/s with its cores busy"]
            r.slo_held = False
        else:
            r.slo_held = rate <= self.knee
        r.foreign_cpu_pct = self.foreign(rate, rerun)
        if r.foreign_cpu_pct >= 50:  # others hogged the server's core: it missed what it holds
            r.slo_held = False
        return r

    def record(self, result):
        self.recorded.append(result)


def ramper(steps, void_reruns=1):
    ramp = replace(QUICK_RAMP, void_reruns=void_reruns, void_pause_s=0.0)
    entry = catalog.get("nethttp")
    run = RunSpec(entry=entry, operation="hello", path="/", tool="vegeta", connections=0, threads=None, rate=None,
                  keepalive=True, duration_s=0.6, requests=None, repeat=0, repeats=1, workers=None, mode="capacity")
    return Ramper(steps, Slo.parse(search.DEFAULT_SLO), ramp), run


def test_a_void_step_is_measured_again_and_a_briefly_busy_machine_still_yields_a_capacity():
    # the machine was busy once, at the second rung: void there, fine when measured again
    steps = FakeSteps(knee=3800, void=lambda rate, rerun: rate == 3900 and rerun == 0)
    r, run = ramper(steps)
    results = r.ramp(run, Target("http://127.0.0.1:1"), guess=4000)
    assert results == steps.recorded
    void = [x for x in results if x.void_reasons]
    # void at the first look, at the rung and at its confirmation: each measured again
    assert void and all(x.superseded and x.rate == 3900 for x in void)
    again = results[results.index(void[0]) + 1]
    assert again.rate == 3900 and again.rerun == 1 and not again.superseded and not again.void_reasons
    (cap,) = tally.capacities(results)
    assert not cap.void and cap.capacity <= 3800 < cap.interval[1] <= 1.1 * cap.capacity
    # without the second look the same machine gives no ranked answer
    steps = FakeSteps(knee=3800, void=lambda rate, rerun: rate == 3900 and rerun == 0)
    r, run = ramper(steps, void_reruns=0)
    (cap,) = tally.capacities(r.ramp(run, Target("http://127.0.0.1:1"), guess=4000))
    assert cap.void


def test_a_step_void_every_time_is_believed_after_its_reruns():
    steps = FakeSteps(knee=10**9, void=lambda rate, rerun: rate >= 3900)
    r, run = ramper(steps, void_reruns=2)
    results = r.ramp(run, Target("http://127.0.0.1:1"), guess=4000)
    at = [x for x in results if x.rate == 3900]
    assert [x.rerun for x in at] == [0, 1, 2] and [x.superseded for x in at] == [True, True, False]
    (cap,) = tally.capacities(results)
    assert cap.void and cap.capacity < 3900  # a lower bound, shown with its reason, not ranked


def test_a_miss_while_others_took_the_machine_is_measured_again_and_a_quiet_miss_is_believed():
    # others took 80% of the machine during the first look at 2,800/s: it missed; alone it holds
    steps = FakeSteps(knee=3800, void=lambda rate, rerun: False,
                      foreign=lambda rate, rerun: 80.0 if (rate, rerun) == (2800, 0) else 5.0)
    r, run = ramper(steps)
    results = r.ramp(run, Target("http://127.0.0.1:1"), guess=4000)
    first, again = results[0], results[1]
    assert (first.rate, first.superseded, again.rate, again.rerun, again.slo_held) == (2800, True, 2800, 1, True)
    (cap,) = tally.capacities(results)
    assert 3500 <= cap.capacity <= 3800  # without the second look: a capacity near 1,400/s
    assert sum(1 for x in results if x.superseded) == 1  # the quiet misses above 3,800/s were believed at once
    # the same machine, the rule off: the spoiled miss decides
    steps = FakeSteps(knee=3800, void=lambda rate, rerun: False,
                      foreign=lambda rate, rerun: 80.0 if (rate, rerun) == (2800, 0) else 5.0)
    off = Ramper(steps, Slo.parse(search.DEFAULT_SLO), replace(QUICK_RAMP, spoiled_pct=None, void_pause_s=0.0))
    (cap,) = tally.capacities(off.ramp(run, Target("http://127.0.0.1:1"), guess=4000))
    assert cap.capacity < 2800
    # the tool's own limit: a calibration step that fell behind on a busy machine is measured again too
    steps = FakeSteps(knee=10**9, void=lambda rate, rerun: False,
                      foreign=lambda rate, rerun: 80.0 if (rate, rerun) == (4500, 0) else 5.0)
    results = r.__class__(steps, r.slo, replace(QUICK_RAMP, void_pause_s=0.0)).ramp(
        run, Target("http://127.0.0.1:1"), mode="calibration")
    assert [(x.rate, x.rerun) for x in results if x.superseded] == [(4500, 0)]


def fake_machine(monkeypatch, cores):
    monkeypatch.setattr(pinning, "usable_cpus", lambda: list(range(cores)))
    monkeypatch.setattr(pinning.shutil, "which", lambda name: "/usr/bin/" + name)


@pytest.mark.parametrize("cores", [2, 3, 4, 5])
def test_on_few_cores_the_backends_share_the_servers_cores(monkeypatch, cores):
    fake_machine(monkeypatch, cores)
    p = pinning.plan(True, backends=True)
    assert p.backends == "with the server" and p.backend_cpus == p.server_cpus
    assert not set(p.backend_cpus) & set(p.tool_cpus)  # the tool's cores are its own
    assert p.as_dict()["backends"] == "with the server" and "with the server" in p.describe()


@pytest.mark.parametrize("cores", [6, 8, 16, 64])
def test_on_more_cores_the_backends_get_their_own(monkeypatch, cores):
    fake_machine(monkeypatch, cores)
    p = pinning.plan(True, backends=True)
    assert p.backends == "own cores" and p.backend_cpus and p.tool_cpus and p.server_cpus
    parts = [set(p.server_cpus), set(p.tool_cpus), set(p.backend_cpus)]
    assert sum(map(len, parts)) == cores and set.union(*parts) == set(range(cores))
    assert p.server_cpus == list(range(cores // 2))  # the server keeps its half


def test_no_local_backends_no_backend_cpus(monkeypatch):
    fake_machine(monkeypatch, 2)
    p = pinning.plan(True, backends=False)
    assert p.backend_cpus == [] and p.backends == "none"
    assert pinning.plan(False, backends=True).backend_cpus == []


@pytest.mark.skipif(shutil.which("redis-server") is None or shutil.which("taskset") is None
                    or len(pinning.usable_cpus()) < 2, reason="needs redis-server, taskset and 2 cores")
def test_a_local_redis_runs_pinned_where_the_plan_places_it(tmp_path):
    from harness.backends import BackendSession

    cpus = pinning.usable_cpus()[:1]
    with BackendSession(["redis"], tmp_path, 10, cpus=cpus) as session:
        (pid,) = session.pids()
        proc = psutil.Process(pid)
        for thread in proc.threads():  # redis-server's background threads too
            assert psutil.Process(thread.id).cpu_affinity() == cpus
        assert any("pinned to cpu" in note for note in session.notes)


def test_a_step_records_the_cpu_other_processes_took_meanwhile():
    """A busy process that is neither the tool, the server nor a backend is foreign load; the same
    process named as the server (a known pid) is not. Two watches over one window: the machine's
    other load (other users of a shared machine) is the same in both."""
    busy = subprocess.Popen([sys.executable, "-c", "import time\nend = time.time() + 1.5\nwhile time.time() < end: pass"])
    try:
        cpu_before = sum(psutil.Process(busy.pid).cpu_times()[:2])
        with selfcheck.Watch("http://127.0.0.1:1", [], sample_connections=False) as unknown, \
                selfcheck.Watch("http://127.0.0.1:1", [], sample_connections=False, known_pids=lambda: [busy.pid]) as known:
            time.sleep(1.0)
            cpu_used = sum(psutil.Process(busy.pid).cpu_times()[:2]) - cpu_before
    finally:
        busy.wait()
    share = 100 * cpu_used / (known.result.wall_s * len(psutil.cpu_times(percpu=True)))
    if share < 3:
        pytest.skip(f"the machine is too busy: the busy process got {share:.1f}% of it")
    difference = unknown.result.foreign_cpu_pct - known.result.foreign_cpu_pct
    assert difference == pytest.approx(share, abs=max(4.0, 0.4 * share)), (unknown.result, known.result, share)


def test_the_run_says_what_the_foreign_load_was_and_which_cells_it_cost():
    def at(rate, held, void=(), rerun=0, superseded=False, foreign=5.0, entry="a", seq=0):
        return Result(entrypoint=entry, operation="hello", loop="open", mode="capacity", rate=rate, slo_held=held,
                      void_reasons=list(void), rerun=rerun, superseded=superseded, foreign_cpu_pct=foreign,
                      sequence=seq, slo={"bounds_ms": {"p99": 25.0}, "min_success": 0.999})

    busy = ["the tool sent 900/s of 2,000/s offered with its cores 100% busy"]
    results = [at(1000, True, seq=1), at(2000, False, busy, superseded=True, foreign=60.0, seq=2),
               at(2000, False, rerun=1, foreign=8.0, seq=3),  # cleared: the stack's own miss
               at(1000, True, entry="b", seq=4), at(2000, False, busy, entry="b", superseded=True, foreign=70.0, seq=5),
               at(2000, False, busy, entry="b", rerun=1, foreign=65.0, seq=6)]  # still void: the cell is void
    f = tally.foreign_load(results)
    assert f.pct == (5.0, 34.0, 70.0) and f.measured == 6
    assert [(r.entrypoint, after.sequence) for r, after in f.reruns] == [("a", 3), ("b", 6)]
    assert [(c.entrypoint, pct) for c, pct in f.void_cells] == [("b", 65.0)]  # the step it rests on
    text = f.describe()
    assert "median 34% of the machine, max 70%" in text and "2 void steps measured again, 1 of them no longer void" in text
    assert tally.foreign_load([Result(entrypoint="a")]) is None
    # a cell void because it held every step up to the tool's limit saw no void step: no foreign load to name
    (cell,) = tally.foreign_load([at(1000, True, entry="e")]).void_cells
    assert cell[1] is None
    # a miss under a busy machine makes its cell suspect; a miss on a quiet one does not
    assert f.suspect == []
    results += [at(500, False, foreign=80.0, entry="c", seq=7), at(250, False, foreign=75.0, entry="c", seq=8),
                at(500, True, entry="d", seq=9), at(700, False, foreign=40.0, entry="d", seq=10),
                at(900, False, foreign=90.0, entry="d", seq=11)]
    assert [(c.entrypoint, pct) for c, pct in tally.foreign_load(results).suspect] == [("c", 75.0), ("d", 40.0)]
    assert "capacity may be higher): c hello (75%), d hello (40%)" in tally.foreign_load(results).describe()


def test_a_ramp_that_failed_before_its_first_step_is_reported_not_a_crash(tmp_path):
    """The backends did not start: every ramp of a backend route is one failed Result without a rate."""
    from bench.report import reports

    failed = Result(entrypoint="sanic", operation="redis-pooled", tool="vegeta", loop="open", rate=None,
                    status="failed", failure="backends: local backends did not start")
    held = Result(entrypoint="sanic", operation="hello", tool="vegeta", loop="open", mode="capacity", rate=500.0,
                  slo_held=True, requests=300, requests_per_s=500.0, success_ratio=1.0,
                  slo={"bounds_ms": {"p99": 25.0}, "min_success": 0.999})
    _, _, md = reports.write([held, failed], tmp_path, "t")
    assert "backends: local backends did not start" in md


def test_every_repeat_of_a_ramp_starts_from_the_same_ladder(tmp_path, monkeypatch):
    """The repeats are independent: a later repeat is not started from the capacity an earlier one found (that made
    the min-max of the repeats no interval at all), but from what the first one started from."""
    from bench.planning import plan
    from bench.run.progress import Progress
    from bench.run.runner import Runner

    from bench.planning.presets import FREE_THREADING_RAMP  # the preset whose later repeats used to start from the first's

    settings = Settings(servers=["nethttp"], ops=["hello"], capacity_ops=["hello"], capacity_only=True, repeat=3,
                        target="http://127.0.0.1:1", ramp=FREE_THREADING_RAMP)
    p = plan.build(settings, [catalog.get("nethttp")])
    runner = Runner(p, tmp_path, Progress(live=False))
    monkeypatch.setattr(runner, "contract_failure", lambda run, target: None)
    earlier = [Result(entrypoint="nethttp", operation="hello", loop="open", mode="capacity", rate=rate, slo_held=held,
                      slo=Slo.parse("p99=25ms").as_dict(), tool="vegeta", repeat=0) for rate, held in
               ((2000, True), (4000, True), (8000, False))]
    closed = Result(entrypoint="nethttp", operation="hello", loop="closed", requests_per_s=5000.0)
    guesses = []
    fake_ramper = SimpleNamespace(ramp=lambda run, target, guess=None: guesses.append((run.repeat, guess)))
    # no closed-loop knee: every repeat from the ladder's foot, whatever an earlier ramp found; with one, from it
    for ledger_results, expected in (([], None), (earlier, None), ([closed, *earlier], 5000.0)):
        guesses.clear()
        steps = SimpleNamespace(ledger=SimpleNamespace(results=list(ledger_results)))
        runner.run_entry(steps, fake_ramper, p.runs, [])
        assert guesses == [(0, expected), (1, expected), (2, expected)]
