"""backends.seed against the session backends: data, indexes, idempotency, CLI."""

import os
import subprocess
import sys

import pymongo
import pytest
import redis

from backends import COLLECTION, DB_NAME, FORTUNE_COLLECTION, REDIS_KEY
from backends.local import REPO_ROOT
from backends.postgres import psql
from backends.seed import (
    DEFAULT_USERS,
    FORTUNES,
    INDEX_NAME,
    REDIS_VALUE,
    create_gin_index,
    ferretdb_table,
    gin_index_name,
    seed,
    seed_mongo,
    seed_redis,
    user_name,
)


@pytest.fixture
def users(backends):
    client = pymongo.MongoClient(backends.mongo_url, serverSelectionTimeoutMS=2000)
    yield client[DB_NAME][COLLECTION]
    client.close()


def test_constants() -> None:
    assert DEFAULT_USERS == 10_000
    assert REDIS_KEY == "name" and REDIS_VALUE == "reference-server"
    assert user_name(17) == "user-17"


def test_seeded_data(backends, users) -> None:
    docs = list(users.find({}, {"_id": 0}))
    assert sorted(d["id"] for d in docs) == list(range(1, DEFAULT_USERS + 1))
    assert all(d == {"id": d["id"], "name": user_name(d["id"])} for d in docs)
    index = {ix["name"]: ix for ix in users.list_indexes()}[INDEX_NAME]
    assert dict(index["key"]) == {"id": 1} and index["unique"] is True
    with pytest.raises(pymongo.errors.DuplicateKeyError):
        users.insert_one({"id": 1, "name": "again"})
    assert redis.Redis.from_url(backends.redis_url, decode_responses=True).get(REDIS_KEY) == REDIS_VALUE


def test_idempotent(backends) -> None:
    mongo, changed = seed(backends.mongo_url, backends.redis_url, DEFAULT_USERS)
    assert (mongo.inserted, mongo.updated, mongo.total, changed) == (0, 0, DEFAULT_USERS, False)


def test_fortunes_are_techempowers_twelve_rows_and_seeding_restores_them(backends) -> None:
    client = pymongo.MongoClient(backends.mongo_url, serverSelectionTimeoutMS=2000)
    fortunes = client[DB_NAME][FORTUNE_COLLECTION]
    try:
        rows = sorted((d["_id"], d["id"], d["message"]) for d in fortunes.find({}))
        assert rows == [(fid, fid, message) for fid, message in FORTUNES]
        assert dict(FORTUNES)[11].startswith("<script>") and dict(FORTUNES)[12] == "フレームワークのベンチマーク"
        fortunes.update_one({"_id": 3}, {"$set": {"message": "changed"}})
        fortunes.insert_one({"_id": 99, "id": 99, "message": "extra"})
        assert seed_mongo(backends.mongo_url, DEFAULT_USERS).fortunes_written == 2
        assert sorted((d["_id"], d["message"]) for d in fortunes.find({})) == sorted(FORTUNES)
        assert seed_mongo(backends.mongo_url, DEFAULT_USERS).fortunes_written == 0
    finally:
        client.close()


def test_repairs_more_names_than_one_ferretdb_update_batch_survives(backends, users) -> None:
    # More than 100 matched updates in one update command wedge FerretDB 1.24: seed batches them.
    users.update_many({"id": {"$lte": 150}}, {"$set": {"name": "wrong"}})
    users.delete_many({"id": {"$gt": DEFAULT_USERS - 5}})
    result = seed_mongo(backends.mongo_url, DEFAULT_USERS)
    assert (result.inserted, result.updated, result.total) == (5, 150, DEFAULT_USERS)
    assert users.find_one({"id": 150}, {"_id": 0}) == {"id": 150, "name": user_name(150)}


