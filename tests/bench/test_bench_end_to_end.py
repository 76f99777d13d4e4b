"""Short real runs of `python -m bench`: real servers, backends and load tools on loopback.

No timing assertions: these check that a run produces valid results and reports, that
failures are recorded rather than dropped, and that nothing is left running.
"""
from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import sys
import time

import psutil
import pytest

from bench import schema
from harness.entry import ROOT, EntryProcess
from processes.ports import free_port


def results_of(out) -> list[schema.Result]:
    path = out / "results.jsonl"
    assert path.exists(), "no results.jsonl"
    for line in path.read_text().splitlines():
        json.loads(line)  # every line is JSON on its own
    return schema.read(path)


@pytest.fixture
def nethttp(tmp_path):
    server = EntryProcess("nethttp", ["--port", str(free_port())], tmp_path / "nethttp.log").start()
    yield server
    server.stop()


@pytest.mark.alone  # the cell's self-checks (tool CPU, Little's law) read the machine
def test_wrk_run_writes_results_and_reports(run_bench, tmp_path, need_tool):
    need_tool("wrk")
    out = tmp_path / "out"
    proc = run_bench("run", "--servers", "stdlib_threaded", "--ops", "hello,json", "--duration", "2",
                     "--tool", "wrk", "--out", str(out), "--plain")
    assert proc.returncode == 0, proc.stderr
    results = results_of(out)
    assert [r.operation for r in results] == ["hello", "json"]
    for r in results:
        assert r.ok, r.failure
        assert r.entrypoint == "stdlib_threaded" and r.dev_only and r.tool == "wrk" and r.tool_version
        assert r.requests > 0 and r.requests_per_s > 0 and r.latency_ms["p99"] is not None
        assert r.server_cpu_s is not None and r.server_peak_rss_mb > 0 and r.workers == 1
        assert r.machine["cores"] and r.versions["python"] and r.pinning
        assert (out / r.raw_output).exists()
        # the cell checked itself: the tool's own CPU, the connections wrk held open, Little's law
        assert r.tool_cpu_s > 0 and r.tool_cpu_pct is not None and r.tool_cores_busy_pct is not None
        assert 0 < r.connections_open <= 50  # stdlib_threaded speaks HTTP/1.0: wrk reconnects, some are mid-connect
        assert r.littles_ratio is not None
    md = (out / "results.md").read_text()
    assert "`stdlib_threaded` **dev-only**" in md and md in proc.stdout
    assert "data:image/png;base64," in (out / "report.html").read_text()
    assert "[1/2] stdlib_threaded hello wrk c=50" in proc.stderr  # the progress line of each run


@pytest.mark.timeout(300)  # a fresh machine builds FerretDB first (about a minute)
def test_backend_routes_hit_every_id(run_bench, tmp_path, need_tool):
    need_tool("wrk")
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server not found: apt-get install redis-server")
    out = tmp_path / "out"
    proc = run_bench("run", "--servers", "nethttp", "--ops", "mongo-pooled,redis-per-request,fortunes", "--duration",
                     "1", "--warmup", "0.5", "--users", "200", "--connections", "4", "--out", str(out), "--plain",
                     timeout=280)
    assert proc.returncode == 0, proc.stderr
    results = results_of(out)
    assert [r.operation for r in results] == ["mongo-pooled", "redis-per-request", "fortunes"]
    # the local backends' own CPU per request, beside the server's; fortunes held against its own query's ceiling
    assert all(r.backend_cpu_per_request_ms and r.backend_cpu_per_request_ms > 0 for r in results)
    fortunes = results.pop()
    assert fortunes.backend_ceiling["query"] == "fortunes" and fortunes.backend_ceiling["requests_per_s"] > 0
    for r in results:
        assert r.ok, r.failure
        assert r.requests > 0 and r.non_2xx == 0 and r.errors_total == 0  # the seeded ids 1..200 all hit
    assert results[0].ids == "random 1..200" and results[0].path == "/mongo/pooled/{id}"
    # The backend alone, measured at the run's concurrency just before it, and the row's share of it.
    for r, backend in zip(results, ("mongo", "redis"), strict=True):
        assert r.backend_ceiling["backend"] == backend and r.backend_ceiling["concurrency"] == 4
        assert r.backend_ceiling["requests_per_s"] > 0 and r.backend_ceiling["errors"] == 0
    assert re.search(r"\| \d+% of [\d,]+ \|", (out / "results.md").read_text())
    state = out / "backends"
    assert state.exists() and not any(state.glob("*/state.json"))  # local backends stopped again


