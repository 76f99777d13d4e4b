"""Backend-bound cells: a ceiling for every backend route (fortunes included), closed and open loop alike; a cell
whose backends share the server's cores and took most of its requests' CPU is never ranked nor a ratio's
denominator; backend routes lead with the server's CPU per request, the backends' beside it; the ratio to Go is
computed from the cells that hold, and the report says how."""
from __future__ import annotations

import pytest

from bench import selfcheck
from bench.capacity import tally
from bench.capacity.search import Slo
from bench.planning.plan import RunSpec
from bench.report import conditions, model, results_md
from bench.run import ceiling
from bench.schema import Result
from servers.core import catalog

SHARED = {"enabled": True, "server_cpus": [0], "tool_cpus": [1], "backends": "with the server", "backend_cpus": [0]}
APART = {"enabled": True, "server_cpus": [0, 1], "tool_cpus": [2, 3, 4], "backends": "own cores", "backend_cpus": [5]}


def step(entry, rate, held, cpu_ms, backend_ms, pins=SHARED, op="fortunes", mode="capacity", void=(), repeat=0):
    return Result(entrypoint=entry, operation=op, tool="vegeta", loop="open", rate=rate, mode=mode, slo_held=held,
                  cpu_per_request_ms=cpu_ms, backend_cpu_per_request_ms=backend_ms, pinning=dict(pins),
                  void_reasons=list(void), repeat=repeat, slo=Slo.parse("p99=25ms").as_dict(),
                  language=catalog.get(entry).language)


def ramp(entry, held, failed, cpu_ms, backend_ms, pins=SHARED, void_at_failed=()):
    return [step(entry, held, True, cpu_ms, backend_ms, pins),
            step(entry, failed, None if void_at_failed else False, cpu_ms, backend_ms, pins, void=void_at_failed)]


def test_a_cell_is_backend_bound_only_where_its_backends_share_the_servers_cores_and_took_most_of_the_cpu():
    go = ramp("nethttp", 400, 500, cpu_ms=0.36, backend_ms=0.7)  # Go's server at 0.36 ms, the backends 0.7 ms
    (cap,) = tally.capacities(go)
    assert cap.void and not cap.ramp_void_reasons  # not a lower bound: what the stack and its backend held
    assert "backend-bound" in cap.backend_bound[0] and "66%" in cap.backend_bound[0]
    # the same numbers with the backends on cores of their own: the backend is not on the server's cores
    (apart,) = tally.capacities(ramp("nethttp", 400, 500, 0.36, 0.7, pins=APART))
    assert not apart.void
    # a stack whose own CPU per request is most of it: its cell holds
    (flask,) = tally.capacities(ramp("flask_gevent", 300, 400, cpu_ms=1.5, backend_ms=0.7))
    assert not flask.void
    # nothing pinned: every process on every core, the backends share the server's
    assert selfcheck.backends_share_server_cores({"enabled": False, "reason": "--no-pin"})
    assert not selfcheck.backends_share_server_cores({**SHARED, "backends": "none", "backend_cpus": []})


def test_a_closed_loop_row_is_backend_bound_by_the_same_rule():
    runs = [Result(entrypoint="nethttp", operation="fortunes", tool="wrk", loop="closed", connections=50,
                   requests=3000, requests_per_s=1000, latency_ms={"p99": 9.0, "mean": 5.0}, cpu_per_request_ms=0.3,
                   backend_cpu_per_request_ms=0.8, pinning=dict(SHARED), repeat=i) for i in range(2)]
    (row,) = model.build(runs).closed
    assert row.void and "backend-bound" in row.void_reasons[0] and row.backend_cpu_per_request_ms == 0.8


