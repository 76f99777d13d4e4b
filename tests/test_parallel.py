"""What the parallel run relies on: ports that cannot race, `alone` tests that really run alone, and
backends started once, on demand, for every worker."""
from __future__ import annotations

import multiprocessing
import os
import socket
import time

import pytest

import alone
from ondemand import OnDemandBackends
from processes import ports


def _take_ports(span: str, count: int, queue) -> None:
    os.environ[ports.RANGE_ENV] = span
    queue.put([ports.free_port() for _ in range(count)])


def test_processes_sharing_a_range_never_get_the_same_port(tmp_path, monkeypatch):
    span = "15000-15199"  # a range of this test's own (the workers' are 10000-13999, the controller's 19000-)
    queue = multiprocessing.get_context("fork").Queue()
    procs = [multiprocessing.get_context("fork").Process(target=_take_ports, args=(span, 40, queue)) for _ in range(4)]
    for proc in procs:
        proc.start()
    got = [port for _ in procs for port in queue.get(timeout=30)]
    for proc in procs:
        proc.join(10)
    assert len(got) == len(set(got)) == 160
    assert all(15000 <= port <= 15199 for port in got)


def test_a_port_held_by_someone_is_skipped(monkeypatch):
    monkeypatch.setenv(ports.RANGE_ENV, "15200-15209")
    first = ports.free_port()
    with socket.socket() as holder:  # someone else takes the next one before we ask
        nxt = 15200 + (first - 15200 + 1) % 10
        holder.bind(("127.0.0.1", nxt))
        holder.listen()
        assert ports.free_port() not in (first, nxt)


def test_a_full_range_says_so(monkeypatch):
    monkeypatch.setenv(ports.RANGE_ENV, "15210-15210")
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 15210))
        with pytest.raises(ports.NoFreePort, match="15210-15210"):
            ports.free_port()


def _hold(folder: str, is_alone: bool, seconds: float, log, started) -> None:
    os.environ[alone.DIR_ENV] = folder
    turns = alone.Turns()
    turns.take(is_alone)
    log.put(("in", is_alone, time.monotonic()))
    started.set()
    time.sleep(seconds)
    log.put(("out", is_alone, time.monotonic()))
    turns.give_back()


def test_an_alone_test_waits_for_the_running_ones_and_holds_back_new_ones(tmp_path):
    ctx = multiprocessing.get_context("fork")
    log = ctx.Queue()
    first, second, third = ctx.Event(), ctx.Event(), ctx.Event()
    running = ctx.Process(target=_hold, args=(str(tmp_path), False, 0.6, log, first))
    running.start()
    first.wait(10)
    solo = ctx.Process(target=_hold, args=(str(tmp_path), True, 0.6, log, second))
    solo.start()
    time.sleep(0.2)  # the alone one now waits at the gate for the running one
    late = ctx.Process(target=_hold, args=(str(tmp_path), False, 0.1, log, third))
    late.start()
    for proc in (running, solo, late):
        proc.join(20)
    events = sorted((log.get(timeout=5) for _ in range(6)), key=lambda e: e[2])
    order = [(kind, is_alone) for kind, is_alone, _ in events]
    # the running test finishes before the alone one starts, and the late one starts after it ends
    assert order == [("in", False), ("out", False), ("in", True), ("out", True), ("in", False), ("out", False)]


def test_without_workers_nothing_is_waited_for(monkeypatch):
    monkeypatch.delenv(alone.DIR_ENV, raising=False)
    turns = alone.Turns()
    turns.take(True)
    assert turns.mode is None and turns.waited_s == 0.0


@pytest.mark.timeout(180)
def test_backends_start_on_first_need_once_for_every_worker(tmp_path):
    first = OnDemandBackends(tmp_path / "backends")
    other_worker = OnDemandBackends(tmp_path / "backends")  # the same run directory: the same ports
    assert (first.redis_url, first.mongo_url) == (other_worker.redis_url, other_worker.mongo_url)
    try:
        assert not first.is_running("redis") and not first.is_running("mongo")  # nothing yet
        first.ensure("redis")
        pid = first.pid("redis")
        assert pid and not first.is_running("mongo")  # only what was asked for
        other_worker.ensure("redis")
        assert other_worker.pid("redis") == pid  # the other worker uses the one already running
        import redis

        assert redis.Redis.from_url(first.redis_url).get("name") is not None  # seeded
    finally:
        first.stop_all()
    assert not first.is_running("redis")


def test_an_entry_whose_extra_is_missing_is_skipped_saying_which(monkeypatch):
    import extras

    monkeypatch.setattr(extras, "_installed", lambda distribution: distribution not in ("gevent", "sanic"))
    assert "gevent" in extras.missing("flask_gevent") and "pip install -e '.[gevent]'" in extras.missing("flask_gevent")
    assert "pip install -e '.[sanic]'" in extras.missing("sanic_glide")
    assert extras.missing("flask_gunicorn") is None
    assert extras.missing("nethttp") is None  # Go: not this Python's
