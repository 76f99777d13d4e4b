"""backends.redis_sync against a real redis-server."""

import threading
import time

import pytest

from backends import REDIS_KEY
from backends.redis_sync import PooledRedis, get_name_per_request
from backends.seed import REDIS_VALUE, seed_redis


def test_pooled_answers(backends) -> None:
    pooled = PooledRedis(backends.redis_url)
    try:
        assert pooled.get_name() == REDIS_VALUE
    finally:
        pooled.close()


def test_per_request_answers(backends) -> None:
    assert get_name_per_request(backends.redis_url) == REDIS_VALUE


def test_missing_key_is_none(backends, redis_admin) -> None:
    pooled = PooledRedis(backends.redis_url)
    redis_admin.delete(REDIS_KEY)
    try:
        assert pooled.get_name() is None
        assert get_name_per_request(backends.redis_url) is None
    finally:
        seed_redis(backends.redis_url)
        pooled.close()


def test_no_connection_before_first_use(backends, redis_connections) -> None:
    received, _ = redis_connections()
    pooled = PooledRedis(backends.redis_url)
    assert redis_connections()[0] == received
    pooled.get_name()
    assert redis_connections()[0] == received + 1
    pooled.close()


def test_per_request_opens_and_closes_a_connection_each_call(backends, redis_connections, wait_until) -> None:
    received, connected = redis_connections()
    for _ in range(5):
        assert get_name_per_request(backends.redis_url) == REDIS_VALUE
    assert redis_connections()[0] == received + 5
    assert wait_until(lambda: redis_connections()[1] == connected)


def test_pooled_reuses_one_connection(backends, redis_connections) -> None:
    pooled = PooledRedis(backends.redis_url)
    received, connected = redis_connections()
    for _ in range(50):
        assert pooled.get_name() == REDIS_VALUE
    assert redis_connections() == (received + 1, connected + 1)
    pooled.close()


@pytest.mark.parametrize("threads", [8])
def test_pooled_is_bounded_by_concurrency(backends, redis_connections, threads: int) -> None:
    pooled = PooledRedis(backends.redis_url)
    received, _ = redis_connections()
    answers: list[str | None] = []

    def work() -> None:
        for _ in range(25):
            answers.append(pooled.get_name())

    workers = [threading.Thread(target=work) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert answers == [REDIS_VALUE] * (threads * 25)
    assert 1 <= redis_connections()[0] - received <= threads
    pooled.close()


def test_exhausted_pool_waits_then_is_unavailable(backends, contract_s) -> None:
    """All connections busy: wait up to the timeout for one, then BackendUnavailable (503), not a hang."""
    from backends.errors import BackendUnavailable

    # One connection, and a socket timeout long enough for the BLPOP that holds it.
    pooled = PooledRedis(backends.redis_url, max_connections=1, socket_timeout=5)
    holder = threading.Thread(target=lambda: pooled.client.blpop(["no-such-list"], timeout=2))
    try:
        assert pooled.get_name() == REDIS_VALUE
        holder.start()
        time.sleep(0.2)
        started = time.monotonic()
        with pytest.raises(BackendUnavailable, match="No connection available"):
            pooled.get_name()
        assert 0.9 < time.monotonic() - started < contract_s
        holder.join()
        assert pooled.get_name() == REDIS_VALUE
    finally:
        pooled.close()
