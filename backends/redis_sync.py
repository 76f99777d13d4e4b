"""Synchronous Redis access with redis-py: one bounded pool per process, or a connection per request."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import redis
from redis.backoff import NoBackoff
from redis.maint_notifications import MaintNotificationsConfig
from redis.retry import Retry

from backends import DEFAULT_REDIS_URL, REDIS_KEY
from backends.errors import BackendUnavailable
from backends.pools import MAX_POOL_SIZE, PerProcess

# 1 s to connect and 1 s per reply: a dead or hung server means 503 well within the 2 s contract.
TIMEOUT_S = 1.0

# Errors that mean "backend down or too slow"; redis-py raises OSError subclasses on some paths.
UNAVAILABLE_ERRORS: tuple[type[BaseException], ...] = (
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    OSError,
)


def client_kwargs() -> dict[str, Any]:
    """Keyword arguments for redis.Redis / redis.ConnectionPool (and their asyncio twins)."""
    return {
        "socket_connect_timeout": TIMEOUT_S,
        "socket_timeout": TIMEOUT_S,
        # redis-py >= 6 retries 3 times with backoff on errors and timeouts, which turns 1 s
        # into several. One immediate retry on a broken connection only: a connection that died
        # with a restarted server gets replaced, and a refused connect fails fast anyway.
        "retry": Retry(NoBackoff(), 1, supported_errors=(redis.exceptions.ConnectionError,)),
        # With maintenance notifications ("auto" by default, for Redis Enterprise) redis-py 8 skips
        # its check of pooled connections on checkout: after a server restart the asyncio pool
        # hands out a dead connection once (503). Plain redis-server never sends them.
        "maint_notifications_config": MaintNotificationsConfig(enabled=False),
        "decode_responses": True,
    }


@contextmanager
def unavailable_on_error() -> Iterator[None]:
    """Re-raise connection failures and timeouts as BackendUnavailable."""
    try:
        yield
    except UNAVAILABLE_ERRORS as exc:
        raise BackendUnavailable(f"redis: {exc}") from exc


def pool_kwargs() -> dict[str, Any]:
    """Bounded pool: with all connections busy a caller waits up to TIMEOUT_S, then 503.

    (A plain ConnectionPool is unbounded; with max_connections it fails at once instead of waiting.)
    """
    return {**client_kwargs(), "max_connections": MAX_POOL_SIZE, "timeout": TIMEOUT_S}


class PooledRedis:
    """One redis.BlockingConnectionPool per process, created on first use in that process."""

    def __init__(self, url: str = DEFAULT_REDIS_URL, **options: Any) -> None:
        self.url = url
        self._client = PerProcess(
            lambda: redis.Redis(
                connection_pool=redis.BlockingConnectionPool.from_url(url, **{**pool_kwargs(), **options})
            )
        )

    @property
    def client(self) -> redis.Redis:
        return self._client.get()

    def get_name(self) -> str | None:
        with unavailable_on_error():
            return self.client.get(REDIS_KEY)

    def close(self) -> None:
        client = self._client.pop()
        if client is not None:
            client.connection_pool.disconnect()


def get_name_per_request(url: str) -> str | None:
    """Open a new connection, GET the key and close the connection, all inside this call."""
    with unavailable_on_error():
        client = redis.Redis.from_url(url, single_connection_client=True, **client_kwargs())
        try:
            return client.get(REDIS_KEY)
        finally:
            client.close()
