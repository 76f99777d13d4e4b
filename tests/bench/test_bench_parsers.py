"""The load tools' parsers on real captured outputs (tests/bench/data, made by capture_data.py)."""
from __future__ import annotations

import json

import pytest

from loadtools import ab, errors, h2load, hey, vegeta, wrk


def ordered(latency: dict) -> list[float]:
    return [latency[k] for k in ("p50", "p90", "p95", "p99", "p99.9", "max") if latency.get(k) is not None]


def assert_sane(m, expect_latency: bool = True):
    assert m.requests >= 0 and m.duration_s > 0
    if expect_latency and m.requests:
        values = ordered(m.latency_ms)
        assert values, m.latency_ms
        assert values == sorted(values), f"percentiles not monotonic: {m.latency_ms}"


# -- wrk ---------------------------------------------------------------------------------------------
def test_wrk_ok_numbers_are_wrks_own(raw):
    text = raw("wrk", "ok")["stdout"]
    m = wrk.parse(text)
    data = json.loads(next(l for l in text.splitlines() if l.startswith(wrk.MARKER))[len(wrk.MARKER):])
    assert m.requests == data["requests"] > 1000
    printed = float(next(l for l in text.splitlines() if l.startswith("Requests/sec:")).split()[1])
    assert m.requests_per_s == pytest.approx(printed, rel=0.01)
    assert m.latency_ms["p99.9"] == pytest.approx(data["latency_us"]["p99.9"] / 1000)
    assert m.latency_ms["mean"] is not None and m.errors_total == 0 and m.non_2xx == 0
    assert_sane(m)


def test_wrk_socket_errors_by_kind(raw):
    m = wrk.parse(raw("wrk", "errors")["stdout"])
    assert m.errors["read"] > 0 and m.errors["timeout"] > 0  # dropped connections, 1.5 s answers
    assert m.errors["connect"] == 0 and m.errors["write"] == 0
    assert any("Socket errors" in s for s in m.error_samples)
    assert m.finish().success_ratio < 1
    assert_sane(m)


def test_wrk_non_2xx(raw):
    m = wrk.parse(raw("wrk", "non2xx")["stdout"])
    assert m.requests > 0 and m.non_2xx == m.requests and m.errors_total == 0
    assert m.finish().success_ratio == 0


def test_wrk_random_ids_and_backlog(raw):
    for case in ("ids", "backlog"):
        m = wrk.parse(raw("wrk", case)["stdout"])
        assert m.requests > 0 and m.non_2xx == 0
        assert_sane(m)


def test_wrk_without_our_script_output_is_an_error():
    with pytest.raises(ValueError, match="BENCH-JSON"):
        wrk.parse("unable to connect to 127.0.0.1:1 Connection refused\n")


# -- ab ----------------------------------------------------------------------------------------------
def test_ab_ok_keepalive(raw):
    r = raw("ab", "ok")
    m = ab.parse(r["stdout"], r["csv"])
    assert "Keep-Alive requests:" in r["stdout"]
    assert m.requests > 1000 and m.errors_total == 0 and m.non_2xx == 0
    assert m.requests_per_s == pytest.approx(float(r["stdout"].split("Requests per second:")[1].split()[0]))
    assert m.latency_ms["p99.9"] is None  # ab has no finer percentile than whole ones
    assert m.latency_ms["p50"] <= m.latency_ms["mean"] <= m.latency_ms["max"] or m.latency_ms["mean"] > 0
    assert_sane(m)


def test_ab_close_pass(raw):
    r = raw("ab", "close")
    m = ab.parse(r["stdout"], r["csv"])
    assert "Keep-Alive requests" not in r["stdout"]  # ab prints it only with -k
    assert m.requests > 100 and m.errors_total == 0
    assert_sane(m)


def test_ab_length_failures_are_errors(raw):
    r = raw("ab", "errors")
    m = ab.parse(r["stdout"], r["csv"])
    assert m.errors["other"] > 0 and m.non_2xx == 0
    complete = int(r["stdout"].split("Complete requests:")[1].split()[0])
    assert m.requests == complete - m.errors["other"]
    assert m.requests_per_s == pytest.approx(m.requests / m.duration_s, rel=0.01)
    assert_sane(m)


def test_ab_non_2xx_with_few_requests(raw):
    r = raw("ab", "non2xx")
    m = ab.parse(r["stdout"], r["csv"])
    assert m.non_2xx == m.requests > 0 and m.errors_total == 0
    assert m.latency_ms["max"] is not None


