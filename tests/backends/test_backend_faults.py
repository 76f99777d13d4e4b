"""Fault injection: a stopped or hung backend means BackendUnavailable within 2 s, and the same
objects answer again once it is back (no restart of the app, no new client objects)."""

import asyncio
import time
from collections.abc import Awaitable, Callable

import pytest

from backends import mongo_async, mongo_sync, redis_clients
from backends.errors import BackendUnavailable
from backends.mongo_async import DRIVERS
from backends.seed import REDIS_VALUE, seed_redis, user_name

USER = {"id": 42, "name": user_name(42)}
RECOVERY_S = 5.0  # the contract: 200 again within 5 s of the backend being back


def unavailable_within(call: Callable[[], object], limit: float) -> float:
    started = time.monotonic()
    with pytest.raises(BackendUnavailable):
        call()
    elapsed = time.monotonic() - started
    assert elapsed < limit, f"took {elapsed:.2f} s"
    return elapsed


async def unavailable_within_async(call: Callable[[], Awaitable[object]], limit: float) -> float:
    started = time.monotonic()
    with pytest.raises(BackendUnavailable):
        await call()
    elapsed = time.monotonic() - started
    assert elapsed < limit, f"took {elapsed:.2f} s"
    return elapsed


class Calls:
    """Every access function of one backend, pooled objects made once and closed at the end."""

    def __init__(self, backends, service: str) -> None:
        self.service = service
        if service == "redis":
            url, self.expected = backends.redis_url, REDIS_VALUE
            # every client of backends.redis_clients, in each mode it serves
            sync = [c for c, spec in redis_clients.CLIENTS.items() if redis_clients.SYNC in spec.modes]
            self.pooled_sync = [redis_clients.sync_access(c).PooledRedis(url, c) for c in sync]
            self.pooled_async = [redis_clients.async_access(c).PooledAsyncRedis(url, c) for c in redis_clients.CLIENTS]
            self.sync = [p.get_name for p in self.pooled_sync] + [
                lambda c=c: redis_clients.sync_access(c).get_name_per_request(url, c) for c in sync]
            self.async_ = [p.get_name for p in self.pooled_async] + [
                lambda c=c: redis_clients.async_access(c).get_name_per_request(url, c) for c in redis_clients.CLIENTS]
        else:
            url, self.expected = backends.mongo_url, USER
            self.pooled_sync = [mongo_sync.PooledMongo(url)]
            self.pooled_async = [mongo_async.PooledAsyncMongo(url, driver) for driver in DRIVERS]
            self.sync = [lambda: self.pooled_sync[0].find_user(42), lambda: mongo_sync.find_user_per_request(url, 42)]
            self.async_ = [lambda p=p: p.find_user(42) for p in self.pooled_async] + [
                lambda d=d: mongo_async.find_user_per_request(url, 42, d) for d in DRIVERS
            ]
        self.url = url

    @property
    def recover_s(self) -> float:
        """How long a call may still fail once the backend is back. FerretDB finds out that the
        pooled PostgreSQL connections of a restarted cluster are dead by using them (it pings only
        those idle for over 1 s): a call or two may still get 503, within the contract's 5 s."""
        return RECOVERY_S if self.service == "postgres" else 0.0

    def check_sync(self) -> None:
        deadline = time.monotonic() + self.recover_s
        results = []
        for call in self.sync:
            while True:
                try:
                    results.append(call())
                    break
                except BackendUnavailable:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.05)
        assert results == [self.expected] * len(self.sync)

    async def check_async(self) -> None:
        deadline = time.monotonic() + self.recover_s
        results = []
        for call in self.async_:
            while True:
                try:
                    results.append(await call())
                    break
                except BackendUnavailable:
                    if time.monotonic() > deadline:
                        raise
                    await asyncio.sleep(0.05)
        assert results == [self.expected] * len(self.async_)

    def reseed(self) -> None:
        if self.service == "redis":  # no persistence: the restarted server has no key
            seed_redis(self.url)

    def close_sync(self) -> None:
        for pooled in self.pooled_sync:
            pooled.close()

    async def close_async(self) -> None:
        for pooled in self.pooled_async:
            await pooled.close()


# "postgres": the PostgreSQL cluster stopped or hung under a running FerretDB (the mongo calls are used).
STOPPABLE = pytest.mark.parametrize("service", ["redis", "mongo", "postgres"])


@STOPPABLE
def test_sync_stopped_then_restarted(backends, contract_s, service) -> None:
    calls = Calls(backends, service)
    try:
        calls.check_sync()
        backends.down([service])
        for call in calls.sync:
            unavailable_within(call, contract_s)
        backends.up([service])
        calls.reseed()
        calls.check_sync()
    finally:
        calls.close_sync()


@STOPPABLE
def test_async_stopped_then_restarted(backends, contract_s, service) -> None:
    calls = Calls(backends, service)

    async def main() -> None:
        try:
            await calls.check_async()
            backends.down([service])
            for call in calls.async_:
                await unavailable_within_async(call, contract_s)
            backends.up([service])
            calls.reseed()
            await calls.check_async()
        finally:
            await calls.close_async()

    asyncio.run(main())


@STOPPABLE
def test_hung_backend(backends, paused, contract_s, service) -> None:
    """SIGSTOP: the port stays open and connections stay up, but nothing answers."""
    calls = Calls(backends, service)

    async def main() -> None:
        try:
            # Warm the pools first, so that the pooled calls hang on an established connection.
            calls.check_sync()
            await calls.check_async()
            with paused(service):
                for call in calls.sync:
                    unavailable_within(call, contract_s)
                for acall in calls.async_:
                    await unavailable_within_async(acall, contract_s)
            calls.check_sync()
            await calls.check_async()
        finally:
            calls.close_sync()
            await calls.close_async()

    asyncio.run(main())


# alone: under the parallel run's load, FerretDB once answered the first query after the restart with its
# PostgreSQL connection "terminated by administrator command" (SQLSTATE 57P01), a timing of the restart, not of
# the client's pool this test is about
@pytest.mark.alone
@STOPPABLE
def test_restart_between_two_calls(backends, service) -> None:
    """The pooled connections died with the old server, unnoticed: the next call still answers."""
    calls = Calls(backends, service)

    async def main() -> None:
        try:
            calls.check_sync()
            await calls.check_async()
            # Blocking calls: the event loop does not run, so not even it has seen the sockets close.
            backends.down([service])
            backends.up([service])
            calls.reseed()
            calls.check_sync()
            await calls.check_async()
        finally:
            calls.close_sync()
            await calls.close_async()

    asyncio.run(main())
