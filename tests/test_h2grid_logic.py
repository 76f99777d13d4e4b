"""The HTTP/2 grid's own logic, without a server (the grid itself runs with `-m h2grid`): the judgement rules,
the reading of h2spec's JUnit report, the pins' comparison, the probes' frames, the loopback guard, the
records against the catalog's HTTP/2 caveats, and docs/http2-grid.md against the records."""
from __future__ import annotations

import hpack
import pytest
from hyperframe.frame import Frame

from h2grid import attacks, defects, docs, endpoints, h2spec, judge, record
from h2grid.attacks import hpackraw
from h2grid.client import Sample
from h2grid.judge import DEGRADED, DOWN, HELD, Window
from h2grid.sampler import Point
from h2grid.wire import RawConnection
from servers.core import catalog

MIB = 2**20
BEFORE, DURING, AFTER = Window(0, 1), Window(1, 4), Window(4, 7)


def _samples(latency=lambda due: 0.01, error=lambda due: "") -> list[Sample]:
    return [Sample(due, latency(due), error(due)) for due in (i * 0.05 for i in range(140))]


def _points(rss=lambda at: 50 * MIB, pids=frozenset({1, 2})) -> list[Point]:
    return [Point(at, at * 0.5, int(rss(at)), pids) for at in (i * 0.1 for i in range(71))]


def _judge(samples=None, points=None, died=""):
    return judge.judge(samples or _samples(), points or _points(), BEFORE, DURING, AFTER, died)


def test_quick_answers_and_flat_memory_hold():
    j = _judge()
    assert j.outcome == HELD, j.reasons
    assert j.phases["during"].requests == 60 and j.phases["during"].max_ms == 10.0
    assert j.phases["during"].cpu_cores == 0.5


def test_slow_answers_that_recover_are_degraded_and_say_how_slow():
    j = _judge(_samples(latency=lambda due: 2.5 if 2 <= due < 3 else 0.01))
    assert j.outcome == DEGRADED and "2.50 s" in j.reasons[0], j.reasons


def test_memory_past_the_limit_degrades():
    j = _judge(points=_points(rss=lambda at: (50 + (judge.MEMORY_LIMIT_MIB + 10) * (at >= 2)) * MIB))
    assert j.outcome == DEGRADED and j.rss_growth_mib == judge.MEMORY_LIMIT_MIB + 10, j.reasons


def test_errors_no_recovery_or_a_dead_process_are_down():
    j = _judge(_samples(error=lambda due: "timeout" if 2 <= due < 2.2 else ""))
    assert j.outcome == DOWN and "4 of 60 requests failed during" in j.reasons[0], j.reasons
    j = _judge(_samples(latency=lambda due: 3.0 if due >= 2 else 0.01))
    assert j.outcome == DOWN and any("last 1 s" in r for r in j.reasons), j.reasons
    j = _judge(died="1 of its 2 processes died (pids 2)")
    assert j.outcome == DOWN and j.reasons[0].startswith("1 of its 2 processes died")


def test_percentile_is_nearest_rank():
    assert judge.percentile([5, 1, 4, 2, 3], 50) == 3 and judge.percentile(range(1, 101), 99) == 99
    assert judge.percentile([], 50) is None


JUNIT = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites>
  <testsuite name="3.5. HTTP/2 Connection Preface" package="http2/3.5" id="3.5" tests="2" failures="1">
    <testcase package="http2/3.5" classname="Sends client connection preface" time="0.01"></testcase>
    <testcase package="http2/3.5" classname="Sends invalid connection preface" time="2.0">
      <failure>Expect:
Connection closed
Actual:
DATA Frame (opaque_data:h2spec\x00\x00)</failure>
    </testcase>
  </testsuite>
  <testsuite name="3.8. GOAWAY" package="generic/3.8" id="3.8" tests="2" errors="1">
    <testcase package="generic/3.8" classname="Sends a GOAWAY frame" time="2.0"><error>Timeout</error></testcase>
    <testcase package="generic/3.8" classname="Skipped one" time="0"><skipped></skipped></testcase>
  </testsuite>
