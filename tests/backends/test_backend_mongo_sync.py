"""backends.mongo_sync (pymongo, and the pieces flask-pymongo uses) against a real FerretDB."""

import json
import os
import threading

import pytest
from flask import Flask
from flask_pymongo import PyMongo

from backends import COLLECTION
from backends.ids import MAX_USER_ID
from backends.mongo_sync import (
    PooledMongo,
    client_kwargs,
    find_user_in,
    find_user_per_request,
    user_from_doc,
)
from backends.seed import DEFAULT_USERS, user_name

PRESENT = [1, 2, DEFAULT_USERS // 2, DEFAULT_USERS]
MISSING = [0, DEFAULT_USERS + 1, MAX_USER_ID, -1, MAX_USER_ID + 1]


@pytest.fixture
def pooled(backends):
    client = PooledMongo(backends.mongo_url)
    yield client
    client.close()


def test_pooled_answers(pooled) -> None:
    for user_id in PRESENT:
        assert pooled.find_user(user_id) == {"id": user_id, "name": user_name(user_id)}


def test_pooled_missing_is_none(pooled) -> None:
    for user_id in MISSING:
        assert pooled.find_user(user_id) is None


def test_per_request_answers_and_missing(backends) -> None:
    assert find_user_per_request(backends.mongo_url, 7) == {"id": 7, "name": user_name(7)}
    assert find_user_per_request(backends.mongo_url, DEFAULT_USERS + 1) is None
    assert find_user_per_request(backends.mongo_url, MAX_USER_ID + 1) is None


def test_answer_is_plain_json(pooled) -> None:
    user = pooled.find_user(3)
    assert json.loads(json.dumps(user)) == user
    assert type(user["id"]) is int


def test_flask_pymongo_with_shared_kwargs(backends) -> None:
    app = Flask(__name__)
    mongo = PyMongo(app, backends.mongo_url, **client_kwargs())
    try:
        assert find_user_in(mongo.db[COLLECTION], 9) == {"id": 9, "name": user_name(9)}
        assert find_user_in(mongo.db[COLLECTION], DEFAULT_USERS + 1) is None
        assert user_from_doc(mongo.db[COLLECTION].find_one({"id": 9})) == {"id": 9, "name": user_name(9)}
    finally:
        mongo.cx.close()


def test_no_client_before_first_use(backends, pool_events) -> None:
    before = pool_events.snapshot()
    pooled = PooledMongo(backends.mongo_url)
    assert pool_events.snapshot() == before
    pooled.find_user(1)
    assert pool_events.snapshot()["PoolCreatedEvent"] == before["PoolCreatedEvent"] + 1
    pooled.close()


def test_per_request_opens_and_closes_each_call(backends, pool_events, mongo_connections, wait_until) -> None:
    baseline = mongo_connections()
    before = pool_events.snapshot()
    for _ in range(5):
        assert find_user_per_request(backends.mongo_url, 5) == {"id": 5, "name": user_name(5)}
    after = pool_events.snapshot()
    assert after["PoolCreatedEvent"] - before["PoolCreatedEvent"] == 5
    assert after["PoolClosedEvent"] - before["PoolClosedEvent"] == 5
    created = after["ConnectionCreatedEvent"] - before["ConnectionCreatedEvent"]
    assert created >= 5
    assert after["ConnectionClosedEvent"] - before["ConnectionClosedEvent"] == created
    assert wait_until(lambda: mongo_connections() == baseline)


def test_pooled_reuse_is_bounded(pooled, pool_events, mongo_connections) -> None:
    pooled.find_user(1)
    before = pool_events.snapshot()
    baseline = mongo_connections()
    for user_id in range(1, 51):
        assert pooled.find_user(user_id)["id"] == user_id
    assert pool_events.snapshot()["ConnectionCreatedEvent"] == before["ConnectionCreatedEvent"]
    assert mongo_connections() == baseline

    answers = []

    def work() -> None:
        for user_id in range(1, 11):
            answers.append(pooled.find_user(user_id))

    workers = [threading.Thread(target=work) for _ in range(8)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert len(answers) == 80 and all(answers)
    assert pool_events.snapshot()["ConnectionCreatedEvent"] - before["ConnectionCreatedEvent"] <= 8


def test_fork_gets_its_own_client(pooled) -> None:
    """pymongo is not fork-safe: the child must not reuse the parent's client."""
    assert pooled.find_user(1)
    parent_client = pooled.client
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: report and leave without running pytest's teardown
        try:
            ok = pooled.find_user(2) == {"id": 2, "name": user_name(2)} and pooled.client is not parent_client
            os.write(write, b"ok" if ok else b"wrong")
        except BaseException as exc:
            os.write(write, repr(exc).encode()[:200])
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        answer = pipe.read()
    os.waitpid(pid, 0)
    assert answer == b"ok"
    assert pooled.client is parent_client
    assert pooled.find_user(3) == {"id": 3, "name": user_name(3)}
