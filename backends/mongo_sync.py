"""Synchronous Mongo access with pymongo: a pooled client per process, or a client per request.

The pieces are public so that flask's pooled route can use flask-pymongo's client instead:
`PyMongo(app, uri, **client_kwargs())`, then `find_user_in(mongo.db[COLLECTION], user_id)`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import pymongo
from pymongo.collection import Collection
from pymongo.errors import ConnectionFailure, OperationFailure, PyMongoError

from backends import COLLECTION, DB_NAME, DEFAULT_MONGO_URL, FORTUNE_COLLECTION
from backends.errors import BackendUnavailable
from backends.ids import MAX_USER_ID
from backends.pools import MAX_POOL_SIZE, PerProcess

# A dead or hung server must mean 503 well within the 2 s contract.
TIMEOUT_MS = 1000

PROJECTION = {"_id": 0, "id": 1, "name": 1}
FORTUNE_PROJECTION = {"_id": 0, "id": 1, "message": 1}

User = dict[str, Any]
Fortune = dict[str, Any]  # {"id": int, "message": str}


def client_kwargs() -> dict[str, Any]:
    """MongoClient / AsyncMongoClient / motor / flask_pymongo.PyMongo keyword arguments."""
    return {
        # timeoutMS bounds a whole operation, server selection and retry included: a pooled
        # connection broken by a server restart is retried on a new one, within the same second.
        "timeoutMS": TIMEOUT_MS,
        "serverSelectionTimeoutMS": TIMEOUT_MS,
        "connectTimeoutMS": TIMEOUT_MS,
        "socketTimeoutMS": TIMEOUT_MS,
        "waitQueueTimeoutMS": TIMEOUT_MS,
        "maxPoolSize": MAX_POOL_SIZE,
    }


def user_filter(user_id: int) -> dict[str, int] | None:
    """The find filter for a user, or None when no document can match (BSON ints are 64-bit)."""
    if not 0 <= user_id <= MAX_USER_ID:
        return None
    return {"id": user_id}


def user_from_doc(doc: Mapping[str, Any] | None) -> User | None:
    """Turn a pymongo / flask-pymongo / motor result into the route's `{"id", "name"}` answer."""
    if doc is None:
        return None
    return {"id": int(doc["id"]), "name": str(doc["name"])}


# Server error codes that mean the server cannot reach its own storage or peers, or is going
# away: InternalError is what FerretDB answers while its PostgreSQL is down or restarting.
UNAVAILABLE_CODES = frozenset({
    1,  # InternalError
    6,  # HostUnreachable
    7,  # HostNotFound
    89,  # NetworkTimeout
    91,  # ShutdownInProgress
    11600,  # InterruptedAtShutdown
})


def is_unavailable(exc: PyMongoError) -> bool:
    """True for the errors that mean "backend down or too slow" (503), not a bug (500)."""
    if isinstance(exc, OperationFailure) and exc.code in UNAVAILABLE_CODES:
        return True
    return isinstance(exc, ConnectionFailure) or exc.timeout


@contextmanager
def unavailable_on_error() -> Iterator[None]:
    """Re-raise connection failures, timeouts and server-selection errors as BackendUnavailable."""
    try:
        yield
    except PyMongoError as exc:
        if is_unavailable(exc):
            raise BackendUnavailable(f"mongo: {exc}") from exc
        raise


def users_collection(client: pymongo.MongoClient) -> Collection:
    """db `test` (or the URL's database), collection `user`."""
    return client.get_default_database(DB_NAME)[COLLECTION]


def find_user_in(collection: Collection, user_id: int) -> User | None:
    """One find_one on an existing collection object, with the shared filter, projection and errors."""
    query = user_filter(user_id)
    if query is None:
        return None
    with unavailable_on_error():
        return user_from_doc(collection.find_one(query, PROJECTION))


def fortunes_collection(client: pymongo.MongoClient) -> Collection:
    """db `test` (or the URL's database), collection `fortune`."""
    return client.get_default_database(DB_NAME)[FORTUNE_COLLECTION]


def fortune_from_doc(doc: Mapping[str, Any]) -> Fortune:
    return {"id": int(doc["id"]), "message": str(doc["message"])}


def find_fortunes_in(collection: Collection) -> list[Fortune]:
    """Every row of the fortune collection, in one query (one find, its cursor read to the end): no
    cache, so a row added to the collection shows in the next request."""
    with unavailable_on_error():
        return [fortune_from_doc(doc) for doc in collection.find({}, FORTUNE_PROJECTION)]


def new_client(url: str = DEFAULT_MONGO_URL, **options: Any) -> pymongo.MongoClient:
    return pymongo.MongoClient(url, **{**client_kwargs(), **options})


class PooledMongo:
    """One MongoClient (and its connection pool) per process, created on first use in that process."""

    def __init__(self, url: str = DEFAULT_MONGO_URL, **options: Any) -> None:
        self.url = url
        self._client = PerProcess(lambda: new_client(url, **options))

    @property
    def client(self) -> pymongo.MongoClient:
        return self._client.get()

    def find_user(self, user_id: int) -> User | None:
        return find_user_in(users_collection(self.client), user_id)

    def fortunes(self) -> list[Fortune]:
        return find_fortunes_in(fortunes_collection(self.client))

    def close(self) -> None:
        client = self._client.pop()
        if client is not None:
            client.close()


def find_user_per_request(url: str, user_id: int) -> User | None:
    """Connect a new MongoClient, do one find_one and close it, all inside this call."""
    if user_filter(user_id) is None:
        return None
    client = new_client(url)
    try:
        return find_user_in(users_collection(client), user_id)
    finally:
        client.close()
