"""backends.redis_async (redis.asyncio) against a real redis-server."""

import asyncio

from backends import REDIS_KEY
from backends.redis_async import PooledAsyncRedis, get_name_per_request
from backends.seed import REDIS_VALUE, seed_redis


def test_pooled_and_per_request_answer(backends) -> None:
    async def main() -> None:
        pooled = PooledAsyncRedis(backends.redis_url)
        assert await pooled.get_name() == REDIS_VALUE
        assert await get_name_per_request(backends.redis_url) == REDIS_VALUE
        await pooled.close()

    asyncio.run(main())


def test_missing_key_is_none(backends, redis_admin) -> None:
    async def main() -> None:
        pooled = PooledAsyncRedis(backends.redis_url)
        assert await pooled.get_name() is None
        assert await get_name_per_request(backends.redis_url) is None
        await pooled.close()

    redis_admin.delete(REDIS_KEY)
    try:
        asyncio.run(main())
    finally:
        seed_redis(backends.redis_url)


def test_per_request_opens_and_closes_a_connection_each_call(backends, redis_connections, wait_until) -> None:
    received, connected = redis_connections()

    async def main() -> None:
        for _ in range(5):
            assert await get_name_per_request(backends.redis_url) == REDIS_VALUE

    asyncio.run(main())
    assert redis_connections()[0] == received + 5
    assert wait_until(lambda: redis_connections()[1] == connected)


def test_pooled_reuse_is_bounded(backends, redis_connections) -> None:
    pooled = PooledAsyncRedis(backends.redis_url)
    received, _ = redis_connections()

    async def main() -> None:
        for _ in range(50):
            assert await pooled.get_name() == REDIS_VALUE
        assert redis_connections()[0] == received + 1
        # 20 concurrent tasks need at most 20 connections, and a second wave reuses them.
        for _ in range(2):
            assert await asyncio.gather(*(pooled.get_name() for _ in range(20))) == [REDIS_VALUE] * 20
        assert 1 <= redis_connections()[0] - received <= 20
        await pooled.close()

    asyncio.run(main())


def test_new_event_loop_gets_a_new_pool(backends, redis_connections) -> None:
    pooled = PooledAsyncRedis(backends.redis_url)
    clients = []

    async def use() -> None:
        assert await pooled.get_name() == REDIS_VALUE
        clients.append(pooled.client)
        assert pooled.client is clients[-1]
        await pooled.close()

    asyncio.run(use())
    asyncio.run(use())
    assert clients[0] is not clients[1]
