"""bench's locust tool: its parser on real captured outputs (tests/bench/data/locust_*, made by
capture_locust.py), the commands of its two modes, and where a run's pieces are recorded."""
from __future__ import annotations


import pytest

from bench.run import hosts
from loadtools import LoadSpec, Unsupported, get, locust


def report(raw, case: str) -> dict:
    return locust.report_of(raw("locust", case)["stdout"])


def test_ok_numbers_are_locusts_own(raw):
    data = report(raw, "ok")
    m = locust.parse(raw("locust", "ok")["stdout"])
    assert m.requests == data["num_requests"] > 1000 and m.errors_total == 0 and m.non_2xx == 0
    seconds = data["last_request_timestamp"] - data["start_time"]
    assert m.requests_per_s == pytest.approx(data["num_requests"] / seconds, rel=0.01)  # locust's total_rps
    assert m.latency_ms["p99"] == data["percentiles_ms"]["0.99"] and m.latency_ms["p99.9"] is not None
    values = [m.latency_ms[k] for k in ("p50", "p90", "p95", "p99", "p99.9")]
    assert values == sorted(values) and all(float(v).is_integer() for v in values)  # whole-ms buckets here
    assert m.finish().success_ratio == 1


def test_distributed_run_names_its_workers(raw):
    text = raw("locust", "distributed")["stdout"]
    m = locust.parse(text)
    assert m.requests > 1000 and m.errors_total == 0
    names, count = locust.load_hosts(text)
    assert count == 2 and len(names) == 1  # two worker processes on one host
    assert report(raw, "distributed")["mode"] == "distributed"


def test_non_2xx_are_answers_not_errors(raw):
    m = locust.parse(raw("locust", "non2xx")["stdout"])
    assert m.requests > 0 and m.non_2xx == m.requests and m.errors_total == 0
    assert m.status_codes == {"503": m.requests}
    assert m.finish().success_ratio == 0


def test_requests_without_an_answer_are_errors_by_kind(raw):
    data = report(raw, "errors")
    m = locust.parse(raw("locust", "errors")["stdout"])
    assert m.errors["timeout"] > 0 and m.non_2xx == 0  # the flaky server's 1.5 s answers, 1 s timeout
    assert m.requests + m.errors_total == data["num_requests"]
    assert m.error_samples and m.finish().success_ratio < 1


@pytest.mark.parametrize("message, kind", [
    ("RetriesExceeded('http://127.0.0.1:1/', 0, original=timed out)", "timeout"),
    ("ConnectionRefusedError(111, 'Connection refused')", "connect"),
    ("ConnectionResetError(104, 'Connection reset by peer')", "read"),
    ("BrokenPipeError(32, 'Broken pipe')", "write"),
    ("HTTPParseError('invalid HTTP status line')", "read"),
])
def test_error_kinds(message, kind):
    assert locust.error_kind(message) == kind


def test_without_the_report_line_is_an_error():
    with pytest.raises(ValueError, match="BENCH-LOCUST"):
        locust.parse("ImportError: no module named locust\n")
    assert locust.load_hosts("") == ([], 0)


def spec(**kw) -> LoadSpec:
    return LoadSpec(base_url="http://127.0.0.3:8000", path="/mongo/pooled/{id}", connections=20,
                    duration_s=3, users=500, **kw)


def test_one_process_or_a_master_with_workers():
    tool = get("locust")
    alone = tool.command(spec())
    assert alone[1:4] == ["-m", "locust", "-f"] and "--master" not in alone
    assert alone[alone.index("-u") + 1] == "20" and alone[alone.index("--bench-path") + 1] == "/mongo/pooled/{id}"
    assert alone[alone.index("--bench-users") + 1] == "500" and alone[alone.index("-t") + 1] == "3s"
    cluster = tool.command(spec(load_workers=3, master_bind="127.0.0.4"))
    assert cluster[1:3] == ["-m", "loadtools.locust_cluster"]
    assert cluster[cluster.index("--workers") + 1] == "3" and cluster[cluster.index("--bind") + 1] == "127.0.0.4"
    assert cluster[cluster.index("--expect-workers") + 1] == "3"
    assert hosts.load_master(cluster) == f"127.0.0.4:{cluster[cluster.index('--port') + 1]}"
    assert hosts.load_master(alone) == ""
    assert tool.time_limit(spec(load_workers=3)) > tool.time_limit(spec())


def test_remote_workers_wait_on_a_known_port():
    tool = get("locust")
    argv = tool.command(spec(load_workers=1, remote_workers=2, master_bind="10.0.0.5"))
    assert argv[argv.index("--port") + 1] == "5557" and argv[argv.index("--expect-workers") + 1] == "3"
    assert "--master-host 10.0.0.5 --master-port 9000" in tool.announce(spec(remote_workers=1,
                                                                              master_bind="10.0.0.5:9000"))
    assert tool.announce(spec(load_workers=2)) == ""
    with pytest.raises(Unsupported):
        tool.check(spec(keepalive=False))


def test_backend_urls_are_recorded_without_credentials():
    assert hosts.without_credentials("mongodb://u:$PASSWORD@db.example:27017/test?authSource=admin") == \
        "mongodb://db.example:27017/test?authSource=admin"
    assert hosts.without_credentials("redis://:$PASSWORD@127.0.0.2:6379/0") == "redis://127.0.0.2:6379/0"
    assert hosts.without_credentials("redis://127.0.0.2:6379/0") == "redis://127.0.0.2:6379/0"
    urls = {"mongo": "mongodb://a:$B@m:1/test", "redis": ""}
    assert hosts.backends_of("mongo-pooled", urls) == {"mongo": "mongodb://m:1/test"}
    assert hosts.backends_of("redis-pooled", urls) == {} and hosts.backends_of("hello", urls) == {}


@pytest.mark.parametrize("args, message", [
    (["--tool", "wrk", "--load-workers", "2"], "--tool locust"),
    (["--tool", "locust", "--load-workers", "-1"], "0 or more"),
    (["--remote-target"], "--target"),
])
def test_cli_refuses_mismatched_options(run_bench, args, message):
    proc = run_bench("--servers", "nethttp", "--ops", "hello", "--dry-run", *args)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr


def test_remote_target_is_opt_in(run_bench):
    proc = run_bench("--target", "http://192.0.2.1:8000", "--remote-target", "--tool", "locust", "--dry-run")
    assert proc.returncode == 0, proc.stderr
