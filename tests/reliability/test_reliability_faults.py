"""Backend faults under a light constant load: redis-server, FerretDB or the PostgreSQL under a
running FerretDB SIGKILLed, then restarted.

Per stack (dev-only ones too: the route contract is every entry's) and backend: client threads (one per request the stack serves at once, at
most two, 20 ms apart) cycle over `/` and the backend's pooled and per-request routes, each request
on a new connection with a 2.5 s client timeout. After a baseline the backend is SIGKILLed, stays
down for an outage, and is started again on the same port (redis re-seeded: it keeps nothing on
disk). Asserted, from every request's start, end and status:
- no request takes longer than 2 s (the contract's bound; our client gives up at 2.5 s), none
  fails at the socket level, and `/` answers 200 throughout;
- backend routes answer 200 or 503 only (a 404 only in the moment between the redis restart and
  its re-seed), and 503 is seen while the backend is down;
- 200 comes back within 5 s of the backend accepting connections again (recovery), and every
  request started after that is 200;
- no server process dies (the same processes serve before and after).
Recorded per stack: the 503 window (first 503 sent to last 503 received) and the recovery time.
"""
from __future__ import annotations

import http.client
import os
import signal
import threading
import time
from dataclasses import dataclass

import pytest

from backends.seed import seed_redis
from reltools import (ALL, CLIENT_TIMEOUT_S, CONTRACT_S, RECOVERY_S, alive, expected_processes, get,
                      is_single_threaded, seconds, serving_workers, wait_for_workers, warm)
from servers.core import catalog

pytestmark = pytest.mark.reliability

ROUTES = {"redis": ("/redis/pooled", "/redis/per-request"),
          "mongo": ("/mongo/pooled/{id}", "/mongo/per-request/{id}"),
          # FerretDB stays up and answers InternalError while its storage is gone: 503 too.
          "postgres": ("/mongo/pooled/{id}", "/mongo/per-request/{id}")}
USER_IDS = 100  # tests/conftest.py seeds users 1..200


@dataclass
class Sample:
    path: str
    started: float
    ended: float
    status: int | None
    error: str = ""

    @property
    def took(self) -> float:
        return self.ended - self.started


class LightLoad:
    """`threads` clients, each cycling over `paths` with a pause between requests, until stop()."""

    def __init__(self, server, paths: list[str], threads: int, pause: float = 0.02, limit: float = 120.0):
        self.server, self.paths, self.pause, self.limit = server, paths, pause, limit
        self.samples: list[Sample] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._run, args=(i,), daemon=True) for i in range(threads)]

    def _run(self, index: int) -> None:
        ends = time.monotonic() + self.limit
        i = index
        while not self._stop.is_set() and time.monotonic() < ends:
            template = self.paths[i % len(self.paths)]
            path = template.format(id=1 + i % USER_IDS)
            started = time.monotonic()
            try:
                status, _ = get(self.server, path, timeout=CLIENT_TIMEOUT_S)
                sample = Sample(template, started, time.monotonic(), status)
            except (OSError, http.client.HTTPException) as exc:
                sample = Sample(template, started, time.monotonic(), None, f"{type(exc).__name__}: {exc}")
            with self._lock:
                self.samples.append(sample)
            i += 1
            self._stop.wait(self.pause)

    def start(self) -> "LightLoad":
        for thread in self._threads:
            thread.start()
        return self

    def stop(self) -> list[Sample]:
        self._stop.set()
        for thread in self._threads:
            thread.join(CLIENT_TIMEOUT_S + 5)
        with self._lock:
            return list(self.samples)

    def succeeded_since(self, path: str, since: float) -> bool:
        with self._lock:
            return any(s.path == path and s.status == 200 and s.ended >= since for s in self.samples)


def kill(backends, service: str) -> float:
    """SIGKILL the backend's process; returns once it is gone."""
    pid = backends.pid(service)
    assert pid, f"{service} is not running"
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while backends.is_running(service):
        assert time.monotonic() < deadline, f"{service} (pid {pid}) still running after SIGKILL"
        time.sleep(0.02)
    return time.monotonic()


