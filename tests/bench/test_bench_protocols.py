"""The protocol axis (harness.protocols: h1, h1-tls, h2, h2c): the plan leaves out the stacks whose server cannot
serve a protocol, the tools say which they speak (and vegeta verifies the suite's CA; h2load keeps streams in
flight per connection), the tool's own limit is per protocol, Little's law counts connections x streams, and the
model puts each stack's protocols side by side: capacity, CPU per request at one common rate, what TLS or HTTP/2
adds per request on a kept connection and per new connection. On recorded (synthetic) results, and with the CLI's
usage errors."""
from __future__ import annotations

from pathlib import Path

import pytest

from bench.capacity import tally
from bench.capacity.search import Slo
from bench.planning import plan
from bench.report import model, results_md
from bench.schema import Result
from harness import protocols
from loadtools import LoadSpec, Unsupported, get
from loadtools.openloop import OpenLoop
from servers.core import catalog


def step(entry, protocol, rate, held, cpu_ms=0.1, mode="capacity", keepalive=True, seq=0):
    return Result(entrypoint=entry, operation="hello", tool="vegeta", loop="open", rate=rate, mode=mode,
                  slo_held=held, cpu_per_request_ms=cpu_ms, server_peak_rss_mb=20.0, keepalive=keepalive,
                  protocol=protocol, tls_verified=True if protocol == "h1-tls" else None,
                  slo=Slo.parse("p99=25ms").as_dict(), sequence=seq)


def session() -> list[Result]:
    """Stack a: 2,000/s in plaintext, 1,000/s over TLS; stack b: 4,000 and 3,000. The common rate is half
    the slowest capacity of the operation on any protocol: 500/s. Cost steps there, kept and closed."""
    results = [step("a", "h1", 2000, True), step("a", "h1", 4000, False),
               step("a", "h1-tls", 1000, True), step("a", "h1-tls", 2000, False),
               step("b", "h1", 4000, True), step("b", "h1", 8000, False),
               step("b", "h1-tls", 3000, True), step("b", "h1-tls", 6000, False),
               step("nethttp", "h1", 20000, True, mode="calibration"),
               step("nethttp", "h1-tls", 9000, True, mode="calibration")]
    for entry, cpu in (("a", {("h1", True): 0.100, ("h1-tls", True): 0.130, ("h1", False): 0.200,
                              ("h1-tls", False): 0.530}),
                       ("b", {("h1", True): 0.040, ("h1-tls", True): 0.050, ("h1", False): 0.080,
                              ("h1-tls", False): 0.190})):
        results += [step(entry, protocol, 500, True, cpu_ms=ms, mode="cost", keepalive=keepalive)
                    for (protocol, keepalive), ms in cpu.items()]
    return results


def test_the_model_puts_each_stack_on_h1_and_tls_side_by_side():
    report = model.build(session())
    assert [a.key for a in report.answers] == ["hello", "hello h1-tls"]
    assert report.common_rates == {"hello": 500}  # one rate for both protocols: they compare there
    # (protocol, server cores, the calibration's operation)
    assert report.tool_limits == {("h1", None, "hello"): 20000, ("h1-tls", None, "hello"): 9000}
    tls_answer = report.answers[1]
    assert [s.entrypoint for s in tls_answer.ranked] == ["b", "a"]  # ranked within the protocol
    costs = {p.entrypoint: p for p in report.protocol_costs}
    a = costs["a"]
    assert a.other.protocol == "h1-tls" and a.capacity_ratio == pytest.approx(0.5)
    assert a.extra_us_per_request == pytest.approx(30)  # 130 - 100 µs on a kept connection
    assert a.extra_us_per_connection == pytest.approx(300)  # (530 - 200) - 30: the handshake
    assert costs["b"].extra_us_per_request == pytest.approx(10)
    assert costs["b"].extra_us_per_connection == pytest.approx(100)  # (190 - 80) - 10


def test_the_report_shows_the_side_by_side_table_and_names_the_protocol():
    md = results_md.render(model.build(session()))
    assert "## hello h1-tls: capacity within" in md
    assert "## Each stack against plaintext HTTP/1.1" in md
    line = next(l for l in md.splitlines() if l.startswith("| `a` | hello | h1-tls |"))
    assert "0.50x" in line and "+30" in line and "+300" in line
    assert "load tool's own limit on h1-tls (vegeta): 9,000/s held against Go net/http hello" in md
    assert "`a h1-tls`" in md  # the curve's rows name the stack with its protocol


