"""Load the benchmark data: test.user {id, name} for ids 1..N with a unique index on id, and the
Redis key "name". Idempotent; `python -m backends.seed --help`.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import pymongo
import redis
from pymongo import InsertOne, UpdateOne
from pymongo.errors import BulkWriteError, PyMongoError

from backends import COLLECTION, DB_NAME, DEFAULT_MONGO_URL, DEFAULT_REDIS_URL, REDIS_KEY

DEFAULT_USERS = 1000
REDIS_VALUE = "reference-server"
USER_NAME_FORMAT = "user-{}"
INDEX_NAME = "id_1"

# FerretDB 1.24 (SQLite) holds one pooled SQLite connection per matched update until the update
# command ends: past 100 (its pool size) it deadlocks and every later query waits forever.
BATCH = 50
DUPLICATE_KEY = 11000


def user_name(user_id: int) -> str:
    """The seeded name of user `user_id`: what /mongo/.../{id} must answer."""
    return USER_NAME_FORMAT.format(user_id)


USER_NAME = user_name


@dataclass(frozen=True)
class MongoSeed:
    inserted: int
    updated: int
    total: int


def _write(collection: pymongo.collection.Collection, ops: list) -> None:
    for start in range(0, len(ops), BATCH):
        try:
            collection.bulk_write(ops[start : start + BATCH], ordered=False)
        except BulkWriteError as exc:
            # Another seeder inserted the same ids first: what we wanted is there.
            errors = exc.details.get("writeErrors", [])
            if exc.details.get("writeConcernErrors") or any(e["code"] != DUPLICATE_KEY for e in errors):
                raise


def seed_mongo(url: str = DEFAULT_MONGO_URL, users: int = DEFAULT_USERS) -> MongoSeed:
    """Insert the missing users, fix wrong names and create the unique index on `id`."""
    client = pymongo.MongoClient(url, serverSelectionTimeoutMS=5000, connectTimeoutMS=5000, socketTimeoutMS=60000)
    try:
        collection = client.get_default_database(DB_NAME)[COLLECTION]
        collection.create_index([("id", pymongo.ASCENDING)], unique=True, name=INDEX_NAME)
        # One scan and only the writes needed: FerretDB has no index-backed lookups on `id`,
        # so 1000 single upserts would cost a collection scan each.
        existing = {doc["id"]: doc.get("name") for doc in collection.find({}, {"_id": 0, "id": 1, "name": 1})}
        inserts = [InsertOne({"id": i, "name": user_name(i)}) for i in range(1, users + 1) if i not in existing]
        updates = [
            UpdateOne({"id": i}, {"$set": {"name": user_name(i)}})
            for i in range(1, users + 1)
            if i in existing and existing[i] != user_name(i)
        ]
        _write(collection, inserts + updates)
        return MongoSeed(len(inserts), len(updates), collection.count_documents({}))
    finally:
        client.close()


def seed_redis(url: str = DEFAULT_REDIS_URL) -> bool:
    """SET name reference-server; True if the value changed."""
    client = redis.Redis.from_url(url, socket_connect_timeout=5, socket_timeout=5, decode_responses=True)
    try:
        return client.set(REDIS_KEY, REDIS_VALUE, get=True) != REDIS_VALUE
    finally:
        client.close()


def seed(
    mongo_url: str = DEFAULT_MONGO_URL, redis_url: str = DEFAULT_REDIS_URL, users: int = DEFAULT_USERS
) -> tuple[MongoSeed, bool]:
    return seed_mongo(mongo_url, users), seed_redis(redis_url)


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m backends.seed", description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=DEFAULT_USERS, help="ids 1..N (default: %(default)s)")
    parser.add_argument(
        "--mongo-url",
        default=os.environ.get("MONGO_URL", DEFAULT_MONGO_URL),
        help="env MONGO_URL (default: %(default)s)",
    )
    parser.add_argument(
        "--redis-url",
        default=os.environ.get("REDIS_URL", DEFAULT_REDIS_URL),
        help="env REDIS_URL (default: %(default)s)",
    )
    parser.add_argument(
        "--only",
        choices=("mongo", "redis"),
        help="seed this backend only (compose seeds each backend on its own, so a Redis stack never waits for Mongo)",
    )
    args = parser.parse_args(argv)
    if args.users < 0:
        parser.error("--users must be >= 0")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse_args(argv)
    if args.only != "redis":
        try:
            result = seed_mongo(args.mongo_url, args.users)
            print(
                f"mongo {args.mongo_url}: {DB_NAME}.{COLLECTION} ids 1..{args.users}: inserted {result.inserted}, "
                f"fixed {result.updated}, {result.total} documents; unique index {INDEX_NAME}"
            )
        except PyMongoError as exc:
            print(f"backends.seed: mongo at {args.mongo_url}: {exc}", file=sys.stderr)
            return 1
    if args.only == "mongo":
        return 0
    try:
        changed = seed_redis(args.redis_url)
        print(f"redis {args.redis_url}: {REDIS_KEY} = {REDIS_VALUE!r} ({'set' if changed else 'unchanged'})")
    except redis.RedisError as exc:
        print(f"backends.seed: redis at {args.redis_url}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
