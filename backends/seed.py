"""Load the benchmark data: test.user {id, name} for ids 1..N with a unique index on id, test.fortune
(TechEmpower's twelve fortune rows, {_id, id, message}), and the Redis key "name". Idempotent;
`python -m backends.seed --help`.

Every engine must answer a lookup by `id` from an index. FerretDB on PostgreSQL pushes
`{"id": n}` down as `_jsonb->'id' @> $1`, which the btree behind the Mongo index cannot serve:
given the cluster's URL (--postgres-url), the seed adds a GIN expression index on
`(_jsonb->'id')` to the collection's table, before any lookup by id runs (a prepared statement
planned without it would keep scanning).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import pymongo
import redis
from pymongo import InsertOne, ReplaceOne, UpdateOne
from pymongo.errors import BulkWriteError, PyMongoError

from backends import (
    COLLECTION,
    DB_NAME,
    DEFAULT_MONGO_URL,
    DEFAULT_REDIS_URL,
    DEFAULT_USERS,
    FORTUNE_COLLECTION,
    REDIS_KEY,
    postgres,
)

REDIS_VALUE = "reference-server"
USER_NAME_FORMAT = "user-{}"
INDEX_NAME = "id_1"

# FerretDB 1.24 holds one pooled connection per matched update until the update command ends:
# past its pool size (SQLite 100, PostgreSQL 50) it deadlocks and every later query waits forever.
BATCH = 20
INSERT_BATCH = 1000
DUPLICATE_KEY = 11000


# TechEmpower's fortune table, as their MongoDB set-up loads it (FrameworkBenchmarks,
# toolset/databases/mongodb/create.js: collection `fortune`, documents {_id, id, message}): the
# <script> row and the Japanese row are the test's point (escaping, UTF-8).
FORTUNES: tuple[tuple[int, str], ...] = (
    (1, "fortune: No such file or directory"),
    (2, "A computer scientist is someone who fixes things that aren't broken."),
    (3, "After enough decimal places, nobody gives a damn."),
    (4, "A bad random number generator: 1, 1, 1, 1, 1, 4.33e+67, 1, 1, 1"),
    (5, "A computer program does what you tell it to do, not what you want it to do."),
    (6, "Emacs is a nice operating system, but I prefer UNIX. — Tom Christaensen"),
    (7, "Any program that runs right is obsolete."),
    (8, "A list is only as strong as its weakest link. — Donald Knuth"),
    (9, "Feature: A bug with seniority."),
    (10, "Computers make very fast, very accurate mistakes."),
    (11, '<script>alert("This should not be displayed in a browser alert box.");</script>'),
    (12, "フレームワークのベンチマーク"),
)


def user_name(user_id: int) -> str:
    """The seeded name of user `user_id`: what /mongo/.../{id} must answer."""
    return USER_NAME_FORMAT.format(user_id)


@dataclass(frozen=True)
class MongoSeed:
    inserted: int
    updated: int
    total: int
    fortunes_written: int = 0  # fortune rows written or removed (seed_fortunes)


def _write(collection: pymongo.collection.Collection, ops: list, batch: int) -> None:
    for start in range(0, len(ops), batch):
        try:
            collection.bulk_write(ops[start : start + batch], ordered=False)
        except BulkWriteError as exc:
            # Another seeder inserted the same ids first: what we wanted is there.
            errors = exc.details.get("writeErrors", [])
            if exc.details.get("writeConcernErrors") or any(e["code"] != DUPLICATE_KEY for e in errors):
                raise


def ferretdb_table(postgres_url: str, database: str = DB_NAME, collection: str = COLLECTION) -> str:
    """The PostgreSQL table (in schema `database`) where FerretDB keeps `collection`."""
    table = postgres.psql(
        postgres_url,
        f"SELECT _jsonb->>'table' FROM {_quote(database)}._ferretdb_database_metadata "
        f"WHERE _jsonb->>'_id' = {_literal(collection)}",
    )
    if not table:
        raise postgres.PostgresError(f"FerretDB has no table for {database}.{collection} in {postgres_url}")
    return table


def gin_index_name(table: str) -> str:
    return f"{table}_id_gin"


def create_gin_index(postgres_url: str, database: str = DB_NAME, collection: str = COLLECTION) -> str:
    """CREATE INDEX IF NOT EXISTS ... USING gin ((_jsonb->'id')) on the collection's table; its name.

    Without GIN's fast update: rows inserted after the index was made would wait in its pending
    list, which every lookup reads through (10,000 users: 26 pages, 0.35 ms a lookup instead of
    0.02). Entries already pending are merged into the index, and the table analyzed.
    """
    table = ferretdb_table(postgres_url, database, collection)
    name = gin_index_name(table)
    index, qualified = f"{_quote(database)}.{_quote(name)}", f"{_quote(database)}.{_quote(table)}"
    postgres.psql(
        postgres_url,
        f"CREATE INDEX IF NOT EXISTS {_quote(name)} ON {qualified} USING gin ((_jsonb->'id')) "
        f"WITH (fastupdate = off); ALTER INDEX {index} SET (fastupdate = off); "
        f"SELECT gin_clean_pending_list({_literal(index)}::regclass); ANALYZE {qualified}",
    )
    return name


def _quote(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def seed_mongo(url: str = DEFAULT_MONGO_URL, users: int = DEFAULT_USERS, postgres_url: str | None = None) -> MongoSeed:
    """Insert the missing users, fix wrong names and create the unique index on `id` (and, given
    the URL of FerretDB's PostgreSQL, the GIN index that serves FerretDB's lookups); then the fortune
    rows (seed_fortunes), so that whatever seeds Mongo (this module, the tests, the benchmark's and the
    anatomy's backends, compose's seed service) seeds /fortunes' data too."""
    client = pymongo.MongoClient(url, serverSelectionTimeoutMS=5000, connectTimeoutMS=5000, socketTimeoutMS=60000)
    try:
        collection = client.get_default_database(DB_NAME)[COLLECTION]
        # Creates the collection (its table) too, so the GIN index can come before any lookup.
        collection.create_index([("id", pymongo.ASCENDING)], unique=True, name=INDEX_NAME)
        if postgres_url:
            create_gin_index(postgres_url, collection.database.name, collection.name)
        # One scan and only the writes needed: on FerretDB's SQLite engine every lookup by `id`
        # scans, so single upserts would cost a collection scan each.
        existing = {doc["id"]: doc.get("name") for doc in collection.find({}, {"_id": 0, "id": 1, "name": 1})}
        inserts = [InsertOne({"id": i, "name": user_name(i)}) for i in range(1, users + 1) if i not in existing]
        updates = [
            UpdateOne({"id": i}, {"$set": {"name": user_name(i)}})
            for i in range(1, users + 1)
            if i in existing and existing[i] != user_name(i)
        ]
        _write(collection, inserts, INSERT_BATCH)
        _write(collection, updates, BATCH)
        if postgres_url and (inserts or updates):
            create_gin_index(postgres_url, collection.database.name, collection.name)  # statistics of the data
        return MongoSeed(len(inserts), len(updates), collection.count_documents({}), seed_fortunes(url))
    finally:
        client.close()