def test_target_keepalive_and_close_passes_then_report_and_compare(run_bench, tmp_path, nethttp, need_tool):
    need_tool("hey")
    a, b = tmp_path / "a", tmp_path / "b"
    proc = run_bench("--target", nethttp.url, "--servers", "nethttp", "--ops", "json", "--tool", "hey", "--close",
                     "--duration", "1", "--warmup", "0", "--connections", "4", "--out", str(a), "--plain")
    assert proc.returncode == 0, proc.stderr
    results = results_of(a)
    assert [r.keepalive for r in results] == [True, False]
    assert all(r.ok and r.target == nethttp.url and r.server_cpu_s is None and r.requests > 0 for r in results)
    assert "close" in (a / "results.md").read_text()
    need_tool("vegeta")
    proc = run_bench("--target", nethttp.url, "--ops", "hello", "--tool", "vegeta", "--rate", "50", "--duration",
                     "1", "--warmup", "0", "--out", str(b), "--plain")
    assert proc.returncode == 0, proc.stderr
    (open_loop,) = results_of(b)
    assert open_loop.ok and open_loop.loop == "open" and open_loop.rate == 50 and open_loop.success_ratio == 1.0
    assert open_loop.entrypoint == "target"
    (a / "report.html").unlink()
    proc = run_bench("report", str(a / "results.jsonl"))
    assert proc.returncode == 0 and (a / "report.html").exists()
    proc = run_bench("compare", str(a / "results.jsonl"), str(b / "results.jsonl"))
    assert proc.returncode == 0 and "only in A" in proc.stdout and "req/s a" in proc.stdout


def test_a_failing_stack_is_recorded_not_dropped(run_bench, tmp_path):
    out = tmp_path / "out"
    dead = f"http://127.0.0.1:{free_port()}"
    proc = run_bench("--target", dead, "--ops", "hello,json", "--tool", "wrk", "--duration", "1", "--out", str(out),
                     "--plain")
    assert proc.returncode == 1, proc.stderr  # every run failed
    results = results_of(out)
    assert len(results) == 2 and all(r.status == "failed" and "contract" in r.failure for r in results)
    assert "## Failed runs" in (out / "results.md").read_text()


def test_only_loopback_targets(run_bench):
    proc = run_bench("--target", "http://192.0.2.1:8000", "--dry-run")
    assert proc.returncode == 2 and "loopback" in proc.stderr


def test_sigterm_stops_server_and_tool(tmp_path, need_tool):
    need_tool("wrk")
    out = tmp_path / "out"
    bench = subprocess.Popen([sys.executable, "-m", "bench", "--servers", "stdlib_threaded", "--ops", "hello",
                              "--duration", "30", "--warmup", "0", "--out", str(out), "--plain"],
                             cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        seen: set[int] = set()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            children = psutil.Process(bench.pid).children(recursive=True)
            seen |= {c.pid for c in children}
            cmdlines = " ".join(" ".join(c.cmdline()) for c in children if c.is_running())
            if "servers.stdlib_threaded" in cmdlines and "wrk" in cmdlines:
                break
            time.sleep(0.1)
        else:
            pytest.fail("the server and wrk did not both start")
        bench.send_signal(signal.SIGTERM)
        bench.wait(20)
        assert bench.returncode == 130
        gone, alive = psutil.wait_procs([psutil.Process(p) for p in seen if psutil.pid_exists(p)], timeout=5)
        assert not alive, f"left running: {[p.cmdline() for p in alive]}"
    finally:
        if bench.poll() is None:
            bench.kill()
            bench.wait()