def test_ab_giving_up_on_a_timeout_is_a_failure(raw):
    r = raw("ab", "abort")
    with pytest.raises(ValueError, match=r"^gave up: apr_pollset_poll.*70007.*after \d+ requests"):
        ab.parse(r["stdout"], r["csv"], r["stderr"])


def test_ab_backlog(raw):
    r = raw("ab", "backlog")
    m = ab.parse(r["stdout"], r["csv"])
    assert m.requests > 0
    assert_sane(m)


# -- hey ---------------------------------------------------------------------------------------------
def test_hey_ok(raw):
    m = hey.parse(raw("hey", "ok")["stdout"])
    assert m.requests > 1000 and m.status_codes == {"200": m.requests}
    assert m.latency_ms["p99.9"] is None and m.latency_ms["p99"] is not None
    assert m.errors_total == 0
    assert_sane(m)


def test_hey_error_distribution_by_kind(raw):
    for case in ("errors", "backlog"):
        m = hey.parse(raw("hey", case)["stdout"])
        assert m.errors_total > 0, case
        assert m.requests_per_s == pytest.approx(m.requests / m.duration_s, rel=0.01)
        assert all(s.startswith("[") for s in m.error_samples)
    m = hey.parse(raw("hey", "errors")["stdout"])
    assert m.errors["read"] > 0 and m.errors["timeout"] > 0  # EOF and Client.Timeout
    m = hey.parse(raw("hey", "backlog")["stdout"])
    assert m.errors["connect"] > 0  # dial tcp ... i/o timeout: the listen backlog of 5


def test_hey_non_2xx_and_unreached_percentiles(raw):
    m = hey.parse(raw("hey", "non2xx")["stdout"])
    assert m.non_2xx == m.requests > 0 and m.status_codes == {"503": m.requests}
    assert_sane(m)


def test_hey_close(raw):
    m = hey.parse(raw("hey", "close")["stdout"])
    assert m.requests > 100 and m.errors_total == 0


# -- vegeta ------------------------------------------------------------------------------------------
def test_vegeta_ok_open_loop(raw):
    r = raw("vegeta", "ok")
    m = vegeta.parse(r["report"], r["encoded"])
    report = json.loads(r["report"])
    assert m.requests == report["requests"] == len(r["encoded"].splitlines())
    assert m.success_ratio == 1.0 and m.errors_total == 0
    assert m.latency_ms["p99"] == pytest.approx(report["latencies"]["99th"] / 1e6, abs=0.001)
    assert m.latency_ms["p99.9"] is not None and m.latency_ms["p99.9"] <= m.latency_ms["max"]
    assert_sane(m)


def test_vegeta_errors_counted_per_request(raw):
    r = raw("vegeta", "errors")
    m = vegeta.parse(r["report"], r["encoded"])
    report = json.loads(r["report"])
    assert m.errors_total == report["status_codes"].get("0") > 0
    assert m.errors["read"] > 0 and m.errors["timeout"] > 0
    assert m.success_ratio == pytest.approx(report["success"])
    assert m.requests + m.errors_total == report["requests"]


def test_vegeta_non_2xx_and_closed_loop(raw):
    for case in ("non2xx", "closedloop"):
        r = raw("vegeta", case)
        m = vegeta.parse(r["report"], r["encoded"])
        assert m.non_2xx == m.requests > 0 and m.success_ratio == 0 and m.errors_total == 0


def test_vegeta_close_and_ids(raw):
    for case in ("close", "ids", "backlog"):
        r = raw("vegeta", case)
        m = vegeta.parse(r["report"], r["encoded"])
        assert m.requests > 0 and m.success_ratio == 1.0
        assert_sane(m)


def test_vegeta_report_alone_still_parses(raw):
    m = vegeta.parse(raw("vegeta", "errors")["report"])
    assert m.errors["other"] > 0 and m.latency_ms["p99.9"] is None


# -- h2load -------------------------------------------------------------------------------------------
def _summary(stdout: str) -> dict[str, int]:
    words = ("total", "started", "done", "succeeded", "failed", "errored", "timeout")
    line = next(l for l in stdout.splitlines() if l.startswith("requests:"))
    return dict(zip(words, map(int, __import__("re").findall(r"(\d+) \w+", line))))