def test_the_fortunes_answer_ranks_no_backend_bound_cell_and_leaves_it_out_of_the_ratio_to_go():
    results = (ramp("nethttp", 400, 500, cpu_ms=0.36, backend_ms=0.7)
               + ramp("flask_gevent", 300, 400, cpu_ms=1.5, backend_ms=0.7)
               + ramp("sanic", 350, 500, cpu_ms=0.9, backend_ms=0.7))
    # the cost pass: each stack once more at the common rate, half the slowest capacity
    results += [step(entry, 150, True, cpu, 0.7, mode="cost")
                for entry, cpu in (("nethttp", 0.36), ("flask_gevent", 1.5), ("sanic", 0.9))]
    report = model.build(results)
    (answer,) = report.answers
    assert [s.entrypoint for s in answer.ranked] == ["sanic", "flask_gevent"]  # Go's cell is backend-bound
    assert answer.go.go is None and answer.go.capacity == ()
    md = results_md.render(report)
    part = md.split("## fortunes: capacity within")[1].split("\n## ")[0]
    assert "- Backend-bound, not ranked: `nethttp` held 400/s with its backend on the server's cores" in part
    assert "- No capacity ratio to Go from this run: no Go cell holds (`nethttp` backend-bound)." in part
    # the server's CPU per request still compares, at one rate: Go's 360 µs against each stack's
    assert ("Server CPU per request against Go's at 150/s (`nethttp` 360 µs; the stack's own cost, which a "
            "backend-bound cell still measures): `sanic` 0.40 of Go's speed (900 µs), `flask_gevent` 0.24 of Go's "
            "speed (1,500 µs).") in part
    assert "`nethttp` 360 µs + backends 700 µs" in part
    # the table leads with the server's CPU per request, the backends' beside it
    header = next(line for line in part.splitlines() if line.startswith("| rank"))
    assert "| server cpu µs/req | backends cpu µs/req |" in header
    row = next(line for line in part.splitlines() if "`nethttp`" in line and line.startswith("| –"))
    assert "| 400 (backend-bound) |" in row and "| 360 | 700 |" in row


def test_the_ratio_to_go_takes_capacities_only_from_cells_that_hold():
    saturated = ["load tool saturated: its CPU 97% of its cores"]
    results = (ramp("nethttp", 800, 1000, cpu_ms=0.2, backend_ms=0.1)
               + ramp("flask_gevent", 400, 500, cpu_ms=1.5, backend_ms=0.1)
               + ramp("sanic", 600, 700, cpu_ms=0.9, backend_ms=0.1, void_at_failed=saturated))
    (answer,) = model.build(results).answers
    assert answer.go.go.entrypoint == "nethttp"
    assert [(s.entrypoint, ratio) for s, ratio in answer.go.capacity] == [("flask_gevent", 0.5)]
    md = results_md.render(model.build(results))
    assert ("Ratio to Go, capacity over `nethttp`'s 800/s, from the cells that are not void (a backend-bound or "
            "tool-bound cell is neither numerator nor denominator): `flask_gevent` 0.50. Left out (void: bound by "
            "the tool or the backend, on either side): `sanic`.") in md


class FakeCeilings(ceiling.Ceilings):
    def _measure(self, backend, query, concurrency, duration_s):
        return {"backend": backend, "query": query, "concurrency": concurrency, "requests_per_s": 1000.0}


@pytest.mark.parametrize(("op", "rate", "mode", "connections", "expected"), [
    ("fortunes", None, "", 50, ("mongo", "fortunes", 50)),  # closed loop at its concurrency
    ("fortunes", 300.0, "capacity", 0, ("mongo", "fortunes", ceiling.OPEN_LOOP_CONCURRENCY)),  # a ramp's step
    ("mongo-per-request", 300.0, "", 0, ("mongo", "lookup", ceiling.OPEN_LOOP_CONCURRENCY)),  # --rate
    ("redis-pooled", None, "", 16, ("redis", "lookup", 16)),
])
def test_every_backend_route_gets_a_ceiling_closed_or_open_loop(op, rate, mode, connections, expected):
    ceilings = FakeCeilings({"mongo": "mongodb://x", "redis": "redis://x"}, users=100)
    run = RunSpec(entry=catalog.get("flask_gevent"), operation=op, path=catalog.OPERATIONS[op], tool="vegeta",
                  connections=connections, threads=None, rate=rate, keepalive=True, duration_s=1.0, requests=None,
                  repeat=0, repeats=1, workers=None, mode=mode)
    got = ceilings.for_run(run)
    assert (got["backend"], got["query"], got["concurrency"]) == expected
    hello = RunSpec(**{**run.__dict__, "operation": "hello", "path": "/"})
    assert ceilings.for_run(hello) == {}


def test_an_open_loop_step_near_its_backends_ceiling_is_void():
    check = selfcheck.Check(loop="open", offered_rate=900, sent_rate=900, backend_share=0.9)
    assert "backend bound" in selfcheck.void_reasons(check)[0]