def test_lookups_by_id_use_the_gin_index(backends, users) -> None:
    """The statement FerretDB runs for find_one({"id": n}), as PostgreSQL saw it, is planned as a
    scan of the GIN index, not of the table."""
    index = gin_index_name(ferretdb_table(backends.postgres_url))
    assert users.find_one({"id": 42}, {"_id": 0}) == {"id": 42, "name": user_name(42)}
    ran = psql(
        backends.postgres_url,
        "SELECT DISTINCT query FROM pg_stat_activity WHERE query LIKE 'SELECT %@>%' AND pid <> pg_backend_pid()",
    ).splitlines()
    # `_jsonb->$1 @> $2` with $1 = 'id': only a custom plan (the cluster's plan_cache_mode) can use
    # the index on `_jsonb->'id'`; a generic plan would scan.
    assert ran and all("_jsonb->$1 @> $2" in query for query in ran), ran
    assert psql(backends.postgres_url, "SHOW plan_cache_mode") == "force_custom_plan"
    for query in ran:
        explain = f"PREPARE lookup(text, jsonb) AS {query}; EXPLAIN EXECUTE lookup('id', '42')"
        plan = psql(backends.postgres_url, explain)
        assert f"Bitmap Index Scan on {index}" in plan, plan
        assert "Seq Scan" not in plan, plan


def test_gin_index_is_made_once(backends) -> None:
    table = ferretdb_table(backends.postgres_url)
    assert create_gin_index(backends.postgres_url) == gin_index_name(table)
    count = psql(backends.postgres_url, f"SELECT count(*) FROM pg_indexes WHERE tablename = '{table}'")
    assert int(count) == 3  # _id and id (FerretDB's btrees), and ours
    mongo, _ = seed(backends.mongo_url, backends.redis_url, DEFAULT_USERS, backends.postgres_url)
    assert (mongo.inserted, mongo.updated) == (0, 0)
    assert psql(backends.postgres_url, f"SELECT count(*) FROM pg_indexes WHERE tablename = '{table}'") == count
    # No pending list that every lookup would read through.
    options = psql(backends.postgres_url, f"SELECT reloptions FROM pg_class WHERE relname = '{gin_index_name(table)}'")
    assert options == "{fastupdate=off}"


def test_redis_key_restored(backends) -> None:
    redis.Redis.from_url(backends.redis_url).delete(REDIS_KEY)
    assert seed_redis(backends.redis_url) is True
    assert seed_redis(backends.redis_url) is False


def test_cli_with_env_urls(backends) -> None:
    env = {**os.environ, "MONGO_URL": backends.mongo_url, "REDIS_URL": backends.redis_url}
    result = subprocess.run(
        [sys.executable, "-m", "backends.seed", "--users", str(DEFAULT_USERS)],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    mongo_line, redis_line = result.stdout.splitlines()
    assert mongo_line.startswith(f"mongo {backends.mongo_url}: test.user ids 1..{DEFAULT_USERS}: inserted 0, fixed 0")
    assert redis_line == f"redis {backends.redis_url}: name = 'reference-server' (unchanged)"


def test_cli_unreachable_mongo_fails_clearly(free_port) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "backends.seed", "--mongo-url", f"mongodb://127.0.0.1:{free_port}/test"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert "backends.seed: mongo at" in result.stderr


@pytest.mark.parametrize("only", ["mongo", "redis"])
def test_cli_only_seeds_one_backend_and_never_touches_the_other(backends, free_port, only) -> None:
    # The other backend's URL points at nothing: --only must not even connect to it (compose's
    # seed-redis runs where no Mongo exists).
    nowhere = {"mongo": f"mongodb://127.0.0.1:{free_port}/test", "redis": f"redis://127.0.0.1:{free_port}/0"}
    urls = {"mongo": backends.mongo_url, "redis": backends.redis_url}
    other = "redis" if only == "mongo" else "mongo"
    urls[other] = nowhere[other]
    result = subprocess.run(
        [sys.executable, "-m", "backends.seed", "--only", only, "--mongo-url", urls["mongo"], "--redis-url", urls["redis"]],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert [line.split()[0] for line in result.stdout.splitlines()] == [only]
