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


SENT = {"batches": 10, "connections": 1, "endings": {"closed by the server after GOAWAY PROTOCOL_ERROR": 1},
        "goaway": {"PROTOCOL_ERROR": 1}, "rst_codes": {"PROTOCOL_ERROR": 5}, "received": {"PING": 5},
        "most_on_one": 1 << 20}


def _judge(samples=None, points=None, died="", attack="ping-flood", sent=None):
    return judge.judge(attack, samples or _samples(), points or _points(), BEFORE, DURING, AFTER, sent or SENT, died)


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


def test_pins_count_failures_over_runs_and_name_every_change():
    passed, failed = (h2spec.Case("a/1", "d", "passed"), h2spec.Case("a/1", "d", "failed", "m"))
    merged = record.merge_runs([{"a/1": passed, "a/2": failed}, {"a/1": failed, "a/2": failed}])
    assert merged["a/1"] == {"result": "failed", "description": "d", "message": "m", "failed_runs": 1, "runs": 2}
    assert record.failed_count(merged["a/2"]) == (2, 2) and record.failing(merged) == ["a/1", "a/2"]
    assert record.mismatches(merged, {"a/1": passed, "a/2": failed}) == []
    assert record.mismatches(merged, {"a/1": passed, "a/2": passed, "a/3": passed}) == ["a/2", "a/3"]
    # failing in some runs only: one run takes either result; failing in every run: a pass is a change
    assert record.intermittent(merged["a/1"]) and not record.intermittent(merged["a/2"])
    assert record.mismatches(merged, {"a/1": failed, "a/2": passed}) == ["a/2"]
    assert record.mismatches(merged, {"a/1": failed, "a/2": passed}, races={"a/2"}) == []  # a caveat's "~" case
    assert record.mismatches({"a/3": {"result": "passed"}}, {"a/3": failed}, races={"a/3"}) == []  # either way
    assert record.failed_count({"result": record.VARIES, "failed_runs": "1 of 3"}) == (1, 3)  # an older record


def test_failures_of_the_harness_or_of_h2spec_are_not_the_servers():
    """http2/3.5/2 on a cleartext port serving HTTP/1.1 and h2c (a 400 to bytes that are not the preface is right
    there); Go's http2/4.2/3 (h2spec's HEADERS frame is under the 1 MiB frame size Go advertises)."""
    assert h2spec.not_the_servers("http2/3.5/2", tls=False, go=False).startswith("the harness's")
    assert not h2spec.not_the_servers("http2/3.5/2", tls=True, go=False)
    assert h2spec.not_the_servers("http2/4.2/3", tls=True, go=True).startswith("h2spec's own")
    assert not h2spec.not_the_servers("http2/4.2/3", tls=True, go=False)


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
            failing.setdefault(endpoint.mode.name, set()).update(record.servers_failures(endpoint, cases))
    if not failing:
        pytest.skip(f"no http2 record of {server} yet (H2GRID_RECORD=1 ./test.sh -m h2grid)")
    declared = _caveat_cases(server)
    for mode, cases in failing.items():
        covered = {case for only, case, _ in declared if only in ("", mode)}
        assert cases <= covered, (f"{server} ({mode}): h2spec cases failing without a caveat: {sorted(cases - covered)}: "
                                  f"declare them (Caveat.h2spec) in the spec module of {server}")
    stale = [f"{only or 'any mode'}:{case}" for only, case, racy in declared
             if not racy and not any(case in cases for mode, cases in failing.items() if only in ("", mode))]
    assert not stale, f"{server}: a caveat names h2spec cases that pass now or are not the server's: {stale}"


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
    return {"outcome": outcome, "phases": {"during": phase, "after": {"max_ms": 5.0}}, "rss_growth_mib": rss,
            "reasons": []}


