"""The HTTP/2 grid (`./test.sh -m h2grid`; not in the default suite): on every HTTP/2 endpoint (the parser
owner of each server that speaks h2, per mode: h2grid/endpoints.py), that it speaks h2 as declared, h2spec's
result of every case, and each attack probe's outcome, against the pins of records/<entry>.json's http2
section (h2grid/record.py). With H2GRID_RECORD=1 the run writes the pins instead of comparing.

Each probe sends for a few seconds at a fresh server (one worker) while a legitimate client keeps requesting
GET /; timing on a shared machine is noisy, so a probe whose outcome differs from its pin is run once more, and
held against degraded by a slowest answer at most a quarter past the bound counts as the same (judge.same_outcome).
Only the probes whose controls separated (a build known vulnerable down or degraded, one known fixed held:
test_control, h2grid/controls) run on the endpoints.
"""
from __future__ import annotations

from collections import defaultdict

import pytest

from h2grid import defects, endpoints, judge, record, runner, versions
from h2grid.controls import pairs, results
from h2grid.judge import summary
from h2grid.wire import PREFACE, RawConnection

pytestmark = pytest.mark.h2grid

ENDPOINTS = endpoints.endpoints()


CONTROLS_FOUND: dict[str, dict[str, dict]] = defaultdict(dict)


@pytest.fixture(scope="session", autouse=True)
def _write_records():
    yield
    if record.ENABLED and record.COLLECTED.modes:
        for path in record.COLLECTED.write(results.GRID_KEYS):
            print(f"h2grid: wrote {path}")
    if record.ENABLED and CONTROLS_FOUND:
        print(f"h2grid: wrote {results.write(CONTROLS_FOUND)}")


def _control_outcomes(pair: pairs.Pair, mode: endpoints.Mode) -> dict[str, dict]:
    found = {}
    for side in ("vulnerable", "fixed"):
        control = getattr(pair, side)
        result = runner.probe_control(control, mode.tls, pair.attack)
        found[side] = {"control": control.key, "versions": control.versions(), **result.as_record()}
    return found


@pytest.mark.timeout(600)
@pytest.mark.parametrize("mode", list(endpoints.MODES.values()), ids=lambda m: m.name)
@pytest.mark.parametrize("pair", pairs.PAIRS, ids=lambda p: p.attack)
def test_control(pair, mode):
    """The probe against a build known vulnerable to its attack and one known fixed (h2grid/controls): the judge must
    call the first down or degraded and the second held, as recorded; a pair recorded as not separating keeps its
    probe out of the grid (results.GRID_KEYS) until a recording finds it separating."""
    pinned = results.load().get(pair.attack, {}).get("modes", {}).get(mode.name)
    if not record.ENABLED and pinned and not results.separates(pinned["vulnerable"]["outcome"], pinned["fixed"]["outcome"]):
        pytest.skip(f"{pair.attack} is out of the grid: {results.why_not(pair.attack)}")
    found = _control_outcomes(pair, mode)
    if record.ENABLED:
        CONTROLS_FOUND[pair.attack][mode.name] = found
        return
    if pinned is None:
        pytest.fail(f"h2grid/controls/recorded.json has no {pair.attack} {mode.name} control: "
                    f"H2GRID_RECORD=1 ./test.sh -m h2grid -k 'control and {pair.attack}'")
    if not results.separates(found["vulnerable"]["outcome"], found["fixed"]["outcome"]):
        found = _control_outcomes(pair, mode)  # timing on a shared machine: once more before calling it a change
    got = {side: found[side]["outcome"] for side in found}
    assert results.separates(got["vulnerable"], got["fixed"]), (
        f"{pair.attack} ({mode.name}): {pair.vulnerable.title} {got['vulnerable']}, {pair.fixed.title} {got['fixed']}, "
        "recorded separating: " + " | ".join(f"{side}: {'; '.join(found[side]['judgement']['reasons'])}" for side in found))


def _available(endpoint: endpoints.Endpoint) -> None:
    why = endpoints.available(endpoint)
    if why:
        pytest.skip(why)


def _pinned(endpoint: endpoints.Endpoint, what: str) -> dict:
    pinned = record.pinned_mode(endpoint).get(what)
    if not pinned:
        pytest.fail(f"records/{endpoint.entry}.json has no http2 {what} pins for {endpoint.mode.name}: write them with "
                    f"H2GRID_RECORD=1 ./test.sh -m h2grid -k {endpoint.id}")
    return pinned