def test_results_without_a_protocol_read_as_plaintext_h1():
    old = Result.from_dict({"entrypoint": "a", "operation": "hello", "requests_per_s": 10.0})
    assert old.protocol == "h1" and old.tls_verified is None
    assert model.Config.of(old).stack == "a"


def test_the_plan_leaves_out_a_stack_whose_server_cannot_serve_the_protocol():
    settings = plan.Settings(servers=["flask_waitress", "nethttp"], ops=["hello"], protocols=["h1", "h1-tls"])
    p = plan.build(settings)
    assert [(g.entry.name, g.protocol) for g in p.entries] == [("flask_waitress", "h1"), ("nethttp", "h1"),
                                                             ("nethttp", "h1-tls")]
    assert p.unserved == [f"flask_waitress h1-tls: {catalog.get('flask_waitress').tls.cannot}"]
    assert {r.protocol for r in p.entries[2].runs} == {"h1-tls"} and p.entries[2].stack == "nethttp h1-tls"
    assert protocols.get("h1-tls").server_flags()[0] == "--certfile"
    assert protocols.get("h1").server_flags() == []


def spec(tmp_path: Path, **kw) -> LoadSpec:
    return LoadSpec(base_url="https://127.0.0.1:8443", path="/", workdir=tmp_path, **kw)


def test_the_tools_say_which_protocols_they_speak_and_vegeta_verifies_the_ca(tmp_path):
    with pytest.raises(Unsupported, match="h1-tls"):
        get("locust").check(spec(tmp_path, protocol="h1-tls"))
    for name in ("wrk", "hey", "ab", "vegeta"):
        get(name).check(spec(tmp_path, protocol="h1-tls", rate=10 if name == "vegeta" else None))
    assert get("vegeta").verifies_certificate and not get("wrk").verifies_certificate
    vegeta = get("vegeta")
    try:
        vegeta.binary()
    except Exception:  # noqa: BLE001
        pytest.skip("vegeta not installed")
    tls_spec = spec(tmp_path, protocol="h1-tls", ca_file="/ca.pem", rate=10)
    assert "-root-certs=/ca.pem" in vegeta.command(tls_spec)
    assert "-root-certs=/ca.pem" in OpenLoop().command(tls_spec, 10, 1)
    assert "-http2=false" in OpenLoop().command(tls_spec, 10, 1)  # HTTP/1.1 over TLS, not h2 by ALPN
    assert not any(a.startswith("-root-certs") for a in vegeta.command(spec(tmp_path, rate=10)))


@pytest.mark.parametrize("args, says", [
    (["--protocol", "h3"], "expected a comma list of h1, h1-tls, h2, h2c"),
    (["--protocol", "h2"], "--tool wrk does not speak h2; use --tool vegeta or h2load"),
    (["--protocol", "h1,h2", "--tool", "h2load"], "--tool h2load does not speak h1"),
    (["--protocol", "h2", "--tool", "vegeta", "--streams", "10"], "--streams is HTTP/2's"),
    (["--protocol", "h1-tls", "--tool", "locust"], "does not speak h1-tls"),
    (["--protocol", "h1-tls", "--target", "http://127.0.0.1:9"], "--target serves what it was started with"),
])
def test_protocol_usage_errors(run_bench, args, says):
    proc = run_bench("--servers", "nethttp", "--ops", "hello", "--dry-run", *args, timeout=60)
    assert proc.returncode == 2 and says in proc.stderr, proc.stderr


def test_the_tool_limit_is_per_protocol():
    results = session()
    assert tally.tool_limit(results) == 20000 and tally.tool_limit(results, "h1-tls") == 9000


def test_a_server_without_keep_alive_pays_all_its_tls_per_connection():
    """gunicorn's sync workers close after every response: both passes open a connection per request."""
    results = [step("flask_gunicorn", "h1", 600, True), step("flask_gunicorn", "h1", 1200, False),
               step("flask_gunicorn", "h1-tls", 300, True), step("flask_gunicorn", "h1-tls", 600, False),
               step("flask_gunicorn", "h1", 150, True, cpu_ms=0.5, mode="cost"),
               step("flask_gunicorn", "h1-tls", 150, True, cpu_ms=2.0, mode="cost")]
    (cost,) = model.build(results).protocol_costs
    assert not cost.keeps_alive and cost.extra_us_per_request is None
    assert cost.extra_us_per_connection == pytest.approx(1500)


