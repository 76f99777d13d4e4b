"""Synchronous Redis access with redis-py: one bounded pool per process, or a connection per request.

Two clients of backends.redis_clients: "hiredis" (redis-py's own choice when hiredis is installed:
its C reply parser and command packer) and "redispy" (the pure-Python parser and packer redis-py
runs without hiredis), chosen per connection by CONNECTION_CLASSES, so both run in one process.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import redis
from redis._parsers import _RESP2Parser
from redis.backoff import NoBackoff
from redis.connection import PythonRespSerializer
from redis.utils import HIREDIS_AVAILABLE
from redis.maint_notifications import MaintNotificationsConfig
from redis.retry import Retry

from backends import DEFAULT_REDIS_URL, REDIS_KEY
from backends.errors import BackendUnavailable
from backends.pools import MAX_POOL_SIZE, PerProcess
from backends.redis_clients import DEFAULT

# 1 s to connect and 1 s per reply: a dead or hung server means 503 well within the 2 s contract.
TIMEOUT_S = 1.0

# Errors that mean "backend down or too slow"; redis-py raises OSError subclasses on some paths.
UNAVAILABLE_ERRORS: tuple[type[BaseException], ...] = (
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    OSError,
)


class PurePythonConnection(redis.Connection):
    """A connection as redis-py makes it without hiredis, in a process where hiredis is installed.

    (_RESP2Parser is redis-py's pure-Python default: it becomes _RESP3Parser under RESP3, as there.)
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**{**kwargs, "parser_class": _RESP2Parser})
        self._command_packer = PythonRespSerializer(self._buffer_cutoff, self.encoder.encode)


CONNECTION_CLASSES: dict[str, type[redis.Connection]] = {"hiredis": redis.Connection, "redispy": PurePythonConnection}


def connection_class(client: str) -> type[redis.Connection]:
    if client == "hiredis" and not HIREDIS_AVAILABLE:
        raise RuntimeError("the Redis client 'hiredis' needs hiredis installed: pip install 'redis[hiredis]'")
    return CONNECTION_CLASSES[client]


def client_kwargs(client: str = DEFAULT) -> dict[str, Any]:
    """Keyword arguments for redis.Redis / redis.ConnectionPool (the asyncio twins: redis_async)."""
    return {
        "connection_class": connection_class(client),
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


def pool_kwargs(client: str = DEFAULT) -> dict[str, Any]:
    """Bounded pool: with all connections busy a caller waits up to TIMEOUT_S, then 503.

    (A plain ConnectionPool is unbounded; with max_connections it fails at once instead of waiting.)
    """
    return {**client_kwargs(client), "max_connections": MAX_POOL_SIZE, "timeout": TIMEOUT_S}


class PooledRedis:
    """One redis.BlockingConnectionPool per process, created on first use in that process."""

    def __init__(self, url: str = DEFAULT_REDIS_URL, client: str = DEFAULT, **options: Any) -> None:
        self.url = url
        kwargs = {**pool_kwargs(client), **options}  # an unknown client fails here, not in the first request
        self._client = PerProcess(
            lambda: redis.Redis(connection_pool=redis.BlockingConnectionPool.from_url(url, **kwargs))
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


def get_name_per_request(url: str, client: str = DEFAULT) -> str | None:
    """Open a new connection, GET the key and close the connection, all inside this call."""
    with unavailable_on_error():
        connection = redis.Redis.from_url(url, single_connection_client=True, **client_kwargs(client))
        try:
            return connection.get(REDIS_KEY)
        finally:
            connection.close()