@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=lambda e: e.id)
def test_speaks_h2_as_declared(endpoint):
    """The server answers a client preface with its SETTINGS (h2c), or selects h2 by ALPN and then does (h2)."""
    _available(endpoint)
    with runner.serving(endpoint) as served:
        conn = RawConnection("127.0.0.1", served.port, endpoint.mode.tls, served.ca_file)  # refuses a non-h2 ALPN
        try:
            conn.send(PREFACE + bytes.fromhex("000000040000000000"))
            conn.read_available(wait=5.0)
        finally:
            conn.close()
    assert conn.received.frames.get("SETTINGS"), \
        f"{endpoint.id}: no SETTINGS frame in answer to a client preface ({conn.received.bytes} bytes received)"


@pytest.mark.timeout(600)
@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=lambda e: e.id)
def test_h2spec(endpoint):
    _available(endpoint)
    if record.ENABLED:
        record.COLLECTED.h2spec(endpoint, record.merge_runs(runner.h2spec_runs(endpoint, record.RECORD_RUNS)),
                                versions.of(endpoint))
        return
    pinned = _pinned(endpoint, "h2spec")["cases"]
    (got,) = runner.h2spec_runs(endpoint)
    wrong = record.mismatches(pinned, got, record.racy(endpoint))
    for _ in range(record.RETRIES):
        again = [case_id for case_id in wrong if case_id in pinned and case_id in got]
        if not again:
            break
        got.update(runner.h2spec_cases(endpoint, again))
        wrong = record.mismatches(pinned, got, record.racy(endpoint))
    assert not wrong, f"{endpoint.id}: h2spec results differ from the record (each tried {1 + record.RETRIES} times):\n" + "\n".join(
        f"  {case_id}: pinned {pinned.get(case_id, {}).get('result', 'nothing')}, now "
        f"{got[case_id].result if case_id in got else 'not run'}"
        + (f" ({got[case_id].description}: {got[case_id].message})" if case_id in got and got[case_id].message else "")
        for case_id in wrong)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("key", results.GRID_KEYS)
@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=lambda e: e.id)
def test_attack(endpoint, key):
    _available(endpoint)
    result = runner.probe(endpoint, key)
    if record.ENABLED:
        record.COLLECTED.attack(endpoint, key, result.as_record(), versions.of(endpoint))
        return
    pinned = _pinned(endpoint, "attacks").get(key)
    if pinned is None:
        pytest.fail(f"records/{endpoint.entry}.json pins no {key} outcome for {endpoint.mode.name}: "
                    f"H2GRID_RECORD=1 ./test.sh -m h2grid -k '{endpoint.id} and {key}'")
    if not judge.same_outcome(pinned["judgement"], result.judgement.as_dict()):
        result = runner.probe(endpoint, key)  # timing on a shared machine: once more before calling it a change
    assert judge.same_outcome(pinned["judgement"], result.judgement.as_dict()), (
        f"{endpoint.id} {key}: {summary(result.judgement)}; pinned {pinned['outcome']} "
        f"({'; '.join(pinned['judgement']['reasons'])})")


@pytest.mark.parametrize("defect", [d for d in defects.DEFECTS if d.endpoint], ids=lambda d: d.key)
def test_a_server_defect_still_shows(defect):
    """Each wire reproduction of docs/http2-grid.md against its server: when a release fixes it, this fails, and the
    defect (h2grid/defects.py) goes."""
    endpoint = endpoints.get(defect.endpoint)
    _available(endpoint)
    with runner.serving(endpoint) as served:
        shown = defect.check(served.port, endpoint.mode.tls, served.ca_file, served.process.pid)
    assert shown, f"{defect.key} no longer shows on {endpoint.id}: remove it from h2grid/defects.py"


def test_probe_by_hand_judges_any_loopback_server(capsys):
    """`python -m h2grid probe KEY --port P --pid PID` at a server of the user's (here the Go control before the
    CONTINUATION fix, started apart): the same verdict the grid gives, as JSON."""
    import json

    from h2grid.__main__ import main

    pair = pairs.BY_ATTACK["continuation-flood"]
    with runner.serving_control(pair.vulnerable, tls=False) as served:
        assert main(["probe", "continuation-flood", "--port", str(served.port), "--pid", str(served.process.pid)]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["outcome"] == judge.DEGRADED, found["reasons"]
    assert found["server"]["ended_by_server"] == 0 and found["server"]["most_on_one_mib"] > 64, found["server"]
