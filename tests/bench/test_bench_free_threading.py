"""The free-threading comparison: the interpreter and cores axes in the plan and the model, the preset that fits
about an hour, and docs/free-threading.md's section, which says what to pick only from a quiet, controlled
run (bench/free_threading/comparison.py, bench/free_threading/document.py). No process is run: the results are made here."""
from __future__ import annotations

import statistics
from dataclasses import replace

import pytest

from servers.core import interpreters

from bench.capacity import tally
from bench.capacity.search import Slo
from bench.free_threading import comparison, document
from bench.planning import plan, presets
from bench.report import answers, conditions, model
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


def test_the_free_threading_preset_fits_about_an_hour_on_two_cores_with_independent_repeats():
    preset = replace(presets.get("free-threading"), server_cores=presets.free_threading_cores(2))
    assert preset.server_cores == (1, 2) and presets.free_threading_cores(8) == (1, 2, 4)
    s = preset.settings()
    # every repeat from the same ladder's foot (no guess carried from an earlier repeat), a failing rung confirmed
    assert s.interpreters == [TWIN, DEFAULT] and s.equal_cores and s.ramp.confirm
    assert not hasattr(s.ramp, "guess_from_earlier") and s.ramp.step_s >= 3.0
    p = plan.build(s)
    assert {g.entry.name for g in p.entries} == {"flask_gunicorn_gthread", "flask_gunicorn_gthread_ft",
                                                 "flask_granian", "flask_granian_ft"}
    assert {r.operation for r in p.runs} == {"fortunes", "json", "hello"} and len(p.entries) == 12
    assert p.estimate_s() <= 60 * 60, plan.format_duration(p.estimate_s())


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


def view(results) -> comparison.FreeThreading:
    return comparison.build(model.build(results))


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
    section = document.section(view(run()), "results/x/results.jsonl")
    assert "### What to pick" in section and "No conclusion" not in section
    assert "- **A page like fortunes, 2 cores**: `flask_granian_ft` on 3.13t (free-threaded), 1,550/s" in section
    assert "| 2 cores (threads against processes) | `flask_granian on 3.13` | 3.13: 3.13.5 (GIL) | 2 processes x 16 threads | 1,025 |" in section


@pytest.mark.parametrize("why, results, reason", [
    ("shared", run(foreign=45.0), "other processes took 45% of the machine in the median step"),
    ("uncontrolled", run(ft_versions={"granian": "2.8.9"}), "granian 2.7.9 on the GIL twin, 2.8.9 on 3.13t"),
])
def test_the_page_refuses_to_draw_a_conclusion_from_a_shared_or_uncontrolled_run(why, results, reason):
    v = view(results)
    assert not v.conclusive and any(reason in r for r in v.refusals), v.refusals
    section = document.section(v, "results/x/results.jsonl")
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
    section = document.section(v, "r")

    def computing(*args, **kwargs):
        raise AssertionError("the page's renderer computed a derived value")

    for module, name in ((statistics, "median"), (model, "build"), (answers, "overlap"), (conditions, "quietness"),
                         (comparison, "build"), (comparison, "_op_pick"), (tally, "capacities"),
                         (tally.Capacity, "cost_at"), (tally.Capacity, "pss_at")):
        monkeypatch.setattr(module, name, computing)
    assert document.section(v, "r") == section