def test_held_and_marginally_degraded_are_the_same_outcome_and_nothing_more():
    """A probe pinned degraded at 2.13 s that held at 0.85 s the next time is timing, as is an RSS growth within half
    the limit again past it; one pinned held that now takes 10 s, or grows the RSS twice the limit, or fails a
    request, has changed."""
    assert judge.same_outcome(_record(DEGRADED, 2130), _record(HELD, 850))
    assert judge.same_outcome(_record(HELD, 1610), _record(DEGRADED, 2340))
    assert not judge.same_outcome(_record(HELD, 1900), _record(DEGRADED, 10_000))
    assert judge.same_outcome(_record(HELD, 1900), _record(DEGRADED, 1900, rss=judge.MEMORY_LIMIT_MIB * 1.4))
    assert not judge.same_outcome(_record(HELD, 1900), _record(DEGRADED, 2100, rss=judge.MEMORY_LIMIT_MIB * 2))
    assert not judge.same_outcome(_record(DEGRADED, 2100), _record(DOWN, 2100))
    assert judge.same_outcome(_record(DOWN, 5000), _record(DOWN, 9000))


KEPT_OPEN = {**SENT, "endings": {"open at the end": 1}, "goaway": {}}


def test_a_probe_that_did_not_reach_its_path_is_not_exercised_never_held():
    """The reset flood's path is the server's own stream error: a GOAWAY instead (h2 and hyper end the connection on
    an upper-case field name) says nothing of its reset queue."""
    j = _judge(attack="reset-flood", sent={**SENT, "rst_codes": {}})
    assert j.outcome == judge.NOT_EXERCISED and "GOAWAY PROTOCOL_ERROR" in j.reasons[0], j.reasons
    assert _judge(attack="reset-flood").outcome == HELD


def test_memory_queued_on_connections_the_server_never_ended_degrades():
    """Go's x/net before its 2019 fix kept a PING-flooding connection open and grew by 28 MiB; after it, it ended
    each connection at 10,000 queued frames: the same growth with a bound kept is not the finding."""
    grows = _points(rss=lambda at: (50 + (judge.UNBOUNDED_GROWTH_MIB + 10) * (at >= 2)) * MIB)
    j = _judge(points=grows, sent=KEPT_OPEN)
    assert j.outcome == DEGRADED and "ended none of the attacker's 1 connections" in j.reasons[0], j.reasons
    assert _judge(points=grows).outcome == HELD


def test_cpu_spent_on_an_unbounded_header_block_is_a_finding():
    """CVE-2023-45288 in Go: latency and RSS stay flat, the server reads a header block without end at a core's
    work; the fixed x/net ends the connection (GOAWAY) a few MiB in."""
    busy = [Point(at, 0.01 * min(at, 1) + 0.9 * max(at - 1, 0), 50 * MIB, frozenset({1})) for at in (i * 0.1 for i in range(71))]
    unbounded = {**KEPT_OPEN, "most_on_one": 1500 << 20}
    j = _judge(points=busy, attack="continuation-flood", sent=unbounded)
    assert j.outcome == DEGRADED and "1,500 MiB" in j.reasons[0] and "cores (legitimate traffic alone: 0.01)" in j.reasons[0], j.reasons
    assert _judge(points=busy, attack="continuation-flood", sent={**SENT, "most_on_one": 4 << 20}).outcome == HELD
    idle = _points(pids=frozenset({1}))  # flat CPU (0.5 cores before and during): no harm shown
    assert _judge(points=idle, attack="continuation-flood", sent=unbounded).outcome == HELD


def test_a_probe_is_in_the_grid_only_when_its_controls_separated():
    from h2grid.controls import results

    def pair(vulnerable, fixed):
        return {"vulnerable": {"outcome": vulnerable}, "fixed": {"outcome": fixed}}

    recorded = {"ping-flood": {"modes": {"h2c": pair(DEGRADED, HELD), "h2": pair(DOWN, HELD)}},
                "continuation-flood": {"modes": {"h2c": pair(DEGRADED, HELD), "h2": pair(HELD, HELD)}},
                "reset-flood": {"modes": {"h2c": pair(DEGRADED, DEGRADED)}}}
    assert results.grid_keys(recorded) == ("ping-flood",)
    assert "h2: the vulnerable build held" in results.why_not("continuation-flood", recorded)
    assert results.why_not("made-you-reset", recorded).startswith("no control pair yet")
    assert results.why_not("rapid-reset", recorded).startswith("its control pair has not been run")


