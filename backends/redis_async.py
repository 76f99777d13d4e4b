"""Asyncio Redis access with redis.asyncio: one pool per event loop, or a connection per request.

aioredis 2.0.1 does not import on Python 3.11+ (its TimeoutError class subclasses two builtins
that became one); redis.asyncio is its merged, maintained successor with the same API. The
clients "hiredis" and "redispy" of backends.redis_clients, as in backends.redis_sync.
"""

from __future__ import annotations

from typing import Any

import redis.asyncio
from redis._parsers import _AsyncRESP2Parser
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from backends import DEFAULT_REDIS_URL, REDIS_KEY
from backends.pools import PerLoop
from backends.redis_clients import DEFAULT
from backends.redis_sync import client_kwargs as sync_client_kwargs
from backends.redis_sync import pool_kwargs as sync_pool_kwargs
from backends.redis_sync import unavailable_on_error


class PurePythonConnection(redis.asyncio.Connection):
    """A connection as redis.asyncio makes it without hiredis (see redis_sync.PurePythonConnection)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**{**kwargs, "parser_class": _AsyncRESP2Parser})
        self._command_packer = None  # redis.asyncio packs in Python when it has no hiredis packer


CONNECTION_CLASSES: dict[str, type[redis.asyncio.Connection]] = {
    "hiredis": redis.asyncio.Connection, "redispy": PurePythonConnection}


def client_kwargs(client: str = DEFAULT) -> dict[str, Any]:
    """The sync settings (which check the client's name and hiredis), with redis.asyncio's own Retry
    and connection classes: the same policy."""
    return {
        **sync_client_kwargs(client),
        "connection_class": CONNECTION_CLASSES[client],
        "retry": Retry(NoBackoff(), 1, supported_errors=(redis.exceptions.ConnectionError,)),
    }


def pool_kwargs(client: str = DEFAULT) -> dict[str, Any]:
    return {**sync_pool_kwargs(client), **client_kwargs(client)}


class PooledAsyncRedis:
    """One redis.asyncio.BlockingConnectionPool per event loop, created on first use inside that loop."""

    def __init__(self, url: str = DEFAULT_REDIS_URL, client: str = DEFAULT, **options: Any) -> None:
        self.url = url
        pool_kwargs(client)  # an unknown client fails here, not in the first request
        # Made per loop: redis.asyncio's Retry is not shared between pools of different loops.
        self._client = PerLoop(
            lambda: redis.asyncio.Redis(
                connection_pool=redis.asyncio.BlockingConnectionPool.from_url(url, **{**pool_kwargs(client), **options})
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


async def get_name_per_request(url: str, client: str = DEFAULT) -> str | None:
    """Open a new connection, GET the key and close the connection, all inside this call."""
    with unavailable_on_error():
        connection = redis.asyncio.Redis.from_url(url, single_connection_client=True, **client_kwargs(client))
        try:
            return await connection.get(REDIS_KEY)
        finally:
            await connection.aclose()
