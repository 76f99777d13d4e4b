"""HTTP/1.1 conformance of every entry's parser (tests/conformance): one test per stack and case.

Each case of tests/conformance/cases.py (raw request bytes, the answers RFC 9112 / 9110 allow) goes
alone on a fresh connection to the stack's server, started once per stack; then a fresh GET / must
still answer 200. A stack's known failures are catalog caveats (tests/conformance/known.py, turned
into strict expected failures by conftest.known_limitation): a case that starts to pass fails the run,
so an upgrade that fixes one is noticed and its caveat goes. The stacks with a smuggling-relevant
caveat run every smuggling case again behind a private nginx (tests/conformance/nginx.py), the
mitigation users deploy; what passes there is the evidence docs/conformance.md gives.
Verdicts land in the reliability summary; `python -m tests.conformance` writes docs/conformance.md.
"""
from __future__ import annotations

import pytest

from conformance import cases, known, nginx, wire
from reltools import ALL, warm

pytestmark = pytest.mark.reliability

SMUGGLING_CASES = [case for case in cases.CASES if case.cls == cases.SMUGGLING]
BEHIND_NGINX = known.smuggling_stacks()


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


@pytest.mark.parametrize("name,case_id", _params(ALL, cases.CASES))
def test_http_conformance(name, case_id, warmed, results):
    case = cases.BY_ID[case_id]
    port = warmed(name).port
    verdict, what, data = wire.run_case(port, case)
    results.verdict(name, "conformance", case.id, verdict, what, data)
    _check_recorded(case, verdict, what, name)


@pytest.mark.skipif(nginx.binary() is None, reason="no nginx (apt-packages.txt)")
@pytest.mark.parametrize("name,case_id", _params(BEHIND_NGINX, SMUGGLING_CASES))
def test_http_conformance_behind_nginx(name, case_id, proxied, results):
    case = cases.BY_ID[case_id]
    port = proxied(name)
    verdict, what, data = wire.run_case(port, case, behind_proxy=True)
    results.verdict(name, "conformance_nginx", case.id, verdict, what, data)
    _check_recorded(case, verdict, what, f"{name} behind nginx")


def _check_recorded(case: cases.Case, verdict: str, what: str, label: str) -> None:
    assert verdict != wire.FAIL, (
        f"{label}: case {case.id} ({case.cls}, RFC 9112/9110 {case.rfc}) got {what}; allowed: "
        f"{' | '.join(repr(p) for p in case.ok)}" + (f", lenient: {' | '.join(repr(p) for p in case.lenient)}"
                                                     if case.lenient else "") + f"\nsent: {case.request[:300]!r}")