def test_the_plan_serves_h2_and_h2c_where_the_server_speaks_them():
    settings = plan.Settings(servers=["flask_waitress", "flask_gunicorn", "falcon_twisted", "nethttp"],
                                 ops=["hello"], protocols=["h2", "h2c"])
    p = plan.build(settings)
    assert [(g.entry.name, g.protocol) for g in p.entries] == [("falcon_twisted", "h2"), ("nethttp", "h2"),
                                                             ("nethttp", "h2c")]
    why = dict(line.split(": ", 1) for line in p.unserved)
    assert why["flask_waitress h2"] == catalog.get("flask_waitress").tls.cannot  # no TLS, so no h2 by ALPN
    assert why["flask_waitress h2c"] == catalog.get("flask_waitress").http2.cannot
    assert why["flask_gunicorn h2c"] == catalog.get("flask_gunicorn").http2.cannot  # the sync worker has none
    assert catalog.get("falcon_twisted").http2.missing in why["falcon_twisted h2c"]  # HTTP/2 over TLS only
    assert protocols.get("h2").server_flags()[-1] == "--http2" and protocols.get("h2c").server_flags() == ["--http2"]


def test_vegeta_speaks_h2_by_alpn_and_h2c_by_prior_knowledge(tmp_path):
    vegeta = get("vegeta")
    try:
        vegeta.binary()
    except Exception:  # noqa: BLE001
        pytest.skip("vegeta not installed")
    h2 = OpenLoop().command(spec(tmp_path, protocol="h2", ca_file="/ca.pem", rate=10), 10, 1)
    assert "-http2=true" in h2 and "-root-certs=/ca.pem" in h2 and "-h2c" not in h2
    h2c = OpenLoop().command(LoadSpec(base_url="http://127.0.0.1:8080", path="/", protocol="h2c", rate=10,
                                      workdir=tmp_path), 10, 1)
    assert "-h2c" in h2c and not any(a.startswith(("-http2", "-root-certs")) for a in h2c)
    assert "-http2=true" in vegeta.command(spec(tmp_path, protocol="h2", rate=10))


def test_littles_law_counts_every_stream_in_flight():
    """h2load with 4 connections x 10 streams keeps 40 requests in flight: 40,000/s at 1 ms mean holds the law."""
    from bench import selfcheck

    held = selfcheck.Check(loop="closed", tool_cpu_pct=80, connections=4, streams=10, requests_per_s=40_000,
                           mean_latency_ms=1.0)
    assert selfcheck.void_reasons(held) == []
    short = selfcheck.Check(loop="closed", tool_cpu_pct=80, connections=4, streams=10, requests_per_s=4_000,
                            mean_latency_ms=1.0)  # 4 in flight of 40: the tool set the pace
    assert "for 4 connections x 10 streams" in selfcheck.void_reasons(short)[0]


def test_the_report_shows_the_protocol_as_an_axis():
    results = session()
    results += [step("a", "h2", 1500, True), step("a", "h2", 3000, False),
                step("a", "h2c", 2500, True), step("a", "h2c", 5000, False),
                step("nethttp", "h2", 15000, True, mode="calibration"),
                step("nethttp", "h2c", 18000, True, mode="calibration"),
                step("a", "h2", 500, True, cpu_ms=0.120, mode="cost"), step("a", "h2c", 500, True, cpu_ms=0.090, mode="cost")]
    report = model.build(results)
    (row,) = [r for r in report.protocol_axis if r.entrypoint == "a"]
    assert list(row.cells) == ["h1", "h1-tls", "h2", "h2c"]  # the axis's order, whatever the order measured
    assert [row.cells[p].value for p in row.cells] == [2000, 1000, 1500, 2500]
    assert report.tool_limits[("h2c", None, "hello")] == 18000
    costs = {p.other.protocol: p for p in report.protocol_costs if p.entrypoint == "a"}
    assert costs["h2c"].extra_us_per_request == pytest.approx(-10)  # HTTP/2 in cleartext cheaper here
    md = results_md.render(report)
    assert "## The protocol as an axis" in md
    line = next(l for l in md.splitlines() if l.startswith("| `a` | hello |"))
    assert "| 2,000 | 1,000 | 1,500 | 2,500 |" in line and "| 100 | 130 | 120 | 90 |" in line
