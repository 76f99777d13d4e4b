"""Every Redis client of backends.redis_clients against a real redis-server: the answers, the
missing key, a connection per request, and that each runs the parser it is named for.
(Down, hung and restarted servers: test_backend_faults.py, over every client too.)"""

import asyncio

import pytest
import redis

from backends import REDIS_KEY, redis_clients
from backends.seed import REDIS_VALUE, seed_redis

ASYNC_CLIENTS = list(redis_clients.CLIENTS)
SYNC_CLIENTS = [c for c, spec in redis_clients.CLIENTS.items() if redis_clients.SYNC in spec.modes]


async def _both(url: str, client: str) -> list:
    access = redis_clients.async_access(client)
    pooled = access.PooledAsyncRedis(url, client)
    try:
        return [await pooled.get_name(), *await asyncio.gather(*(pooled.get_name() for _ in range(10))),
                await access.get_name_per_request(url, client)]
    finally:
        await pooled.close()


def _sync_both(url: str, client: str) -> list:
    access = redis_clients.sync_access(client)
    pooled = access.PooledRedis(url, client)
    try:
        return [pooled.get_name(), access.get_name_per_request(url, client)]
    finally:
        pooled.close()


@pytest.mark.parametrize("client", ASYNC_CLIENTS)
def test_async_client_answers(backends, client) -> None:
    assert asyncio.run(_both(backends.redis_url, client)) == [REDIS_VALUE] * 12


@pytest.mark.parametrize("client", SYNC_CLIENTS)
def test_sync_client_answers(backends, client) -> None:
    assert _sync_both(backends.redis_url, client) == [REDIS_VALUE] * 2


@pytest.mark.parametrize("client", ASYNC_CLIENTS)
def test_missing_key_is_none(backends, redis_admin, client) -> None:
    redis_admin.delete(REDIS_KEY)
    try:
        assert asyncio.run(_both(backends.redis_url, client)) == [None] * 12
        if client in SYNC_CLIENTS:
            assert _sync_both(backends.redis_url, client) == [None] * 2
    finally:
        seed_redis(backends.redis_url)


@pytest.mark.parametrize("client", ASYNC_CLIENTS)
def test_per_request_opens_and_closes_a_connection(backends, redis_connections, wait_until, client) -> None:
    access = redis_clients.async_access(client)
    received, connected = redis_connections()

    async def main() -> None:
        for _ in range(3):
            assert await access.get_name_per_request(backends.redis_url, client) == REDIS_VALUE

    asyncio.run(main())
    assert redis_connections()[0] >= received + 3
    assert wait_until(lambda: redis_connections()[1] == connected)


@pytest.mark.parametrize("client, parser", [("hiredis", "Hiredis"), ("redispy", "RESP")])
def test_redis_py_clients_run_the_parser_and_packer_they_name(backends, client, parser) -> None:
    from backends import redis_async, redis_sync

    sync = redis_sync.PooledRedis(backends.redis_url, client)
    sync.get_name()
    connection = sync.client.connection_pool.get_connection()
    try:
        assert parser in type(connection._parser).__name__
        assert connection.protocol == 3  # redis-py 8 speaks RESP3 (HELLO 3), the page says so
        packer = type(connection._command_packer).__name__
        assert packer == ("HiredisRespSerializer" if client == "hiredis" else "PythonRespSerializer")
    finally:
        sync.client.connection_pool.release(connection)
        sync.close()

    async def main() -> tuple[str, object]:
        pooled = redis_async.PooledAsyncRedis(backends.redis_url, client)
        await pooled.get_name()
        conn = await pooled.client.connection_pool.get_connection()
        try:
            return type(conn._parser).__name__, conn._command_packer
        finally:
            await pooled.client.connection_pool.release(conn)
            await pooled.close()

    parser_name, async_packer = asyncio.run(main())
    assert parser in parser_name
    assert (async_packer is not None) == (client == "hiredis")


def test_unknown_client_fails_when_built() -> None:
    with pytest.raises(KeyError):
        redis_clients.get("aioredis")
    with pytest.raises(ValueError):
        redis_clients.sync_access("glide")
    assert redis.utils.HIREDIS_AVAILABLE, "hiredis is a dependency of the project (redis[hiredis])"
