"""The backend routes' logic, written once: every app maps its routes onto these.

Each method returns the plain value the route answers with (a dict; for fortunes the list of rows),
or None when the user or key is missing; it raises backends.errors.BackendUnavailable when the backend is down or too
slow. The HTTP side (parsing the id with backends.ids.parse_user_id, 404 for None, 503 for
BackendUnavailable, serializing the JSON) belongs to each app, done its framework's way.

SyncOperations serve the WSGI and stdlib apps (pymongo, redis-py), AsyncOperations the asyncio
apps (AsyncMongoClient or motor, redis.asyncio); the Redis client is the entry's
(backends.redis_clients: redis-py with hiredis unless the entry names another). Pooled clients
are made lazily by the backends modules, in the worker process that uses them; per-request ones
inside the call.
"""
from __future__ import annotations

from typing import Callable

from backends import mongo_async, mongo_sync, redis_clients
from servers.core.options import Options


def _name(value: str | None) -> dict | None:
    return None if value is None else {"name": value}


class SyncOperations:
    """find_user_pooled and find_fortunes may be given by an app that owns its pool (Flask through
    flask-pymongo)."""

    def __init__(self, options: Options, find_user_pooled: Callable[[int], dict | None] | None = None,
                 find_fortunes: Callable[[], list[dict]] | None = None):
        self._mongo_url = options.mongo_url
        self._redis_url = options.redis_url
        pooled = mongo_sync.PooledMongo(options.mongo_url)  # makes no client until first used
        self._find_user_pooled = find_user_pooled or pooled.find_user
        self._find_fortunes = find_fortunes or pooled.fortunes
        self._redis_client = options.redis_client
        self._redis_access = redis_clients.sync_access(options.redis_client)
        self._redis = self._redis_access.PooledRedis(options.redis_url, options.redis_client)

    def mongo_pooled(self, user_id: int) -> dict | None:
        return self._find_user_pooled(user_id)

    def mongo_per_request(self, user_id: int) -> dict | None:
        return mongo_sync.find_user_per_request(self._mongo_url, user_id)

    def fortunes(self) -> list[dict]:
        """The fortune rows ({"id", "message"}), one query on the pooled client; the app adds its row,
        sorts and renders."""
        return self._find_fortunes()

    def redis_pooled(self) -> dict | None:
        return _name(self._redis.get_name())

    def redis_per_request(self) -> dict | None:
        return _name(self._redis_access.get_name_per_request(self._redis_url, self._redis_client))


class AsyncOperations:
    def __init__(self, options: Options):
        driver = "motor" if options.mongo_driver == "motor" else "pymongo"
        self._mongo_url, self._redis_url, self._driver = options.mongo_url, options.redis_url, driver
        self._mongo = mongo_async.PooledAsyncMongo(options.mongo_url, driver=driver)
        self._redis_client = options.redis_client
        self._redis_access = redis_clients.async_access(options.redis_client)
        self._redis = self._redis_access.PooledAsyncRedis(options.redis_url, options.redis_client)

    async def mongo_pooled(self, user_id: int) -> dict | None:
        return await self._mongo.find_user(user_id)

    async def mongo_per_request(self, user_id: int) -> dict | None:
        return await mongo_async.find_user_per_request(self._mongo_url, user_id, driver=self._driver)

    async def fortunes(self) -> list[dict]:
        return await self._mongo.fortunes()

    async def redis_pooled(self) -> dict | None:
        return _name(await self._redis.get_name())

    async def redis_per_request(self) -> dict | None:
        return _name(await self._redis_access.get_name_per_request(self._redis_url, self._redis_client))
