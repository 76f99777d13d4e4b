"""The free-threading comparison: the interpreter and cores axes in the plan and the model, the preset that fits
about 40 minutes, and docs/free-threading.md's section, which says what to pick only from a quiet, controlled
run (bench/free_threading.py, bench/free_threading_page.py). No process is run: the results are made here."""
from __future__ import annotations

import statistics
from dataclasses import replace

import pytest

from servers.core import interpreters

from bench import capacity, free_threading, free_threading_page, model, plan, presets
from bench.capacity import Slo
from bench.schema import Result

TWIN, FT, DEFAULT = interpreters.GIL_TWIN, interpreters.FREE_THREADED, interpreters.GIL
FACTS = {FT: {"key": FT, "implementation": "CPython", "version": "3.13.5", "build": "free-threaded", "gil": "off"},
         TWIN: {"key": TWIN, "implementation": "CPython", "version": "3.13.5", "build": "gil", "gil": "on"},
         DEFAULT: {"key": DEFAULT, "implementation": "CPython", "version": "3.11.7", "build": "gil", "gil": "on"}}
VERSIONS = {FT: {"python": "3.13.5t", "flask": "3.1.3", "granian": "2.7.9"},
            TWIN: {"python": "3.13.5", "flask": "3.1.3", "granian": "2.7.9"},
            DEFAULT: {"python": "3.11.7", "flask": "3.1.3", "granian": "2.8.9"}}


def test_the_plan_runs_base_entries_on_each_gil_interpreter_and_ft_entries_on_3_13t():
    s = plan.Settings(servers=["flask_gunicorn_gthread", "flask_gunicorn_gthread_ft", "flask_granian_ft", "nethttp"],
                      ops=["hello"], capacity_ops=["hello"], capacity_only=True, interpreters=[TWIN, DEFAULT],
                      server_cores=[1, 2], equal_cores=True, repeat=2)
    p = plan.build(s)
    stacks = {(g.entry.name, g.interpreter, g.cores): g.workers for g in p.entries}
    assert stacks == {
        ("flask_gunicorn_gthread", TWIN, 1): 1, ("flask_gunicorn_gthread", DEFAULT, 1): 1,
        ("flask_gunicorn_gthread_ft", FT, 1): 1, ("flask_granian_ft", FT, 1): 1, ("nethttp", "", 1): None,
        # two cores: a process per core on the GIL; one process of threads on 3.13t, granian's threads one per core
        ("flask_gunicorn_gthread", TWIN, 2): 2, ("flask_gunicorn_gthread", DEFAULT, 2): 2,
        ("flask_gunicorn_gthread_ft", FT, 2): 1, ("flask_granian_ft", FT, 2): 2, ("nethttp", "", 2): None}
    # each stack is a group of its own (one warm-up, one server start per round) and says where it ran
    assert len({r.group for r in p.runs}) == len(stacks)
    labels = {r.stack for r in p.runs}
    assert {"flask_gunicorn_gthread on 3.13 (2 cores)", "flask_gunicorn_gthread (2 cores)",
            "flask_gunicorn_gthread_ft (1 core)"} <= labels
    # the tool's own limit is measured on each placement: one calibration per core count
    assert plan.build(replace(s, server_cores=[1])).estimate_s() < p.estimate_s()


def test_the_free_threading_preset_fits_about_40_minutes_on_two_cores():
    preset = replace(presets.get("free-threading"), server_cores=presets.free_threading_cores(2))
    assert preset.server_cores == (1, 2) and presets.free_threading_cores(8) == (1, 2, 4)
    s = preset.settings()
    assert s.interpreters == [TWIN, DEFAULT] and s.equal_cores and s.ramp.guess_from_earlier
    p = plan.build(s)
    assert {g.entry.name for g in p.entries} == {"flask_gunicorn_gthread", "flask_gunicorn_gthread_ft",
                                                 "flask_granian", "flask_granian_ft"}
    assert {r.operation for r in p.runs} == {"fortunes", "json", "hello"} and len(p.entries) == 12
    assert p.estimate_s() <= 42 * 60, plan.format_duration(p.estimate_s())


def step(entry, interpreter, cores, rate, held, op="fortunes", repeat=0, cpu_us=1000.0, pss=60.0, workers=1,
         foreign=1.0, mode="capacity", seq=0):
    return Result(entrypoint=entry, operation=op, tool="vegeta", loop="open", rate=rate, mode=mode, slo_held=held,
                  cpu_per_request_ms=cpu_us / 1000, server_peak_rss_mb=pss * 1.2, server_peak_pss_mb=pss,
                  repeat=repeat, slo=Slo.parse("p99=25ms").as_dict(), sequence=seq, workers=workers,
                  interpreter=interpreter, interpreter_facts=dict(FACTS[interpreter]), server_cores=cores,
                  versions=dict(VERSIONS[interpreter]), foreign_cpu_pct=foreign, preset="free-threading",
                  tags=["production"])