def seed_fortunes(url: str = DEFAULT_MONGO_URL) -> int:
    """Make the fortune collection exactly FORTUNES: each row written by its _id (an upsert), any other
    row removed; the number of documents written or removed."""
    client = pymongo.MongoClient(url, serverSelectionTimeoutMS=5000, connectTimeoutMS=5000, socketTimeoutMS=60000)
    try:
        collection = client.get_default_database(DB_NAME)[FORTUNE_COLLECTION]
        existing = {doc["_id"]: doc for doc in collection.find({})}
        wanted = {fid: {"_id": fid, "id": fid, "message": message} for fid, message in FORTUNES}
        writes = [ReplaceOne({"_id": fid}, doc, upsert=True) for fid, doc in wanted.items() if existing.get(fid) != doc]
        extra = [key for key in existing if key not in wanted]
        if writes:
            collection.bulk_write(writes, ordered=False)
        if extra:
            collection.delete_many({"_id": {"$in": extra}})
        return len(writes) + len(extra)
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
    mongo_url: str = DEFAULT_MONGO_URL,
    redis_url: str = DEFAULT_REDIS_URL,
    users: int = DEFAULT_USERS,
    postgres_url: str | None = None,
) -> tuple[MongoSeed, bool]:
    return seed_mongo(mongo_url, users, postgres_url), seed_redis(redis_url)


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
        "--postgres-url",
        default=os.environ.get("POSTGRES_URL"),
        help="FerretDB's PostgreSQL (`python -m backends.local status` shows it): also create the GIN "
        "index that serves lookups by id there; env POSTGRES_URL (default: the one behind the "
        "FerretDB that `python -m backends.local up` started at --mongo-url, if any)",
    )
    parser.add_argument(
        "--only",
        choices=("mongo", "redis"),
        help="seed this backend only (compose seeds each backend on its own, so a Redis stack never waits for Mongo)",
    )
    args = parser.parse_args(argv)
    if args.users < 0:
        parser.error("--users must be >= 0")
    if args.postgres_url is None:
        from backends.local import postgres_url_behind

        args.postgres_url = postgres_url_behind(args.mongo_url)
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse_args(argv)
    if args.only != "redis":
        try:
            result = seed_mongo(args.mongo_url, args.users, args.postgres_url)
            gin = f" and a GIN index on (_jsonb->'id') in {args.postgres_url}" if args.postgres_url else ""
            print(
                f"mongo {args.mongo_url}: {DB_NAME}.{COLLECTION} ids 1..{args.users}: inserted {result.inserted}, "
                f"fixed {result.updated}, {result.total} documents; unique index {INDEX_NAME}{gin}; "
                f"{DB_NAME}.{FORTUNE_COLLECTION}: TechEmpower's {len(FORTUNES)} rows ({result.fortunes_written} "
                f"written or removed)"
            )
        except (PyMongoError, postgres.PostgresError) as exc:
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
