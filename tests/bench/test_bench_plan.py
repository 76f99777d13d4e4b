"""Selection, presets, the plan and the tools' command lines: derived from the catalog, no process run."""
from __future__ import annotations

from pathlib import Path

import pytest

from servers.core import catalog

from bench.planning import plan, presets, selection
from harness import pinning
from loadtools import LoadSpec, Unsupported, get, vegeta


def names(entries) -> list[str]:
    return [e.name for e in entries]


def test_servers_by_name_glob_and_tag():
    assert names(selection.select_entries("flask_*,sanic")) == [
        e.name for e in catalog.ENTRIES if e.name.startswith("flask_")] + ["sanic"]
    dev = names(selection.select_entries("dev-only"))
    assert dev == [e.name for e in catalog.ENTRIES if e.dev_only] and "flask_dev" in dev
    assert names(selection.select_entries("go")) == list(catalog.GO_COMMANDS)
    sanic = names(selection.select_entries("framework:sanic"))
    assert sanic == [e.name for e in catalog.ENTRIES if e.framework == "sanic"]
    assert {"sanic", "sanic_motor", "sanic_uvicorn", "sanic_glide"} <= set(sanic)
    assert names(selection.select_entries("falcon,!falcon_dev")) == [
        e.name for e in catalog.ENTRIES if e.framework == "falcon" and e.name != "falcon_dev"]
    assert "flask_dev" not in names(selection.select_entries("!dev-only"))
    with pytest.raises(ValueError, match="matches no catalog entry"):
        selection.select_entries("nope")


def test_ops_and_families():
    assert selection.select_ops("hello,json") == ["hello", "json"]
    assert selection.select_ops("redis,mongo-pooled") == ["mongo-pooled", "redis-pooled", "redis-per-request"]
    assert selection.select_ops("all") == list(catalog.OPERATIONS)
    with pytest.raises(ValueError, match="unknown operation"):
        selection.select_ops("hello,nope")
    assert catalog.backend_of("mongo-per-request") == "mongo" and catalog.backend_of("json") is None


def test_an_entry_runs_only_the_ops_it_supports():
    s = plan.Settings(servers=[catalog.ENTRIES[0].name], ops=list(catalog.ALL_OPS))
    entry = catalog.ENTRIES[0]
    p = plan.build(s)
    assert {r.operation for r in p.runs} == set(entry.ops)


def test_quick_matrix_covers_every_framework_a_go_stack_and_every_op():
    s = plan.Settings(servers=list(plan.QUICK_SERVERS)).scaled_quick()
    p = plan.build(s)
    frameworks = {r.entry.framework for r in p.runs if r.entry.language == "python"}
    assert frameworks >= {"flask", "falcon", "sanic", "tornado", "twisted", "stdlib"}
    assert any(r.entry.language == "go" for r in p.runs)
    assert {r.operation for r in p.runs} == set(catalog.OPERATIONS)
    assert p.backends() == ["mongo", "redis"]
    assert all(r.duration_s == plan.QUICK_DURATION_S for r in p.runs)
    assert p.estimate_s() < 7 * 60  # "a few minutes" on 2 cores: seven routes of nine stacks, 3 s each


def test_repeats_passes_and_loads_multiply():
    s = plan.Settings(servers=["nethttp"], ops=["hello"], connections=[10, 20], keepalive=[True, False], repeat=3)
    p = plan.build(s)
    assert len(p.runs) == 2 * 2 * 3
    assert len({r.group for r in p.runs}) == 4


def test_workers_are_clamped_for_one_process_stacks():
    p = plan.build(plan.Settings(servers=["stdlib", "gin"], ops=["hello"], workers=2))
    by_name = {g.entry.name: g for g in p.entries}
    assert by_name["stdlib"].workers == 1 and by_name["stdlib"].notes
    assert by_name["gin"].workers == 2


@pytest.mark.parametrize("name", list(presets.PRESETS))
def test_presets_are_built_from_the_catalog(name):
    preset = presets.get(name)
    full, quick = plan.build(preset.settings()), plan.build(preset.settings(quick=True))
    assert full.runs and {r.group for r in full.runs} == {r.group for r in quick.runs}  # the same matrix
    assert {r.repeats for r in full.runs} == {preset.repeats} and preset.repeats >= 3
    assert {r.repeats for r in quick.runs} == {min(preset.repeats, plan.QUICK_REPEAT)}
    assert quick.estimate_s() < full.estimate_s()
    assert "runs, about" in preset.expected()
    tool = get(preset.tool)
    for run in full.runs:
        tool.check(LoadSpec(base_url="http://127.0.0.1:1", path=run.path, connections=run.connections or 1,
                            rate=run.rate, keepalive=run.keepalive, protocol=run.protocol))


