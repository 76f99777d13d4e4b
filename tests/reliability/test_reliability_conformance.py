"""HTTP/1.1 conformance of every entry's parser (tests/conformance): one test per stack and case.

Each case of tests/conformance/cases.py (raw request bytes, the answers RFC 9112 / 9110 allow) goes
alone on a fresh connection to the stack's server, started once per stack; then a fresh GET / must
still answer 200. The judge (tests/conformance/wire.py) reads how the server framed the message. A
stack's known failures are catalog caveats (tests/conformance/known.py): each must keep failing with
the exact answers the stack's record pins (records/<entry>.json, tests/conformance/pinning.py), so a
fix fails the run (the caveat goes) and so does a change of shape (it prints the new answers). The
stacks with a smuggling-relevant caveat run every smuggling case again behind a private nginx
(tests/conformance/nginx.py), a column of the grid. With CONFORMANCE_RECORD=1 the run writes the
records instead of comparing; `python -m tests.conformance` writes docs/conformance.md from them.
"""
from __future__ import annotations

import os

import pytest

from conformance import cases, known, nginx, pinning, wire
from harness import versions
from reltools import ALL, warm
from serverproc import ServerProcess
from servers.core import catalog

pytestmark = pytest.mark.reliability

SMUGGLING_CASES = [case for case in cases.CASES if case.cls == cases.SMUGGLING]
BEHIND_NGINX = known.smuggling_stacks()
RACE_ATTEMPTS = 3  # a case that does not give what is expected is tried again, up to this many times
# Columns beyond the stack as the catalog starts it: a setting is extra server arguments and environment for
# one entry (keep-alive off, another parser), its column "none+<setting>" in the record. None yet: a column
# is one line here, its expected failures the record's (the plain column's caveats do not apply).
SETTINGS: dict[str, dict[str, tuple[tuple[str, ...], dict[str, str]]]] = {}


def _params(names: list[str], selected) -> list:
    return [pytest.param(name, case.id, id=f"{name}-{case.id}") for name in names for case in selected]


@pytest.fixture(scope="module")
def warmed(shared_server):
    """warmed(name) -> the stack's shared server, once it answers GET / (a freshly started stack
    may still be loading its workers: that is not the first case's fault)."""
    ready: set[int] = set()

    def get(name: str):
        server = shared_server(name)
        if server.proc.pid not in ready:
            warm(server)
            ready.add(server.proc.pid)
        return server

    return get


@pytest.fixture(scope="module")
def proxied(warmed):
    """proxied(name) -> the port of a private nginx in front of that stack's server."""
    current: dict[int, nginx.Nginx] = {}

    def get(name: str) -> int:
        server = warmed(name)
        if server.port not in current:
            for old in current.values():
                old.stop()
            current.clear()
            current[server.port] = nginx.Nginx(server.port).start()
        return current[server.port].port

    yield get
    for proxy in current.values():
        proxy.stop()


@pytest.fixture(scope="module")
def with_setting(backends):
    """with_setting(name, setting) -> the port of that stack started with the setting's arguments and environment."""
    current: dict[tuple[str, str], ServerProcess] = {}

    def get(name: str, setting: str) -> int:
        if (name, setting) not in current:
            for old in current.values():
                old.kill()
            current.clear()
            args, env = SETTINGS[name][setting]
            server = ServerProcess(name, ["--mongo-url", backends.mongo_url, "--redis-url", backends.redis_url, *args],
                                   env={**os.environ, **env}).start()
            warm(server)
            current[(name, setting)] = server
        return current[(name, setting)].port

    yield get
    for server in current.values():
        server.kill()


@pytest.fixture(scope="module", autouse=True)
def pins():
    """With CONFORMANCE_RECORD=1, each stack's answers become its record's conformance section."""
    yield pinning.PINS
    if pinning.ENABLED:
        written = pinning.PINS.write([case.id for case in cases.CASES], versions.for_entry)
        print(f"conformance records: {len(written)} written")


@pytest.mark.parametrize("name,case_id", _params(ALL, cases.CASES))
def test_http_conformance(name, case_id, warmed, results):
    _needs_record(name)
    case = cases.BY_ID[case_id]
    port = warmed(name).port
    _judge_and_check(name, case, lambda: wire.run_case(port, case), pinning.NONE, known.expected(catalog.get(name)),
                     results, "conformance")