def restore(backends, service: str) -> tuple[float, float]:
    """Start the backend again; (when it accepts connections, when it holds the seed data)."""
    backends.up([service])
    back = time.monotonic()
    if service == "redis":
        seed_redis(backends.redis_url)  # the local redis-server keeps nothing on disk
    return back, time.monotonic()


def _params():
    return [pytest.param(name, service, id=f"{name}-{service}")
            for name in ALL for service in ROUTES if service in catalog.get(name).families]


@pytest.mark.timeout(180)
@pytest.mark.parametrize("name,service", _params())
def test_backend_killed_and_restarted_under_load(name, service, private_backends, shared_server, results):
    entry = catalog.get(name)
    backends = private_backends.ensure("mongo" if service == "postgres" else service)  # its LocalBackends
    server = shared_server(name, on=private_backends)  # the redis and then the mongo outage on one server
    routes = list(ROUTES[service])
    warm(server, ["/", *(r.format(id=1) for r in routes)])
    wait_for_workers(server, expected_processes(server), RECOVERY_S)
    workers = serving_workers(server)
    threads = 1 if is_single_threaded(entry) else 2
    baseline, outage, tail = seconds(0.05, 0.3, 1.0), seconds(0.1, 1.2, 2.5), seconds(0.05, 0.3, 1.0)

    load = LightLoad(server, ["/", *routes], threads).start()
    back = seeded = None
    try:
        time.sleep(baseline)
        killed = kill(backends, service)
        time.sleep(outage)
        back, seeded = restore(backends, service)
        deadline = back + RECOVERY_S + CLIENT_TIMEOUT_S
        while time.monotonic() < deadline and not all(load.succeeded_since(r, back) for r in routes):
            time.sleep(0.05)
        time.sleep(tail)
    finally:
        samples = load.stop()
        if not backends.is_running(service):
            restore(backends, service)

    errors = [s for s in samples if s.error]
    slow = [s for s in samples if s.took > CONTRACT_S]
    hello_bad = [s for s in samples if s.path == "/" and s.status != 200]
    backend = [s for s in samples if s.path != "/" and not s.error]
    unexpected = [s for s in backend if s.status not in (200, 503)
                  and not (s.status == 404 and service == "redis" and s.started <= seeded)]
    unavailable = [s for s in backend if s.status == 503]
    late_503 = [s for s in unavailable if s.started > back + RECOVERY_S]
    recovery = {}
    for route in routes:
        ok = [s.ended for s in backend if s.path == route and s.status == 200 and s.ended >= back]
        recovery[route] = (min(ok) - back) if ok else None
    window = (max(s.ended for s in unavailable) - min(s.started for s in unavailable)) if unavailable else None
    worst = None if any(v is None for v in recovery.values()) else max(recovery.values())
    results.record(name, **{f"fault_{service}": {
        "window_s": window, "recovery_s": worst, "recovery_by_route_s": recovery, "requests": len(samples),
        "503": len(unavailable), "errors": len(errors), "slowest_s": max((s.took for s in samples), default=0),
        "outage_s": round(back - killed, 2)}})

    def show(items):
        return [(s.path, s.status, s.error, round(s.took, 2), round(s.started - killed, 2)) for s in items[:10]]

    assert alive(server), f"{name} died during the {service} outage; stderr:\n{server.stderr_text()}"
    assert serving_workers(server) == workers, f"a worker died during the {service} outage"
    assert not errors, f"requests failed at the socket level (or hung past {CLIENT_TIMEOUT_S} s): {show(errors)}"
    assert not slow, f"answers slower than {CONTRACT_S} s: {show(slow)}"
    assert not hello_bad, f"GET / failed during the {service} outage: {show(hello_bad)}"
    assert not unexpected, f"backend routes answered other than 200/503: {show(unexpected)}"
    assert unavailable, f"no 503 while {service} was down for {back - killed:.1f} s"
    assert all(v is not None and v <= RECOVERY_S for v in recovery.values()), (
        f"200 not back within {RECOVERY_S} s of {service} returning: {recovery}")
    assert not late_503, f"503 more than {RECOVERY_S} s after {service} returned: {show(late_503)}"
