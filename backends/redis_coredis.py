"""Asyncio Redis access with coredis: one connection pool per event loop, or a client per request.

coredis 6 runs on anyio: a client is usable only inside `async with client:` (its pool's task
group), and that block must be left by the task that entered it. So the pooled client is entered
by a task of its own, kept open for the loop's life, and every request awaits that it is ready.
"""
from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager

import coredis
from coredis.exceptions import ConnectionError as CoredisConnectionError
from coredis.retry import ConstantRetryPolicy

from backends import DEFAULT_REDIS_URL, REDIS_KEY
from backends.errors import BackendUnavailable
from backends.pools import MAX_POOL_SIZE, PerLoop
from backends.redis_sync import TIMEOUT_S

# coredis raises the builtin TimeoutError (anyio's fail_after) for a reply that does not come.
UNAVAILABLE_ERRORS = (CoredisConnectionError, OSError, TimeoutError)


def _unavailable(exc: BaseException) -> bool:
    if isinstance(exc, BaseExceptionGroup):  # anyio's task groups wrap what their tasks raised
        return all(_unavailable(e) for e in exc.exceptions)
    return isinstance(exc, UNAVAILABLE_ERRORS)


@contextmanager
def unavailable_on_error() -> Iterator[None]:
    try:
        yield
    except BaseException as exc:
        if _unavailable(exc):
            raise BackendUnavailable(f"redis (coredis): {exc!r}") from exc
        raise


def _client(url: str, max_connections: int) -> coredis.Redis:
    return coredis.Redis.from_url(url, decode_responses=True, connect_timeout=TIMEOUT_S, stream_timeout=TIMEOUT_S,
                                  pool_timeout=TIMEOUT_S, max_connections=max_connections,
                                  # as redis-py here: one immediate retry on a broken connection (see redis_sync)
                                  retry_policy=ConstantRetryPolicy((CoredisConnectionError,), 1, delay=0))


class _Held:
    """A client entered by its own task, open until close() (or until its pool fails)."""

    def __init__(self, client: coredis.Redis) -> None:
        self.client = client
        self.ready: asyncio.Future = asyncio.get_running_loop().create_future()
        self._stop = asyncio.Event()
        self.task = asyncio.ensure_future(self._hold())

    async def _hold(self) -> None:
        try:
            async with self.client:
                if not self.ready.done():
                    self.ready.set_result(self.client)
                await self._stop.wait()
        except BaseException as exc:
            if not self.ready.done():
                self.ready.set_exception(exc)
            if not isinstance(exc, Exception):
                raise

    async def close(self) -> None:
        self._stop.set()
        await asyncio.gather(self.task, return_exceptions=True)


class PooledAsyncRedis:
    """One coredis client (and its connection pool) per event loop, entered on first use."""

    def __init__(self, url: str = DEFAULT_REDIS_URL, client: str = "coredis") -> None:
        self.url = url
        self._held: PerLoop[_Held] = PerLoop(lambda: _Held(_client(url, MAX_POOL_SIZE)))

    async def get_name(self) -> str | None:
        with unavailable_on_error():
            held = self._held.get()
            if held.task.done():  # its pool failed (or it was closed): make a new one
                self._held.pop()
                held = self._held.get()
            client = await asyncio.shield(held.ready)
            return await client.get(REDIS_KEY)

    async def close(self) -> None:
        held = self._held.pop()
        if held is not None:
            await held.close()


async def get_name_per_request(url: str, client: str = "coredis") -> str | None:
    """Enter a new client (its own pool, one connection), GET the key and leave it, inside this call."""
    with unavailable_on_error():
        async with _client(url, 1) as connection:
            return await connection.get(REDIS_KEY)