def stack(entry, interpreter, cores, held, failed, op="fortunes", cpu_us=1000.0, pss=60.0, workers=1,
          foreign=1.0, common=None):
    """Two ramps that held `held` (a list: one per repeat) and failed at `failed`, and a cost step at `common`."""
    out = []
    for repeat, (h, f) in enumerate(zip(held, failed)):
        out += [step(entry, interpreter, cores, h, True, op, repeat, cpu_us, pss, workers, foreign),
                step(entry, interpreter, cores, f, False, op, repeat, cpu_us, pss, workers, foreign)]
    if common:
        out.append(step(entry, interpreter, cores, common, True, op, 0, cpu_us, pss, workers, foreign, mode="cost"))
    return out


def run(foreign=1.0, ft_granian=(1500, 1600), twin_granian=(1000, 1050), ft_versions=None) -> list[Result]:
    """granian on 2 cores (3.13t apart above the twin on fortunes, a tie on json), gthread on 2 cores."""
    results = []
    for op, ft_held in (("fortunes", ft_granian), ("json", (1000, 1100))):
        results += stack("flask_granian_ft", FT, 2, ft_held, [h * 1.2 for h in ft_held], op, cpu_us=900, pss=70,
                         workers=2, foreign=foreign, common=400)
        results += stack("flask_granian", TWIN, 2, twin_granian, [h * 1.2 for h in twin_granian], op, cpu_us=700,
                         pss=110, workers=2, foreign=foreign, common=400)
        results += stack("flask_granian", DEFAULT, 2, (900, 950), (1100, 1150), op, cpu_us=650, pss=115, workers=2,
                         foreign=foreign, common=400)
        results += stack("flask_gunicorn_gthread_ft", FT, 2, (800, 850), (1000, 1000), op, cpu_us=1400, pss=80,
                         foreign=foreign, common=400)
        results += stack("flask_gunicorn_gthread", TWIN, 2, (900, 950), (1100, 1150), op, cpu_us=1000, pss=120,
                         workers=2, foreign=foreign, common=400)
    if ft_versions:
        for r in results:
            if r.interpreter == FT:
                r.versions = {**r.versions, **ft_versions}
    return results


def view(results) -> free_threading.FreeThreading:
    return free_threading.build(model.build(results))


def test_the_model_keeps_an_entry_on_two_interpreters_apart_and_pairs_each_free_threaded_stack_with_its_twin():
    v = view(run())
    report = v.report
    granian = [s for a in report.answers if a.operation == "fortunes" for s in a.standings
               if s.entrypoint == "flask_granian"]
    assert sorted(s.label for s in granian) == ["flask_granian", "flask_granian on 3.13"]
    assert {s.label: s.value for s in granian} == {"flask_granian": 925, "flask_granian on 3.13": 1025}
    (m,) = [m for m in v.matches if m.operation == "fortunes" and m.server == "granian-wsgi"]
    assert (m.free_threaded.label, m.twin.label, m.default.label) == (
        "flask_granian_ft", "flask_granian on 3.13", "flask_granian")
    assert m.capacity_ratio == pytest.approx(1550 / 1025) and m.apart and m.verdict == "3.13t ahead"
    assert m.cpu_ratio == pytest.approx(900 / 700) and m.pss_ratio == pytest.approx(70 / 110)
    assert m.free_threaded.layout == "1 process, 2 worker threads x 16 threads"
    assert m.twin.layout == "2 processes x 16 threads" and m.free_threaded.pss_per_worker_mb == 35
    assert m.free_threaded.mb_per_1000 == pytest.approx(1000 * 70 / 1550)
    (json_m,) = [m for m in v.matches if m.operation == "json" and m.server == "granian-wsgi"]
    assert json_m.verdict == "a tie"  # 1,000-1,100 against 1,000-1,050
    assert v.controlled.same and v.quiet.quiet and v.conclusive


def test_the_pick_is_the_capacity_apart_else_the_cheaper_of_a_tie():
    v = view(run())
    page, light = [p for p in v.picks if p.cores == 2]
    assert (page.stack.label, page.build, page.decided_by) == ("flask_granian_ft", "free-threaded", "capacity")
    assert page.against.label == "flask_granian on 3.13"
    # json: 3.13t's granian ties with the twin's: the twin's costs 700 µs against 900, so the GIL build
    assert (light.stack.label, light.build, light.decided_by) == ("flask_granian on 3.13", "gil", "cpu")
    assert light.operations == ("json",)


