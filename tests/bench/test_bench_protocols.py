"""The protocol axis (harness.protocols: h1, h1-tls): the plan leaves out the stacks whose server cannot
serve a protocol, the tools say which they speak (and vegeta verifies the suite's CA), the tool's own
limit is per protocol, and the model puts each stack's h1 and h1-tls side by side: capacity, CPU per
request at one common rate, what TLS adds per request on a kept connection and per new connection.
On recorded (synthetic) results, and with the CLI's usage errors."""
from __future__ import annotations

from pathlib import Path

import pytest

from bench import capacity, model, plan as planning, results_md
from bench.capacity import Slo
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
    assert report.tool_limits == {("h1", None): 20000, ("h1-tls", None): 9000}  # (protocol, server cores)
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
    assert "## Each stack on HTTP/1.1 and over TLS" in md
    line = next(l for l in md.splitlines() if l.startswith("| `a` | hello | h1-tls |"))
    assert "0.50x" in line and "+30" in line and "+300" in line
    assert "load tool's own limit on h1-tls: 9,000/s" in md
    assert "`a h1-tls`" in md  # the curve's rows name the stack with its protocol


def test_results_without_a_protocol_read_as_plaintext_h1():
    old = Result.from_dict({"entrypoint": "a", "operation": "hello", "requests_per_s": 10.0})
    assert old.protocol == "h1" and old.tls_verified is None
    assert model.Config.of(old).stack == "a"


def test_the_plan_leaves_out_a_stack_whose_server_cannot_serve_the_protocol():
    settings = planning.Settings(servers=["flask_waitress", "nethttp"], ops=["hello"], protocols=["h1", "h1-tls"])
    p = planning.build(settings)
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
    (["--protocol", "h2"], "expected a comma list of h1, h1-tls"),
    (["--protocol", "h1-tls", "--tool", "locust"], "does not speak h1-tls"),
    (["--protocol", "h1-tls", "--target", "http://127.0.0.1:9"], "--target serves what it was started with"),
])
def test_protocol_usage_errors(run_bench, args, says):
    proc = run_bench("--servers", "nethttp", "--ops", "hello", "--dry-run", *args, timeout=60)
    assert proc.returncode == 2 and says in proc.stderr, proc.stderr


def test_the_tool_limit_is_per_protocol():
    results = session()
    assert capacity.tool_limit(results) == 20000 and capacity.tool_limit(results, "h1-tls") == 9000


def test_a_server_without_keep_alive_pays_all_its_tls_per_connection():
    """gunicorn's sync workers close after every response: both passes open a connection per request."""
    results = [step("flask_gunicorn", "h1", 600, True), step("flask_gunicorn", "h1", 1200, False),
               step("flask_gunicorn", "h1-tls", 300, True), step("flask_gunicorn", "h1-tls", 600, False),
               step("flask_gunicorn", "h1", 150, True, cpu_ms=0.5, mode="cost"),
               step("flask_gunicorn", "h1-tls", 150, True, cpu_ms=2.0, mode="cost")]
    (cost,) = model.build(results).protocol_costs
    assert not cost.keeps_alive and cost.extra_us_per_request is None
    assert cost.extra_us_per_connection == pytest.approx(1500)
