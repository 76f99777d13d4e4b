"""Asyncio Redis access with redis.asyncio: one pool per event loop, or a connection per request.

aioredis 2.0.1 does not import on Python 3.11+ (its TimeoutError class subclasses two builtins
that became one); redis.asyncio is its merged, maintained successor with the same API.
"""

from __future__ import annotations

from typing import Any

import redis.asyncio
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from backends import DEFAULT_REDIS_URL, REDIS_KEY
from backends.pools import PerLoop
from backends.redis_sync import client_kwargs as sync_client_kwargs
from backends.redis_sync import pool_kwargs as sync_pool_kwargs
from backends.redis_sync import unavailable_on_error


def client_kwargs() -> dict[str, Any]:
    """The sync settings, with redis.asyncio's own Retry class (the same policy, see redis_sync)."""
    return {
        **sync_client_kwargs(),
        "retry": Retry(NoBackoff(), 1, supported_errors=(redis.exceptions.ConnectionError,)),
    }


def pool_kwargs() -> dict[str, Any]:
    return {**sync_pool_kwargs(), **client_kwargs()}


class PooledAsyncRedis:
    """One redis.asyncio.BlockingConnectionPool per event loop, created on first use inside that loop."""

    def __init__(self, url: str = DEFAULT_REDIS_URL, **options: Any) -> None:
        self.url = url
        self._client = PerLoop(
            lambda: redis.asyncio.Redis(
                connection_pool=redis.asyncio.BlockingConnectionPool.from_url(url, **{**pool_kwargs(), **options})
            )
        )

    @property
    def client(self) -> redis.asyncio.Redis:
        """The running loop's client; only valid inside a coroutine."""
        return self._client.get()

    async def get_name(self) -> str | None:
        with unavailable_on_error():
            return await self.client.get(REDIS_KEY)

    async def close(self) -> None:
        client = self._client.pop()
        if client is not None:
            await client.connection_pool.disconnect()


async def get_name_per_request(url: str) -> str | None:
    """Open a new connection, GET the key and close the connection, all inside this call."""
    with unavailable_on_error():
        client = redis.asyncio.Redis.from_url(url, single_connection_client=True, **client_kwargs())
        try:
            return await client.get(REDIS_KEY)
        finally:
            await client.aclose()
