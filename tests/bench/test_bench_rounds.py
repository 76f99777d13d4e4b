"""Real short runs of `python -m bench` with repeats: the order of interleaved rounds, the noise probe
on every result, --rerun-noisy, and the report's scheme, noise and significance lines.

No timing assertions: what is checked is the order of the runs and the fields they carry.
"""
from __future__ import annotations

from bench import defaults, schema

STACKS = ("stdlib_threaded", "nethttp")  # catalog order: stdlib_threaded comes first


def run_two_stacks(run_bench, out, *extra: str):
    proc = run_bench("run", "--servers", ",".join(STACKS), "--ops", "hello", "--tool", "wrk", "--repeat", "2",
                     "--duration", "1", "--warmup", "0.2", "--connections", "8", "--out", str(out), "--plain",
                     *extra, timeout=110)
    assert proc.returncode == 0, proc.stderr
    results = schema.read(out / "results.jsonl")
    assert [r.sequence for r in results] == list(range(1, len(results) + 1))
    return proc, results


def test_interleaved_rounds_alternate_and_every_run_is_probed(run_bench, tmp_path, need_tool):
    need_tool("wrk")
    out = tmp_path / "out"
    proc, results = run_two_stacks(run_bench, out)
    assert [(r.entrypoint, r.repeat) for r in results] == [
        ("stdlib_threaded", 0), ("nethttp", 0), ("nethttp", 1), ("stdlib_threaded", 1)]
    for r in results:
        assert r.ok, r.failure
        assert r.rounds_order == "interleaved" and r.repeats == 2 and r.rerun == 0 and not r.superseded
        for probe in (r.probe_before, r.probe_after):
            assert probe["cpu_ms"] > 0 and probe["loopback_ms"] > 0
        assert r.probe_moved_pct is not None and r.noise_threshold_pct == defaults.NOISE_THRESHOLD_PCT
        assert r.noisy == (r.probe_moved_pct > defaults.NOISE_THRESHOLD_PCT)
    # the server is started afresh in every round
    assert proc.stderr.count("starting nethttp ...") == 2 and proc.stderr.count("starting stdlib_threaded ...") == 2
    md = (out / "results.md").read_text()
    assert "- repeats: 2 interleaved rounds" in md and "machine noise over the session" in md
    assert "## Are the differences above the noise?" in md and "`nethttp` | `stdlib_threaded` **dev-only**" in md
    proc = run_bench("compare", str(out / "results.jsonl"), "--stacks", ",".join(STACKS))
    assert proc.returncode == 0 and "95% interval" in proc.stdout and "`stdlib_threaded` **dev-only** → `nethttp`" \
        in proc.stdout


def test_sequential_order_and_noisy_runs_measured_again(run_bench, tmp_path, need_tool):
    need_tool("wrk")
    # a threshold no real probe stays under: every run is noisy, and measured once more
    proc, results = run_two_stacks(run_bench, tmp_path / "out", "--rounds-order", "sequential",
                                   "--noise-threshold", "0.000001", "--rerun-noisy", "1")
    kept = [r for r in results if not r.superseded]
    assert [(r.entrypoint, r.repeat) for r in kept] == [
        ("stdlib_threaded", 0), ("stdlib_threaded", 1), ("nethttp", 0), ("nethttp", 1)]
    assert all(r.rounds_order == "sequential" and r.noisy for r in results)
    superseded = [r for r in results if r.superseded]
    assert superseded and all(r.rerun == 0 for r in superseded) and len(results) == 4 + len(superseded)
    for old in superseded:  # the next line of the file is its repeat, which counts
        again = results[results.index(old) + 1]
        assert (again.entrypoint, again.repeat, again.rerun, again.superseded) == (old.entrypoint, old.repeat, 1,
                                                                                    False)
    assert proc.stderr.count("starting nethttp ...") == 1 and "measuring again" in proc.stderr
    md = (tmp_path / "out" / "results.md").read_text()
    assert "back to back" in md and "measured again (--rerun-noisy)" in md and "(noisy 2/2)" in md


def test_repeat_options_are_checked(run_bench):
    proc = run_bench("--servers", "nethttp", "--rerun-noisy", "1", "--no-probe", "--dry-run")
    assert proc.returncode == 2 and "needs the noise probe" in proc.stderr
    proc = run_bench("--servers", "nethttp", "--rounds-order", "shuffled", "--dry-run")
    assert proc.returncode == 2 and "invalid choice" in proc.stderr
    proc = run_bench("--servers", "nethttp,sanic", "--ops", "hello", "--repeat", "3", "--dry-run")
    assert proc.returncode == 0 and "3 interleaved rounds" in proc.stderr
