"""Asyncio Redis access with valkey-glide: one GlideClient per event loop, or one per request.

Glide's client is not a pool: one GlideClient multiplexes every request of its loop over one
connection, handled by its Rust core (tokio, in threads of its own); the Python side hands each
command over and awaits a future. Creating one connects, so it is awaited: the per-loop client is
a task that the first request starts and the others await. A client that could not connect is
dropped, and the next request tries again.
"""
from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlparse

from glide import (AdvancedGlideClientConfiguration, BackoffStrategy, ClosingError, GlideClient,
                   GlideClientConfiguration, NodeAddress)
from glide import ConnectionError as GlideConnectionError
from glide import TimeoutError as GlideTimeoutError

from backends import DEFAULT_REDIS_URL, REDIS_KEY
from backends.errors import BackendUnavailable
from backends.pools import PerLoop
from backends.redis_sync import TIMEOUT_S

UNAVAILABLE_ERRORS = (ClosingError, GlideConnectionError, GlideTimeoutError, OSError)


@contextmanager
def unavailable_on_error() -> Iterator[None]:
    try:
        yield
    except UNAVAILABLE_ERRORS as exc:
        raise BackendUnavailable(f"redis (glide): {exc}") from exc


def configuration(url: str) -> GlideClientConfiguration:
    """redis://[user:$PASSWORD@]host:port/db as glide's configuration, with the suite's 1 s timeouts."""
    parts = urlparse(url)
    db = int(parts.path.lstrip("/") or 0)
    extra: dict[str, Any] = {}
    if parts.password:
        from glide import ServerCredentials

        extra["credentials"] = ServerCredentials(parts.password, parts.username or None)
    return GlideClientConfiguration(
        [NodeAddress(parts.hostname or "127.0.0.1", parts.port or 6379)], database_id=db,
        request_timeout=int(TIMEOUT_S * 1000),
        advanced_config=AdvancedGlideClientConfiguration(connection_timeout=int(TIMEOUT_S * 1000)),
        # Reconnect in the background at once, then at most every ~0.4 s (10 ms x 2^n, 5 tries):
        # a restarted server is found again within the contract's 5 s.
        reconnect_strategy=BackoffStrategy(num_of_retries=5, factor=10, exponent_base=2),
        **extra)


def _decode(value: bytes | None) -> str | None:
    return None if value is None else value.decode()


class PooledAsyncRedis:
    """One GlideClient per event loop, created (connected) by the first request in that loop."""

    def __init__(self, url: str = DEFAULT_REDIS_URL, client: str = "glide") -> None:
        self.url = url
        self._config = configuration(url)
        self._client: PerLoop[asyncio.Task] = PerLoop(lambda: asyncio.ensure_future(GlideClient.create(self._config)))

    async def _connected(self) -> GlideClient:
        task = self._client.get()
        try:
            return await asyncio.shield(task)
        except BaseException:
            if task.done() and self._client.get() is task:
                self._client.pop()  # the next request connects anew
            raise

    async def get_name(self) -> str | None:
        with unavailable_on_error():
            client = await self._connected()
            try:
                return _decode(await client.get(REDIS_KEY))
            except ClosingError:
                self._client.pop()  # closed for good: the next request makes a new client
                raise

    async def close(self) -> None:
        task = self._client.pop()
        if task is not None and task.done() and not task.cancelled() and task.exception() is None:
            await task.result().close()


async def get_name_per_request(url: str, client: str = "glide") -> str | None:
    """Create (connect) a client, GET the key and close it, all inside this call."""
    with unavailable_on_error():
        connection = await GlideClient.create(configuration(url))
        try:
            return _decode(await connection.get(REDIS_KEY))
        finally:
            await connection.close()