@pytest.mark.skipif(nginx.binary() is None, reason="no nginx (apt-packages.txt)")
@pytest.mark.parametrize("name,case_id", _params(BEHIND_NGINX, SMUGGLING_CASES))
def test_http_conformance_behind_nginx(name, case_id, proxied, results):
    _needs_record(name)
    case = cases.BY_ID[case_id]
    port = proxied(name)
    _judge_and_check(name, case, lambda: wire.run_case(port, case, behind_proxy=True), "nginx", {}, results,
                     "conformance_nginx")


@pytest.mark.parametrize("name,setting,case_id", [
    pytest.param(name, setting, case.id, id=f"{name}-{setting}-{case.id}")
    for name, settings in SETTINGS.items() for setting in settings for case in cases.CASES])
def test_http_conformance_with_setting(name, setting, case_id, with_setting, results):
    case = cases.BY_ID[case_id]
    port = with_setting(name, setting)
    col = pinning.column(pinning.NONE, setting)
    pin = pinning.pinned(name, case.id, col) or {}
    expected = {case.id: "setting"} if pin.get("verdict") in (wire.FAIL, wire.HANDED) else {}
    _judge_and_check(name, case, lambda: wire.run_case(port, case), col, expected, results, f"conformance_{setting}")


def _needs_record(name: str) -> None:
    if not pinning.ENABLED and not pinning.recorded(name):
        pytest.skip(f"{name} has no conformance record to hold it to (unverified): write it with CONFORMANCE_RECORD=1 "
                    f"./test.sh -m reliability tests/reliability/test_reliability_conformance.py -k {name}")


def _judge_and_check(name: str, case: cases.Case, run, col: str, expected: dict[str, str], results, kind: str):
    """Run the case (again, up to RACE_ATTEMPTS, while it does not give what is expected: a racy case's
    race is stated in known.py), record it, and hold it to the RFC, or to its caveat's pinned answers."""
    label = name if col == pinning.NONE else f"{name} ({col})"
    key = expected.get(case.id)
    pin = pinning.pinned(name, case.id, col)
    for _ in range(RACE_ATTEMPTS):
        judgement, data = run()
        failing = judgement.verdict in (wire.FAIL, wire.HANDED)
        if (pin["answers"] == judgement.answers if key and pin and not pinning.ENABLED else failing == bool(key)):
            break  # as expected; else again: a loaded machine can delay a close past the linger
    results.verdict(name, kind, case.id, judgement.verdict, judgement.what, data)
    pinning.PINS.add(name, col, case.id, judgement)
    if failing != bool(key) or (key and pin and judgement.answers != pin["answers"] and not pinning.ENABLED):
        pinning.PINS.failure(name)  # its record says the tests did not pass
    sent = f"\nsent: {case.request[:300]!r}"
    if key:
        caveat = f"catalog caveat {key!r}: {catalog.CAVEATS[key]}" if key in catalog.CAVEATS else "pinned failure"
        if not failing and key in known.KNOWN and case.id in known.KNOWN[key].racy:
            pytest.skip(f"racy, passed {RACE_ATTEMPTS} times this run: {known.KNOWN[key].race}")
        assert failing, (f"{label}: case {case.id} now gives {judgement.what}, a {judgement.verdict}: {caveat} no "
                         f"longer shows; take the case out of it (tests/conformance/known.py){sent}")
        if not pinning.ENABLED:
            assert pin, (f"{label}: case {case.id} fails ({judgement.what}) with no pinned answer: write the "
                         f"record (CONFORMANCE_RECORD=1, tests/conformance/pinning.py){sent}")
            assert judgement.answers == pin["answers"], (
                f"{label}: case {case.id} changed shape: now {judgement.answers!r} ({judgement.reading}, "
                f"{judgement.effect}), pinned {pin['answers']!r} ({pin.get('reading')}, {pin.get('effect')}); "
                f"see whether the framing moved, then rewrite the record{sent}")
        pytest.xfail(f"{caveat}; answers {judgement.answers!r} ({judgement.reading}, {judgement.effect})")
    assert not failing, (
        f"{label}: case {case.id} ({case.cls}, RFC 9112/9110 {case.rfc}) got {judgement.what}: "
        f"{judgement.verdict}, effect {judgement.effect}; allowed: {' | '.join(repr(p) for p in case.ok)}"
        + (f", lenient: {' | '.join(repr(p) for p in case.lenient)}" if case.lenient else "") + sent)
