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

from bench import capacity, selfcheck
from bench.capacity import QUICK_RAMP, Outcome, RampSettings, run_ramp
from bench.capacity_run import Ramper
from bench.plan import RunSpec, Settings
from bench.schema import Result
from bench.steps import Target
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
    assert calls[0] == (capacity._round_rate(0.7 * guess), "ladder")  # near the knee, not at 500/s
    held, failed = bracket(out)
    assert held <= knee < failed and failed / held <= 1.1 + 1e-9, (held, failed, calls)
    assert len(calls) <= 7, calls  # a quick ramp stays short: no climb from the ladder's foot


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
    assert capacity.knee_guess(results, "a", "hello") == 1200
    assert capacity.knee_guess(results, "a", "redis-pooled") is None


class FakeSteps:
    """The step API (bench/steps.py) over synthetic results: void(rate, rerun) says which steps are void."""

    def __init__(self, knee, void):
        self.knee, self.void = knee, void
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
        return r

    def record(self, result):
        self.recorded.append(result)


def ramper(steps, void_reruns=1):
    settings = Settings(ramp=replace(QUICK_RAMP, void_reruns=void_reruns, void_pause_s=0.0))
    entry = catalog.get("nethttp")
    run = RunSpec(entry=entry, operation="hello", path="/", tool="vegeta", connections=0, threads=None, rate=None,
                  keepalive=True, duration_s=0.6, requests=None, repeat=0, repeats=1, workers=None, mode="capacity")
    return Ramper(steps, settings), run


def test_a_void_step_is_measured_again_and_a_briefly_busy_machine_still_yields_a_capacity():
    # the machine was busy once, at the second rung: void there, fine when measured again
    steps = FakeSteps(knee=3800, void=lambda rate, rerun: rate == 3900 and rerun == 0)
    r, run = ramper(steps)
    results = r.ramp(run, Target("http://127.0.0.1:1"), guess=4000)
    assert results == steps.recorded
    void = [x for x in results if x.void_reasons]
    assert len(void) == 1 and void[0].superseded and void[0].rate == 3900
    again = results[results.index(void[0]) + 1]
    assert again.rate == 3900 and again.rerun == 1 and not again.superseded and not again.void_reasons
    (cap,) = capacity.capacities(results)
    assert not cap.void and cap.capacity <= 3800 < cap.interval[1] <= 1.1 * cap.capacity
    # without the second look the same machine gives no ranked answer
    steps = FakeSteps(knee=3800, void=lambda rate, rerun: rate == 3900 and rerun == 0)
    r, run = ramper(steps, void_reruns=0)
    (cap,) = capacity.capacities(r.ramp(run, Target("http://127.0.0.1:1"), guess=4000))
    assert cap.void


def test_a_step_void_every_time_is_believed_after_its_reruns():
    steps = FakeSteps(knee=10**9, void=lambda rate, rerun: rate >= 3900)
    r, run = ramper(steps, void_reruns=2)
    results = r.ramp(run, Target("http://127.0.0.1:1"), guess=4000)
    at = [x for x in results if x.rate == 3900]
    assert [x.rerun for x in at] == [0, 1, 2] and [x.superseded for x in at] == [True, True, False]
    (cap,) = capacity.capacities(results)
    assert cap.void and cap.capacity < 3900  # a lower bound, shown with its reason, not ranked


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