def probed(entry, moved_pct, foreign_pct, threshold=15.0):
    return Result(entrypoint=entry, operation="hello", tool="wrk", loop="closed", connections=50, requests=3000,
                  requests_per_s=1000, latency_ms={"p99": 9.0, "mean": 5.0}, probe_before={"cpu_ms": 1.0},
                  probe_after={"cpu_ms": 1.0 + moved_pct / 100}, probe_moved_pct=moved_pct,
                  noisy=moved_pct > threshold, noise_threshold_pct=threshold, foreign_cpu_pct=foreign_pct)


def test_the_noise_verdict_and_the_machine_verdict_are_one_rule():
    # others took little of the machine at every step, but the probe moved past its threshold in 42 of 63 runs
    results = [probed("a", 30.0 if i < 42 else 2.0, foreign_pct=1.0) for i in range(63)]
    quiet = conditions.quietness(results)
    assert not quiet.quiet and quiet.noisy == 42 and quiet.probed == 63
    assert "the noise probe moved more than 15% in 42 of 63 runs" in quiet.reasons[0]
    md = results_md.render(model.build(results))
    assert "noisy runs (probe moved more than 15% from before to after the run): 42 of 63" in md
    assert "- the machine: **shared** with other work: the noise probe moved more than 15% in 42 of 63 runs" in md
    assert "quiet (" not in md
    # the same run with a probe that stayed put (one cron job aside): quiet, and the line says both readings
    calm = [probed("a", 30.0 if i < 1 else 2.0, foreign_pct=1.0) for i in range(63)]
    assert conditions.quietness(calm).quiet
    assert ("- the machine: quiet (others took at most a few percent of it, and the noise probe moved more than 15% "
            "in 1 of 63 runs)") in results_md.render(model.build(calm))


def test_each_answer_says_where_the_pieces_ran_and_what_that_placement_measures():
    results = ramp("flask_gevent", 300, 400, cpu_ms=1.5, backend_ms=0.3) + ramp("sanic", 350, 500, 0.9, 0.3)
    for r in results:
        r.placement, r.shared_cores = {"server": [0], "load tool": [1], "mongo": [0]}, ["mongo"]
    md = results_md.render(model.build(results))
    assert ("- Placement: server on cpu 0, load tool on cpu 1, mongo on cpu 0; it measures the server shares its "
            "cores with the mongo: cost per request (the server's own CPU); its capacity is the stack's together "
            "with theirs, never compared on scaling nor threads against processes.") in md
    for r in results:
        r.placement, r.shared_cores = {"server": [0, 1], "load tool": [2, 3], "mongo": [4]}, []
    assert ("it measures the server on cores of its own: capacity, cost per request, and scaling across core "
            "counts.") in results_md.render(model.build(results))


def test_an_old_line_is_marked_as_it_was_run_from_its_pinning_record():
    """Results written before shared_cores: the free-threading run of 2026-12-05 ran its 2-core arm unpinned, the
    load tool and FerretDB on the server's cores; its 1-core arm pinned, the backends with the server."""
    from bench.schema import Result as R

    unpinned = {"enabled": False, "server_cpus": [], "tool_cpus": [], "backends": "unpinned", "backend_cpus": []}
    base = {"entrypoint": "flask_granian", "machine": {"usable_cores": 2}, "server_cores": 2}
    old = R.from_dict({**base, "operation": "fortunes", "pinning": unpinned, "backends": {"mongo": "mongodb://x"}})
    assert old.shared_cores == ["load tool", "mongo"]
    assert R.from_dict({**base, "operation": "hello", "pinning": unpinned}).shared_cores == ["load tool"]
    one = R.from_dict({**base, "operation": "fortunes", "pinning": dict(SHARED), "backends": {"mongo": "m"}})
    assert one.shared_cores == ["mongo"]
    assert R.from_dict({**base, "operation": "hello", "pinning": dict(SHARED)}).shared_cores == []
    assert R.from_dict({**base, "operation": "hello", "pinning": dict(SHARED), "shared_cores": ["x"]}).shared_cores \
        == ["x"]  # a newer line says it itself


def test_a_backend_bound_cell_that_held_no_rate_says_so():
    # Go's fortunes cell of a --quick run on a shared machine: every step missed, its backends at 73 % of the CPU
    results = [step("nethttp", 300, False, 0.41, 1.11), step("nethttp", 150, False, 0.41, 1.11)]
    results += ramp("flask_gevent", 300, 400, cpu_ms=1.5, backend_ms=0.7)
    md = results_md.render(model.build(results))
    assert "- Backend-bound, not ranked: `nethttp` held no rate it was offered with its backend on the server's" in md