</testsuites>
"""


def test_junit_report_gives_each_case_its_h2spec_id_and_result():
    cases = h2spec.parse_junit(JUNIT)  # the NUL bytes h2spec writes raw do not stop the parse
    assert list(cases) == ["http2/3.5/1", "http2/3.5/2", "generic/3.8/1", "generic/3.8/2"]
    assert [c.result for c in cases.values()] == ["passed", "failed", "failed", "skipped"]
    assert cases["http2/3.5/2"].description == "Sends invalid connection preface"
    assert cases["http2/3.5/2"].message == "Expect: Connection closed Actual: DATA Frame (opaque_data:h2spec)"
    with pytest.raises(h2spec.H2specError):
        h2spec.parse_junit("<testsuites></testsuites>")


def test_pins_accept_a_varying_case_and_name_every_change():
    passed, failed = (h2spec.Case("a/1", "d", "passed"), h2spec.Case("a/1", "d", "failed", "m"))
    merged = record.merge_runs([{"a/1": passed, "a/2": failed}, {"a/1": failed, "a/2": failed}])
    assert merged["a/1"] == {"result": record.VARIES, "description": "d", "message": "m", "failed_runs": "1 of 2"}
    assert merged["a/2"]["result"] == "failed" and record.failing(merged) == ["a/1", "a/2"]
    assert record.mismatches(merged, {"a/1": passed, "a/2": failed}) == []
    assert record.mismatches(merged, {"a/1": passed, "a/2": passed, "a/3": passed}) == ["a/2", "a/3"]


def test_the_probes_frames_parse_and_their_requests_decode():
    conn = RawConnection.__new__(RawConnection)  # no socket: only what the probes build
    conn.host, conn.port, conn.tls, conn.state, conn.next_stream_id = "127.0.0.1", 8443, True, {}, 1
    conn.encoder = hpack.Encoder()
    for key in attacks.KEYS:
        attack = attacks.get(key)
        data = attack.opening(conn) + attack.batch(conn)
        offset, frames = 0, 0
        while offset < len(data):
            _, length = Frame.parse_frame_header(memoryview(data[offset:offset + 9]))
            assert length <= 16_384, f"{key}: a frame longer than the default SETTINGS_MAX_FRAME_SIZE"
            offset += 9 + length
            frames += 1
        assert offset == len(data) and frames, key
    headers = hpack.Decoder().decode(hpackraw.request(conn, "POST", "/reflect"))
    assert headers == [(":method", "POST"), (":scheme", "https"), (":path", "/reflect"), (":authority", "127.0.0.1:8443")]


def test_probes_refuse_anything_but_loopback():
    with pytest.raises(ValueError, match="not a loopback address"):
        RawConnection("192.0.2.1", 443, tls=False)


def _caveat_cases(server: str) -> list[tuple[str, str, bool]]:
    """(mode or "" for every mode, case id, racy: may pass) of each h2spec case the server's caveats stand for."""
    out = []
    for caveat in catalog.SERVERS[server].caveats:
        for case in caveat.h2spec:
            mode, _, case_id = case.partition(":") if case.startswith(("h2:", "h2c:")) else ("", "", case)
            out.append((mode, case_id.removeprefix("~"), case_id.startswith("~")))
    return out


H2_SERVERS = sorted({e.server for e in endpoints.endpoints()})


@pytest.mark.parametrize("server", H2_SERVERS)
def test_every_failing_h2spec_case_is_a_caveat_of_its_server(server):
    """Each case an endpoint's record holds as failing (or varying) is a caveat's of its server; each caveat's
    case fails in the mode it names, or in some mode of the server when it names none (unless it is a race: "~")."""
    failing: dict[str, set[str]] = {}
    for endpoint in endpoints.endpoints():
        cases = record.pinned_mode(endpoint).get("h2spec", {}).get("cases")
        if endpoint.server == server and cases:
            failing.setdefault(endpoint.mode.name, set()).update(record.failing(cases))
    if not failing:
        pytest.skip(f"no http2 record of {server} yet (H2GRID_RECORD=1 ./test.sh -m h2grid)")
    declared = _caveat_cases(server)
    for mode, cases in failing.items():
        covered = {case for only, case, _ in declared if only in ("", mode)}
        assert cases <= covered, (f"{server} ({mode}): h2spec cases failing without a caveat: {sorted(cases - covered)}: "
                                  f"declare them (Caveat.h2spec) in the spec module of {server}")
    stale = [f"{only or 'any mode'}:{case}" for only, case, racy in declared
             if not racy and not any(case in cases for mode, cases in failing.items() if only in ("", mode))]
    assert not stale, f"{server}: a caveat names h2spec cases that pass now: {stale}"


def test_the_docs_page_is_rendered_from_the_records():
    assert docs.PAGE.read_text() == docs.render(), "docs/http2-grid.md is stale: python -m h2grid docs"


@pytest.mark.parametrize("defect", [d for d in defects.DEFECTS if not d.endpoint], ids=lambda d: d.key)
def test_a_library_defect_still_shows(defect):
    """docs/http2-grid.md reports it upstream with this reproduction: once a release fixes it, this fails, and the
    defect (h2grid/defects.py) and what the docs say of it go."""
    shown = defect.check()
    assert shown, f"{defect.key} no longer shows on the installed {defect.library}: remove it from h2grid/defects.py"


def _record(outcome: str, max_ms: float, rss: float = 1.0) -> dict:
    phase = {"max_ms": max_ms}
    return {"outcome": outcome, "phases": {"during": phase, "after": {"max_ms": 5.0}}, "rss_growth_mib": rss}


def test_held_and_marginally_degraded_are_the_same_outcome_and_nothing_more():
    """A probe pinned degraded at 2.13 s that held at 0.85 s the next time is timing; one pinned held that now
    takes 10 s, or grows the RSS past the limit, or fails a request, has changed."""
    assert judge.same_outcome(_record(DEGRADED, 2130), _record(HELD, 850))
    assert judge.same_outcome(_record(HELD, 1610), _record(DEGRADED, 2340))
    assert not judge.same_outcome(_record(HELD, 1900), _record(DEGRADED, 10_000))
    assert not judge.same_outcome(_record(HELD, 1900), _record(DEGRADED, 2100, rss=judge.MEMORY_LIMIT_MIB + 1))
    assert not judge.same_outcome(_record(DEGRADED, 2100), _record(DOWN, 2100))
    assert judge.same_outcome(_record(DOWN, 5000), _record(DOWN, 9000))