def test_preset_details():
    ladder = presets.get("hello-ladder").settings()
    assert set(ladder.servers) == {"stdlib", "stdlib_threaded", "tornado", "sanic", "nethttp"}
    assert (ladder.tool, ladder.threads, ladder.connections) == ("wrk", 10, [200])
    evf = presets.get("echo-vs-flask").settings()
    assert (evf.tool, evf.requests, evf.connections, evf.keepalive) == ("ab", 100_000, [100], [False])
    rate = presets.get("constant-rate-wsgi").settings()
    assert rate.tool == "vegeta" and rate.rates == [550.0] and len(rate.servers) == 8
    one = presets.get("one-core").settings()
    assert one.workers == 1 and one.server_cores == [1] and one.connections == [50, 100, 200]
    assert presets.get("redis-get").settings().ops == ["redis-pooled"]


def spec(tmp_path: Path, **kw) -> LoadSpec:
    return LoadSpec(base_url="http://127.0.0.1:8000", workdir=tmp_path, **{"path": "/", **kw})


def test_wrk_command_and_random_id_script(tmp_path):
    wrk = get("wrk")
    s = spec(tmp_path, path="/mongo/pooled/{id}", connections=100, threads=8, duration_s=3, users=500)
    argv = wrk.command(s)
    assert argv[1:5] == ["-t8", "-c100", "-d3s", "--timeout=5s"]
    script = s.file(".lua").read_text()
    assert "math.random(1, 500)" in script and '"/mongo/pooled/"' in script and "percentile(99.9)" in script
    plain = spec(tmp_path, path="/json", stem="plain")
    wrk.command(plain)
    assert "request = function" not in plain.file(".lua").read_text()
    with pytest.raises(Unsupported, match="client side"):
        wrk.check(spec(tmp_path, keepalive=False))
    with pytest.raises(Unsupported, match="vegeta"):
        wrk.check(spec(tmp_path, rate=100))


def test_keepalive_and_close_flags_are_client_side(tmp_path):
    assert "-k" in get("ab").command(spec(tmp_path))
    assert "-k" not in get("ab").command(spec(tmp_path, keepalive=False))
    assert "-disable-keepalive" in get("hey").command(spec(tmp_path, keepalive=False))
    assert "-disable-keepalive" not in get("hey").command(spec(tmp_path))
    v = get("vegeta")
    try:
        v.binary()
    except Exception:  # noqa: BLE001
        pytest.skip("vegeta not installed")
    assert "-keepalive=false" in v.command(spec(tmp_path, keepalive=False, rate=10))
    assert "-rate=10/1s" in v.command(spec(tmp_path, rate=10))
    closed = v.command(spec(tmp_path, connections=7))
    assert "-rate=0" in closed and "-max-workers=7" in closed


def test_ab_requests_and_time_limit(tmp_path):
    argv = get("ab").command(spec(tmp_path, requests=100_000, connections=100, duration_s=30))
    assert argv[argv.index("-t") + 1] == "30" and argv[argv.index("-n") + 1] == "100000"
    assert argv.index("-t") < argv.index("-n")  # -t resets -n, so -n comes after it
    assert argv[-1] == "http://127.0.0.1:8000/"


def test_fixed_id_and_vegeta_targets_cover_the_ids(tmp_path):
    s = spec(tmp_path, path="/mongo/per-request/{id}", users=50, fixed_id=7)
    assert s.fixed_url() == "http://127.0.0.1:8000/mongo/per-request/7"
    lines = vegeta.targets(s).splitlines()
    assert sorted(int(l.rsplit("/", 1)[1]) for l in lines) == list(range(1, 51))
    assert get("hey").ids(s) == "fixed 7" and get("wrk").ids(s) == "random 1..50"


def test_pinning_plan():
    assert pinning.plan(False).enabled is False
    p = pinning.plan(True)
    cpus = pinning.usable_cpus()
    if len(cpus) >= 2 and p.enabled:
        assert p.server_cpus == cpus[:len(cpus) // 2] and p.tool_cpus == cpus[len(cpus) // 2:]
        assert p.server_prefix()[:2] == ["taskset", "-c"]
        one = pinning.plan(True, server_cores=1)
        assert one.server_cpus == cpus[:1]
        assert not set(one.server_cpus) & set(one.tool_cpus)
    else:
        assert p.server_prefix() == [] and p.reason