def test_the_page_keeps_its_prose_and_replaces_only_its_section(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# Title\n\nprose\n\n" + document.START + "\nold\n" + document.END + "\n\nafter\n")
    document.write(view(run(foreign=45.0)), "r", page)
    text = page.read_text()
    assert text.startswith("# Title\n\nprose\n\n" + document.START) and text.endswith("\n\nafter\n")
    assert "\nold\n" not in text and text.count(document.START) == 1


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
    sentence = document.pick_sentence(light)
    assert sentence.startswith("**Light routes (hello, json), 2 cores**: no pick: `flask_granian on 3.13` ≥ 4,000/s")
    assert "load tool saturated" in sentence


def test_threads_against_processes_is_void_where_the_server_shared_its_cores():
    """On 2 cores of a 2-core machine nothing is pinned: the load tool shares the server's cores, so the cell is
    marked, its match has no verdict, no pick is made for that count, and the page says what machine would
    measure it; the 1-core arm is labelled what it measures, the cost per request of one process."""
    results = run()
    for r in results:
        r.shared_cores = ["load tool"]
    one = (stack("flask_granian_ft", FT, 1, (600, 620), (700, 700), cpu_us=950, common=400)
           + stack("flask_granian", TWIN, 1, (800, 820), (900, 900), cpu_us=700, common=400))
    for r in one:
        r.shared_cores = ["mongo"]  # the backend on the server's one core: marked, but this is no scaling claim
    v = view(results + one)
    (m,) = [m for m in v.matches if m.operation == "fortunes" and m.server == "granian-wsgi" and m.cores == 2]
    assert not m.isolated and m.kind == "not isolated" and m.verdict.startswith("void, not isolated")
    (single,) = [m for m in v.matches if m.operation == "fortunes" and m.cores == 1]
    assert single.isolated and single.kind == "per-request cost" and single.verdict == "the GIL twin ahead"
    page, light = [p for p in v.picks if p.cores == 2]
    assert page.decided_by == light.decided_by == "not isolated" and page.stack is None
    section = document.section(v, "results/x/results.jsonl")
    assert ("- **A page like fortunes, 2 cores**: no pick, not isolated: the server shared its cores with the load "
            "tool (fortunes), so threads of one process against processes is not measured here. What would measure "
            "it: a machine of 6 or more usable cores") in section
    assert "| 1 core (per-request cost) | `flask_granian_ft` |" in section


def test_gunicorn_gthread_has_the_same_threads_per_core_on_both_builds():
    """At equal cores the GIL side runs one gthread process per core, 16 threads each; the free-threaded side's one
    process gets 16 per core, so a thread pool is not what differs."""
    s = plan.Settings(servers=["flask_gunicorn_gthread", "flask_gunicorn_gthread_ft", "flask_granian_ft"],
                      ops=["hello"], capacity_ops=["hello"], capacity_only=True, interpreters=[TWIN],
                      server_cores=[1, 2], equal_cores=True)
    p = plan.build(s)
    options = {(g.entry.name, g.cores): (g.workers, dict(g.runs[0].server_options)) for g in p.entries}
    assert options[("flask_gunicorn_gthread_ft", 2)] == (1, {"threads": 32})
    assert options[("flask_gunicorn_gthread_ft", 1)] == (1, {"threads": 16})
    assert options[("flask_gunicorn_gthread", 2)] == (2, {})  # 2 processes x 16 threads: the suite's default
    assert options[("flask_granian_ft", 2)] == (2, {})  # granian's workers are threads: one per core already
    results = stack("flask_gunicorn_gthread_ft", FT, 2, (800, 850), (1000, 1000), op="hello", common=400)
    for r in results:
        r.server_options = {"threads": 32}
    (m,) = view(results).matches
    assert m.free_threaded.layout == "1 process x 32 threads"


def test_the_plan_says_which_core_counts_it_cannot_isolate_and_what_machine_would(monkeypatch):
    monkeypatch.setattr(plan.pinning, "usable_cpus", lambda: [0, 1])
    s = plan.Settings(servers=["flask_granian_ft"], ops=["hello", "fortunes"], capacity_ops=["hello", "fortunes"],
                      capacity_only=True, server_cores=[1, 2], equal_cores=True)
    notes = plan.build(s).not_isolated
    assert len(notes) == 2  # 1 core: the backends on the server's core; 2 cores: nothing pinned, the tool shares
    assert notes[0].startswith("1 server core: the server would share its cores with the backends")
    assert notes[1].startswith("2 server cores: the server would share its cores with the load tool and the backends")
    assert "a machine of 6 or more usable cores" in notes[1] and "--target" in notes[1]
    monkeypatch.setattr(plan.pinning, "usable_cpus", lambda: list(range(8)))
    assert plan.build(s).not_isolated == []  # 8 cores: server, tool and backends apart
    assert plan.build(plan.Settings(servers=["flask_granian_ft"], ops=["hello"], capacity_ops=["hello"],
                                    capacity_only=True, server_cores=[1])).not_isolated == []  # no comparison


def _as_lane(results: list[Result], version: str) -> list[Result]:
    """The same run as if made with FT_VERSION=version: the lane's keys, the processes' facts and versions."""
    keys = {FT: f"cpython-{version}t", TWIN: f"cpython-{version}"}
    out = []
    for r in results:
        if r.interpreter in keys:
            key = keys[r.interpreter]
            facts = {**r.interpreter_facts, "key": key, "version": f"{version}.7"}
            python = f"{version}.7" + ("t" if r.interpreter == FT else "")
            r = replace(r, interpreter=key, interpreter_facts=facts, versions={**r.versions, "python": python})
        out.append(r)
    return out


def test_a_run_of_another_free_threaded_version_is_named_by_it_and_written_to_its_own_section(tmp_path):
    """FT_VERSION=3.14's run, read without FT_VERSION: its verdicts, picks and versions say 3.14t, and the page
    gets a 3.14t section beside 3.13t's, which stays as it was."""
    v = view(_as_lane(run(), "3.14"))
    assert v.label == "3.14t" and v.controlled.same, v.controlled.reasons
    (m,) = [m for m in v.matches if m.operation == "fortunes" and m.server == "granian-wsgi"]
    assert m.verdict == "3.14t ahead" and m.twin is not None and m.default is not None
    page = [p for p in v.picks if p.cores == 2][0]
    assert "on 3.14t (free-threaded)" in document.pick_sentence(page)
    assert "3.13" not in document.versions_table(v)
    text = tmp_path / "page.md"
    text.write_text("# Title\n\n" + document.START + "\n3.13t's run\n" + document.END + "\n")
    document.write(v, "r", text)
    document.write(v, "r", text)  # a second write replaces its own section
    written = text.read_text()
    start, end, title = document.markers("3.14t")
    assert "\n3.13t's run\n" in written and written.count(start) == 1 and title in written
    assert written.index(document.END) < written.index(start) < written.index(end)


def test_ft_version_moves_the_free_threaded_lane_and_its_virtualenvs():
    """FT_VERSION=3.14 (what the set-up scripts take) makes the _ft entries' interpreter 3.14t and the twin 3.14,
    in .venv-ft3.14 and .venv-314; a process on 3.13t is refused as 3.14t."""
    import subprocess
    import sys

    code = ("from servers.core import interpreters as i, catalog; "
            "print(i.FREE_THREADED, i.GIL_TWIN, i.VENV_FT.name, i.VENV_GIL_TWIN.name, i.SETUP_HINT, "
            "catalog.get('flask_granian_ft').interpreter, sep='|')")
    out = subprocess.run([sys.executable, "-c", code], env={**__import__("os").environ, "FT_VERSION": "3.14"},
                         capture_output=True, text=True, check=True).stdout.strip()
    assert out == ("cpython-3.14t|cpython-3.14|.venv-ft3.14|.venv-314|FT_VERSION=3.14 ./setup.sh --free-threaded|"
                   "cpython-3.14t")
    other = interpreters.get("cpython-3.14t")
    assert other.free_threaded and other.venv.name == ".venv-ft3.14" and interpreters.get("cpython-3.14").label == "3.14"
    assert "3.14" in interpreters.mismatch("cpython-3.14t", FACTS[FT])