def test_the_page_says_what_to_pick_from_a_quiet_controlled_run():
    section = free_threading_page.section(view(run()), "results/x/results.jsonl")
    assert "### What to pick" in section and "No conclusion" not in section
    assert "- **A page like fortunes, 2 cores**: `flask_granian_ft` on 3.13t (free-threaded), 1,550/s" in section
    assert "| 2 cores | `flask_granian on 3.13` | 3.13: 3.13.5 (GIL) | 2 processes x 16 threads | 1,025 |" in section


@pytest.mark.parametrize("why, results, reason", [
    ("shared", run(foreign=45.0), "other processes took 45% of the machine in the median step"),
    ("uncontrolled", run(ft_versions={"granian": "2.8.9"}), "granian 2.7.9 on the GIL twin, 2.8.9 on 3.13t"),
])
def test_the_page_refuses_to_draw_a_conclusion_from_a_shared_or_uncontrolled_run(why, results, reason):
    v = view(results)
    assert not v.conclusive and any(reason in r for r in v.refusals), v.refusals
    section = free_threading_page.section(v, "results/x/results.jsonl")
    assert "**No conclusion is drawn from this run.**" in section and reason in section
    assert "**A page like fortunes" not in section and "on 3.13t (free-threaded)" not in section
    assert "### fortunes (a shared or uncontrolled run: not to be read)" in section


def test_a_process_that_did_not_say_its_interpreter_makes_the_run_uncontrolled():
    results = run()
    for r in results:
        if r.interpreter == TWIN:
            r.interpreter_facts = {}
    v = view(results)
    assert not v.conclusive and "flask_granian on 3.13: its process did not say what it ran on" in v.refusals


def test_the_page_renders_without_computing(monkeypatch):
    v = view(run())
    section = free_threading_page.section(v, "r")

    def computing(*args, **kwargs):
        raise AssertionError("the page's renderer computed a derived value")

    for module, name in ((statistics, "median"), (model, "build"), (model, "overlap"), (model, "quietness"),
                         (free_threading, "build"), (free_threading, "_op_pick"), (capacity, "capacities"),
                         (capacity.Capacity, "cost_at"), (capacity.Capacity, "pss_at")):
        monkeypatch.setattr(module, name, computing)
    assert free_threading_page.section(v, "r") == section


def test_the_page_keeps_its_prose_and_replaces_only_its_section(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# Title\n\nprose\n\n" + free_threading_page.START + "\nold\n" + free_threading_page.END + "\n\nafter\n")
    free_threading_page.write(view(run(foreign=45.0)), "r", page)
    text = page.read_text()
    assert text.startswith("# Title\n\nprose\n\n" + free_threading_page.START) and text.endswith("\n\nafter\n")
    assert "\nold\n" not in text and text.count(free_threading_page.START) == 1


def test_a_line_written_before_the_axes_reads_as_what_it_meant():
    """A results line from before the interpreter and cores axes ran on its entry's own interpreter, on the cores
    its pinning gave the server: read so, it matches a newer line of the same stack (bench compare)."""
    old = {"entrypoint": "flask_granian", "language": "python", "operation": "hello", "tool": "wrk",
           "pinning": {"enabled": True, "server_cpus": [0], "tool_cpus": [1]}, "machine": {"usable_cores": 2}}
    r = Result.from_dict(old)
    assert (r.interpreter, r.server_cores) == (DEFAULT, 1)
    unpinned = Result.from_dict({**old, "pinning": {"enabled": False}})
    assert unpinned.server_cores == 2
    go = Result.from_dict({**old, "entrypoint": "nethttp", "language": "go"})
    assert (go.interpreter, go.server_cores) == ("", 1)
    new = Result(entrypoint="flask_granian", language="python", operation="hello", tool="wrk", interpreter=DEFAULT,
                 server_cores=1)
    assert model.Config.of(r) == model.Config.of(new)


def test_no_pick_where_a_stack_the_tool_bounded_may_hold_more_than_the_best_ranked():
    # the twin's granian on json held 4,000/s, then the load tool, not the stack, was the bound at 5,000/s
    results = [r for r in run() if (r.entrypoint, r.interpreter, r.operation) != ("flask_granian", TWIN, "json")]
    for repeat in (0, 1):
        results.append(step("flask_granian", TWIN, 2, 4000, True, op="json", repeat=repeat))
        results.append(step("flask_granian", TWIN, 2, 5000, None, op="json", repeat=repeat))
        results[-1].void_reasons = ["load tool saturated: its CPU 95% of its cores"]
    v = view(results)
    light = next(p for p in v.picks if p.routes.startswith("light"))
    assert (light.stack, light.decided_by) == (None, "void") and [s.label for s in light.void] == ["flask_granian on 3.13"]
    sentence = free_threading_page.pick_sentence(light)
    assert sentence.startswith("**Light routes (hello, json), 2 cores**: no pick: `flask_granian on 3.13` ≥ 4,000/s")
    assert "load tool saturated" in sentence
