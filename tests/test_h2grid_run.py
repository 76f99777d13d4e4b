"""The HTTP/2 grid (`./test.sh -m h2grid`; not in the default suite): on every HTTP/2 endpoint (the parser
owner of each server that speaks h2, per mode: h2grid/endpoints.py), that it speaks h2 as declared, h2spec's
result of every case, and each attack probe's outcome, against the pins of records/<entry>.json's http2
section (h2grid/record.py). With H2GRID_RECORD=1 the run writes the pins instead of comparing.

Each probe sends for a few seconds at a fresh server (one worker) while a legitimate client keeps requesting
GET /; timing on a shared machine is noisy, so a probe whose outcome differs from its pin is run once more, and
held against degraded by a slowest answer at most a quarter past the bound counts as the same (judge.same_outcome).
"""
from __future__ import annotations

import socket

import pytest

from h2grid import attacks, defects, endpoints, judge, record, runner, versions
from h2grid.judge import summary
from h2grid.wire import PREFACE, RawConnection

pytestmark = pytest.mark.h2grid

ENDPOINTS = endpoints.endpoints()


@pytest.fixture(scope="session", autouse=True)
def _write_records():
    yield
    if record.ENABLED and record.COLLECTED.modes:
        for path in record.COLLECTED.write(attacks.KEYS):
            print(f"h2grid: wrote {path}")


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
    wrong = record.mismatches(pinned, got)
    for _ in range(record.RETRIES):
        again = [case_id for case_id in wrong if case_id in pinned and case_id in got]
        if not again:
            break
        got.update(runner.h2spec_cases(endpoint, again))
        wrong = record.mismatches(pinned, got)
    assert not wrong, f"{endpoint.id}: h2spec results differ from the record (each tried {1 + record.RETRIES} times):\n" + "\n".join(
        f"  {case_id}: pinned {pinned.get(case_id, {}).get('result', 'nothing')}, now "
        f"{got[case_id].result if case_id in got else 'not run'}"
        + (f" ({got[case_id].description}: {got[case_id].message})" if case_id in got and got[case_id].message else "")
        for case_id in wrong)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("key", attacks.KEYS)
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
