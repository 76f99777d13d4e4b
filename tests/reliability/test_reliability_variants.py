"""A client or driver variant (sanic_glide, flask_gevent_redispy, sanic_motor, ...) inherits its base
entry's HTTP-level results: they are one server and one app, and only the Redis client or the Mongo
driver differs (reltools.VARIANT_BASE). So the hostile barrage, slow and silent clients, the killed
worker, the hold of `/` and the conformance grid run on the base entry, and the variant runs what its
client changes (its backend routes under load, the backend faults, memory).

This module shows that the inheritance holds: for one variant per client, the fixed hostile catalogue
(request lines, fields, framing, bodies, pipelining, hostile targets on every route) gets the same
answers, case by case, from the variant as from its base entry, both started side by side.
"""
from __future__ import annotations

import asyncio
from dataclasses import dataclass

import pytest

import hostile
from reltools import CLIENT_TIMEOUT_S, ENTRIES, VARIANT_BASE, exchange, parse_responses, warm
from servers.core import catalog

pytestmark = pytest.mark.reliability


def _one_per_client() -> list[str]:
    """The first variant of each Redis client and of each Mongo driver the variants run."""
    seen, chosen = set(), []
    for name in VARIANT_BASE:
        entry = catalog.get(name)
        key = (entry.redis_client, entry.mongo_driver)
        if key not in seen:
            seen.add(key)
            chosen.append(name)
    return chosen


@dataclass(frozen=True)
class Answer:
    statuses: tuple[int, ...]
    ended: str  # "closed", "reset" or "open"

    def agrees(self, other: "Answer") -> bool:
        """The same answers and the same end; or one of them ended by a reset and its answers a prefix of
        the other's: a server that closes with our bytes unread sends a reset, and a reset discards the
        answers it had already sent but that we had not read yet (TCP), a race of the kernel, not the server."""
        if self == other:
            return True
        for cut, whole in ((self, other), (other, self)):
            if cut.ended == "reset" and whole.statuses[:len(cut.statuses)] == cut.statuses:
                return True
        return False

    def __str__(self) -> str:
        return f"{' '.join(map(str, self.statuses)) or 'no answer'} ({self.ended})"


def _answers(port: int, cases: list[hostile.Case]) -> dict[str, Answer]:
    """Each case's answer on a fresh connection: the statuses in order, then how the connection ended."""

    async def one(case: hostile.Case) -> Answer:
        got = await exchange(port, list(case.chunks), half_close=case.half_close, timeout=CLIENT_TIMEOUT_S,
                             expect=case.expect, quiet=0.3)
        parsed = parse_responses(got.data, case.head_flags)
        ended = "reset" if got.reset else "closed" if got.closed else "open"
        return Answer(tuple(r.status for r in parsed.responses), ended)

    async def every() -> list[Answer]:
        return [await one(case) for case in cases]

    return dict(zip((f"{c.kind}:{c.name}" for c in cases), asyncio.run(every()), strict=True))


def test_every_variant_has_a_base_entry_of_the_same_server_and_app():
    for name, base in VARIANT_BASE.items():
        variant, original = catalog.get(name), catalog.get(base)
        assert (variant.server, variant.app, variant.interpreter) == (original.server, original.app, original.interpreter)
        assert (variant.redis_client, variant.mongo_driver) != (original.redis_client, original.mongo_driver)
    assert {catalog.get(n).redis_client for n in VARIANT_BASE} | {catalog.get(n).mongo_driver for n in VARIANT_BASE} \
        >= {e.redis_client for e in ENTRIES if e.name in VARIANT_BASE}


@pytest.mark.timeout(300)
@pytest.mark.parametrize("name", _one_per_client())
def test_a_variant_answers_the_hostile_catalogue_as_its_base_entry(name, start_server, backends):
    backends.ensure("mongo", "redis")  # the catalogue asks the backend routes too
    base, variant = start_server(VARIANT_BASE[name]), start_server(name)
    for server in (base, variant):
        warm(server)
    cases = hostile.fixed_cases()
    expected, got = _answers(base.port, cases), _answers(variant.port, cases)
    differ = {case: (str(expected[case]), str(got[case])) for case in expected if not expected[case].agrees(got[case])}
    assert not differ, f"{name} answers otherwise than {VARIANT_BASE[name]} (base, variant): {differ}"