def test_a_probe_stops_writing_once_the_server_ended_the_connection():
    """A server that sent its FIN but goes on reading (and dropping) what arrives: a probe that never reads must see
    the hang-up and stop, not count gigabytes into a connection the server ended."""
    import socket
    import threading

    from h2grid.attacks.base import drive

    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    stop = threading.Event()

    def serve():
        conn, _ = listener.accept()
        conn.recv(1024)
        conn.shutdown(socket.SHUT_WR)  # the server's end: FIN, then it only drains
        conn.settimeout(0.2)
        while not stop.is_set():
            try:
                if not conn.recv(1 << 20):
                    break
            except OSError:
                continue
        conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        sent = drive(attacks.get("ping-flood"), "127.0.0.1", port, tls=False, seconds=1.0, max_connections=1)
    finally:
        stop.set()
        listener.close()
    assert sent.endings == {"closed by the server": 1}, sent.endings
    assert sent.bytes < 16 << 20, f"{sent.bytes:,} bytes written into a connection the server ended"


@pytest.mark.parametrize("attack,fault,fixed_ending", [
    ("empty-frames", "no-empty-frame-limit", "closed by the server after GOAWAY ENHANCE_YOUR_CALM"),
    ("zero-length-headers", "keep-empty-headers", "closed by the server after GOAWAY PROTOCOL_ERROR"),
])
def test_a_faulty_control_takes_the_attack_its_fixed_build_refuses(attack, fault, fixed_ending):
    """The grid's own h2 server (h2grid/controls/faulty.py), the control pair of a probe no installable release stands
    for: the fixed build ends the attacker's connection as its rule says, the faulty one keeps reading it."""
    from h2grid import runner
    from h2grid.attacks.base import drive
    from h2grid.controls import pairs

    pair = pairs.BY_ATTACK[attack]
    assert (pair.vulnerable.key, pair.fixed.key) == (f"h2-{fault}", "h2-fixed")
    endings = {}
    for side in (pair.vulnerable, pair.fixed):
        with runner.serving_control(side, tls=False) as served:
            sent = drive(attacks.get(attack), "127.0.0.1", served.port, tls=False, seconds=1.0, max_connections=1)
        endings[side.key] = sent
    faulty, fixed = endings[pair.vulnerable.key], endings[pair.fixed.key]
    assert fixed.endings == {fixed_ending: 1}, fixed.endings
    # (what the attacker wrote says little here: loopback's socket buffers took megabytes the fixed build never read)
    assert sum(faulty.endings.values()) == 1 and not any(text.startswith("closed") for text in faulty.endings), \
        faulty.endings


def test_a_recording_of_some_probes_keeps_the_other_pins_dates():
    """A run of two probes must not stamp h2spec's and the other probes' pins with its own date and commit (the page's
    "Runs:" line says which run wrote which pins)."""
    mode = {"recorded": {"date": "06:44", "commit": "a"}, "h2spec": {}, "attacks": {"ping-flood": {}, "hpack-bomb": {}}}
    runs = record.runs_after(mode, {"date": "18:47", "commit": "b", "took": ["hpack-bomb"]})
    assert runs == [{"date": "06:44", "commit": "a", "took": ["h2spec", "ping-flood"]},
                    {"date": "18:47", "commit": "b", "took": ["hpack-bomb"]}]
    again = record.runs_after({**mode, "runs": runs}, {"date": "20:00", "commit": "c", "took": ["h2spec", "ping-flood"]})
    assert [run["commit"] for run in again] == ["b", "c"]
