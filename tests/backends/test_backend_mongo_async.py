"""backends.mongo_async with pymongo's AsyncMongoClient and with motor, against a real FerretDB."""

import asyncio

import pytest

from backends.ids import MAX_USER_ID
from backends.mongo_async import DRIVERS, PooledAsyncMongo, close_client, find_user_per_request
from backends.seed import DEFAULT_USERS, user_name

drivers = pytest.mark.parametrize("driver", DRIVERS)


@drivers
def test_pooled_answers_and_missing(backends, driver) -> None:
    async def main() -> None:
        pooled = PooledAsyncMongo(backends.mongo_url, driver)
        try:
            for user_id in (1, DEFAULT_USERS // 2, DEFAULT_USERS):
                assert await pooled.find_user(user_id) == {"id": user_id, "name": user_name(user_id)}
            for user_id in (0, DEFAULT_USERS + 1, MAX_USER_ID, -1, MAX_USER_ID + 1):
                assert await pooled.find_user(user_id) is None
        finally:
            await pooled.close()

    asyncio.run(main())


@drivers
def test_per_request_answers_and_missing(backends, driver) -> None:
    async def main() -> None:
        assert await find_user_per_request(backends.mongo_url, 11, driver) == {"id": 11, "name": user_name(11)}
        assert await find_user_per_request(backends.mongo_url, DEFAULT_USERS + 1, driver) is None

    asyncio.run(main())


@drivers
def test_per_request_opens_and_closes_each_call(backends, driver, pool_events, mongo_connections, wait_until) -> None:
    baseline = mongo_connections()
    before = pool_events.snapshot()

    async def main() -> None:
        for _ in range(3):
            assert await find_user_per_request(backends.mongo_url, 4, driver) == {"id": 4, "name": user_name(4)}

    asyncio.run(main())
    after = pool_events.snapshot()
    assert after["PoolCreatedEvent"] - before["PoolCreatedEvent"] == 3
    assert after["PoolClosedEvent"] - before["PoolClosedEvent"] == 3
    created = after["ConnectionCreatedEvent"] - before["ConnectionCreatedEvent"]
    assert created >= 3
    assert after["ConnectionClosedEvent"] - before["ConnectionClosedEvent"] == created
    assert wait_until(lambda: mongo_connections() == baseline)


@drivers
def test_pooled_reuse_is_bounded(backends, driver, pool_events) -> None:
    async def main() -> None:
        pooled = PooledAsyncMongo(backends.mongo_url, driver)
        try:
            assert await pooled.find_user(1)
            before = pool_events.snapshot()["ConnectionCreatedEvent"]
            for user_id in range(1, 31):
                assert (await pooled.find_user(user_id))["id"] == user_id
            assert pool_events.snapshot()["ConnectionCreatedEvent"] == before
            answers = await asyncio.gather(*(pooled.find_user(i) for i in range(1, 11)))
            assert all(answers)
            assert pool_events.snapshot()["ConnectionCreatedEvent"] - before <= 10
        finally:
            await pooled.close()

    asyncio.run(main())


@drivers
def test_client_is_made_inside_the_loop_and_again_in_a_new_one(backends, driver) -> None:
    pooled = PooledAsyncMongo(backends.mongo_url, driver)
    clients = []

    async def use() -> None:
        assert await pooled.find_user(2) == {"id": 2, "name": user_name(2)}
        clients.append(pooled.client)
        assert pooled.client is clients[-1]

    loops = [asyncio.new_event_loop() for _ in range(2)]
    try:
        for loop in loops:
            loop.run_until_complete(use())
        assert clients[0] is not clients[1]
    finally:
        # Each client can only be closed in its own loop.
        for loop, client in zip(loops, clients, strict=True):
            loop.run_until_complete(close_client(client))
            loop.close()


def test_unknown_driver() -> None:
    with pytest.raises(ValueError, match="unknown driver"):
        PooledAsyncMongo("mongodb://127.0.0.1:1/test", "aiomongo")  # type: ignore[arg-type]