@pytest.mark.parametrize("case, protocol", [("h2c", "h2c"), ("h2", "h2")])
def test_h2load_counts_its_logged_requests_and_says_the_protocol(raw, case, protocol):
    data = raw("h2load", case)
    m = h2load.H2load().parse(data)
    summary = _summary(data["stdout"])
    assert h2load.negotiated(data["stdout"]) == protocol
    assert m.requests == summary["succeeded"] > 500 and m.status_codes == {"200": m.requests} and m.non_2xx == 0
    # the streams the stop at the end cut off (errored, or started and never done: 2 x 4 here) are no errors
    assert (summary["started"] - summary["done"]) + summary["errored"] <= 8 and m.errors_total == 0
    log_us = sorted(int(l.split("\t")[2]) for l in data["log"].splitlines() if not l.split("\t")[1].startswith("-"))
    assert m.latency_ms["max"] == pytest.approx(log_us[-1] / 1000) and m.latency_ms["p99.9"] is not None
    assert m.requests_per_s == pytest.approx(m.requests / m.duration_s)
    assert_sane(m)


def test_h2load_non_2xx(raw):
    m = h2load.H2load().parse(raw("h2load", "non2xx"))
    assert m.requests > 0 and m.non_2xx == m.requests and set(m.status_codes) == {"503"}
    assert m.finish().success_ratio == 0


def test_h2load_no_answer_at_all_is_a_failure(raw):
    """The single-threaded stdlib server has no HTTP/2: the preface gets no answer h2load can read."""
    with pytest.raises(ValueError, match="no answer to any of its 8 requests .application protocol h2c"):
        h2load.H2load().parse(raw("h2load", "errors"))


def test_h2load_errors_past_the_cut_off_are_the_servers():
    stdout = ("finished in 2.00s, 10.00 req/s, 1KB/s\n"
              "requests: 30 total, 32 started, 30 done, 20 succeeded, 10 failed, 10 errored, 3 timeout\n")
    log = "".join(f"{i * 100_000}\t200\t1000\n" for i in range(20)) + "1900000\t-1\t5\n" * 10
    m = h2load.parse(stdout, log, in_flight=8)
    # 8 in flight at the stop: 2 never done, so 6 of the 10 errored were cut off; 3 timed out, 1 more failed
    assert (m.requests, m.errors["timeout"], m.errors["read"]) == (20, 3, 1)


def test_h2load_answers_that_stop_early_are_a_failure_not_a_low_rate():
    """Hypercorn closes an HTTP/2 connection after 1,000 requests and h2load does not reconnect."""
    stdout = ("finished in 6.00s, 333.00 req/s, 1KB/s\n"
              "requests: 2000 total, 2000 started, 2000 done, 2000 succeeded, 0 failed, 0 errored, 0 timeout\n")
    log = "".join(f"{1_000_000 + i * 1000}\t200\t500\n" for i in range(2000))  # 2 s of answers in a 6 s run
    with pytest.raises(ValueError, match="stopped 4.0 s before its 6 s were up, after 2,000 requests"):
        h2load.parse(stdout, log)


def test_h2load_command_asks_for_h2_alone_over_tls_and_its_streams(tmp_path):
    from loadtools import LoadSpec

    tool = h2load.H2load()
    tls = tool.command(LoadSpec(base_url="https://127.0.0.1:1", path="/mongo/pooled/{id}", connections=4, streams=25,
                                protocol="h2", users=50, workdir=tmp_path))
    assert tls[tls.index("-m") + 1] == "25" and tls[tls.index("-c") + 1] == "4" and "--npn-list=h2" in tls
    urls = (tmp_path / "run.urls").read_text().split()
    assert len(urls) == 50 and sorted(int(u.rsplit("/", 1)[1]) for u in urls) == list(range(1, 51))
    plain = tool.command(LoadSpec(base_url="http://127.0.0.1:1", path="/", protocol="h2c", workdir=tmp_path))
    assert "--no-tls-proto=h2c" in plain and "--npn-list=h2" not in plain


def test_vegeta_without_results_is_an_error():
    with pytest.raises(ValueError):
        vegeta.parse("")


# -- error kinds -------------------------------------------------------------------------------------
@pytest.mark.parametrize("message,kind", [
    ('Get "http://127.0.0.1:1/": dial tcp 127.0.0.1:1: connect: connection refused', "connect"),
    ('Get "http://127.0.0.1:1/": dial tcp 127.0.0.1:1: i/o timeout (Client.Timeout exceeded while awaiting headers)',
     "connect"),
    ('Get "http://127.0.0.1:1/": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
     "timeout"),
    ('Get "http://127.0.0.1:1/": EOF', "read"),
    ('Get "http://127.0.0.1:1/": read tcp 127.0.0.1:2->127.0.0.1:1: read: connection reset by peer', "read"),
    ('Get "http://127.0.0.1:1/": write tcp 127.0.0.1:2->127.0.0.1:1: write: broken pipe', "write"),
    ("something else", "other"),
])
def test_error_kinds(message, kind):
    assert errors.classify(message) == kind
