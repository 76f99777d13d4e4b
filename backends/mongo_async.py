"""Asyncio Mongo access with pymongo's AsyncMongoClient (default) or motor, pooled or per request.

Same API as mongo_sync with async methods. The pooled client is created on first use inside the
running event loop of the worker, and again if the loop changes (both drivers bind to one loop).
"""

from __future__ import annotations

import inspect
from typing import Any, Literal

from backends import COLLECTION, DB_NAME, DEFAULT_MONGO_URL, FORTUNE_COLLECTION
from backends.mongo_sync import (
    FORTUNE_PROJECTION,
    PROJECTION,
    Fortune,
    User,
    client_kwargs,
    fortune_from_doc,
    unavailable_on_error,
    user_filter,
    user_from_doc,
)
from backends.pools import PerLoop

Driver = Literal["pymongo", "motor"]
DRIVERS: tuple[Driver, ...] = ("pymongo", "motor")


def new_client(url: str = DEFAULT_MONGO_URL, driver: Driver = "pymongo", **options: Any) -> Any:
    """A pymongo.AsyncMongoClient or motor AsyncIOMotorClient; call it inside the running loop."""
    kwargs = {**client_kwargs(), **options}
    if driver == "pymongo":
        from pymongo import AsyncMongoClient

        return AsyncMongoClient(url, **kwargs)
    if driver == "motor":
        # Imported only when chosen: motor is deprecated (since 2025-05) in favour of AsyncMongoClient.
        from motor.motor_asyncio import AsyncIOMotorClient

        return AsyncIOMotorClient(url, **kwargs)
    raise ValueError(f"unknown driver {driver!r}: choose from {', '.join(DRIVERS)}")


async def close_client(client: Any) -> None:
    """AsyncMongoClient.close() is a coroutine, motor's close() is not."""
    result = client.close()
    if inspect.isawaitable(result):
        await result


def users_collection(client: Any) -> Any:
    return client.get_default_database(DB_NAME)[COLLECTION]


async def find_user_in(collection: Any, user_id: int) -> User | None:
    """One find_one on an async (pymongo or motor) collection, with the shared filter and errors."""
    query = user_filter(user_id)
    if query is None:
        return None
    with unavailable_on_error():
        return user_from_doc(await collection.find_one(query, PROJECTION))


def fortunes_collection(client: Any) -> Any:
    return client.get_default_database(DB_NAME)[FORTUNE_COLLECTION]


async def find_fortunes_in(collection: Any) -> list[Fortune]:
    """Every row of the fortune collection in one query (pymongo's and motor's cursors alike), no cache."""
    with unavailable_on_error():
        docs = await collection.find({}, FORTUNE_PROJECTION).to_list(None)
    return [fortune_from_doc(doc) for doc in docs]


class PooledAsyncMongo:
    """One async client (and pool) per event loop, created on first use inside that loop."""

    def __init__(self, url: str = DEFAULT_MONGO_URL, driver: Driver = "pymongo", **options: Any) -> None:
        if driver not in DRIVERS:
            raise ValueError(f"unknown driver {driver!r}: choose from {', '.join(DRIVERS)}")
        self.url = url
        self.driver = driver
        self._client = PerLoop(lambda: new_client(url, driver, **options))

    @property
    def client(self) -> Any:
        """The running loop's client; only valid inside a coroutine."""
        return self._client.get()

    async def find_user(self, user_id: int) -> User | None:
        return await find_user_in(users_collection(self.client), user_id)

    async def fortunes(self) -> list[Fortune]:
        return await find_fortunes_in(fortunes_collection(self.client))

    async def close(self) -> None:
        client = self._client.pop()
        if client is not None:
            await close_client(client)


async def find_user_per_request(url: str, user_id: int, driver: Driver = "pymongo") -> User | None:
    """Connect a new async client, do one find_one and close it, all inside this call."""
    if user_filter(user_id) is None:
        return None
    client = new_client(url, driver)
    try:
        return await find_user_in(users_collection(client), user_id)
    finally:
        await close_client(client)
