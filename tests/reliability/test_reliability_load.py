"""The reliability suite (`pytest -m reliability tests/reliability`): load held, memory flat,
crashed workers replaced, on every production stack of the catalog.

Knobs, environment variables (CI runs with a short budget, e.g. RELIABILITY_SECONDS=3
RELIABILITY_SCALE=0.1; the defaults are what the issue asks for):
  RELIABILITY_SECONDS  default 20. How long wrk holds 256 connections on each route; it also
                       sizes the fault runs (baseline before the kill, outage, tail: a tenth to a
                       twentieth of it, clamped) and the slowloris run (a quarter, 1..5 s).
  RELIABILITY_SCALE    default 1.0. Multiplies request counts: the RSS checkpoints (5k and 50k
                       requests), the hostile barrage (~10k requests per stack) and the slow
                       clients of the dev-only thread check.
  RELIABILITY_OUT      default results/reliability (git-ignored): summary.json and summary.md,
                       the per-stack table that is also printed at the end of the run.

This module, per production entry (tag 'production'):
- wrk, one thread pinned to the last core, holds 256 connections for RELIABILITY_SECONDS on `/`
  and on `/redis/pooled`: zero socket errors (connect, read, write, or a 2 s timeout: the
  contract's bound) and zero non-2xx. Stacks catalogued keepalive=False (gunicorn sync workers)
  get the same load with connection-per-request instead: every request sends `Connection: close`
  and wrk opens a new connection for the next one.
- RSS of the whole process tree after 45k more requests (hey, 64 connections, half on each route) is
  no more than 20% above the RSS once the working set was reached: after the first 5k, and again after
  each further 5k while a round grew it more than 5% (the first round: over the RSS after warming;
  at most 3 rounds; scaled, but never below 5k and 10k in all).
- A SIGKILLed worker is replaced where the server promises it (gunicorn's arbiter, Sanic's manager,
  the pre-fork supervisor of flask_gevent/falcon_gevent): `GET /` answers 200 throughout and
  the worker count is back within 5 s.
"""
from __future__ import annotations

import os
import signal
import time

import pytest

from reltools import (CONTRACT_S, HANG_S, PRODUCTION, RECOVERY_S, RESPAWNING, SECONDS, SERVER_PRODUCTION,
                      MachineShare, alive, expected_processes, get, hey, scaled, serving_workers, tree_rss,
                      wait_for_workers, warm, wrk, wrk_summary)
from servers.core import catalog

pytestmark = pytest.mark.reliability

CONNECTIONS = 256
ROUTES = {"hello": "/", "redis": "/redis/pooled"}
RSS_GROWTH_LIMIT = 0.20
SETTLED_GROWTH = 0.05  # a round of the first checkpoint's requests that grew RSS less than this: the working set
SETTLE_ROUNDS = 3


def _load_params():
    # `/` held by 256 connections is the server's (its connection handling): once per server and interpreter
    # (reltools.SERVER_PRODUCTION); `/redis/pooled` (a pool filled by 256 at once: the app's client on the
    # server's workers) on every stack that serves it, a client variant's included.
    held = [(name, "hello") for name in SERVER_PRODUCTION]
    held += [(name, "redis") for name in PRODUCTION if "redis" in catalog.get(name).families]
    return [pytest.param(name, key, id=f"{name}-{key}", marks=pytest.mark.alone) for name, key in held]


def _busiest_route(entry: catalog.Entry) -> str:
    """/redis/pooled (a pool to fill), or /json for an entry without the redis routes."""
    return ROUTES["redis"] if "redis" in entry.families else "/json"


@pytest.mark.timeout(SECONDS + 120)
@pytest.mark.parametrize("name,route_key", _load_params())
def test_holds_256_connections(name, route_key, shared_server, results):
    """`alone`: its 2 s bound is a latency, which a machine busy with other tests would move."""
    entry = catalog.get(name)
    route = ROUTES[route_key]
    server = shared_server(name)  # both routes of a stack on one server
    warm(server, ["/", route])
    wait_for_workers(server, expected_processes(server), RECOVERY_S)
    workers = serving_workers(server)
    if not getattr(server, "rel_warmed", False):  # once per server: workers loaded, pools filled
        wrk(server.url + _busiest_route(entry), CONNECTIONS, 1, keepalive=entry.keepalive)
        server.rel_warmed = True

    machine = MachineShare(server)
    result = wrk(server.url + route, CONNECTIONS, SECONDS, keepalive=entry.keepalive)
    busy = machine.over()
    results.record(name, **{f"load_{route_key}": {**wrk_summary(result), "keepalive": entry.keepalive, **busy}})
    assert alive(server), f"{name} died under load; stderr:\n{server.stderr_text()}"
    assert serving_workers(server) == workers, "a worker died (or was replaced) under load"
    assert result.requests > 0
    assert (result.errors_total, result.non_2xx) == (0, 0), (
        f"{name} {route} with {CONNECTIONS} {'keep-alive connections' if entry.keepalive else 'clients, connection per request'}"
        f" for {SECONDS:g} s: {result.errors_total} socket errors ({result.errors}: a timeout is a request unanswered "
        f"within the contract's {CONTRACT_S:g} s), {result.non_2xx} non-2xx; {result.requests} answered, latency "
        f"p99 {result.latency_ms.get('p99')} ms, max {result.latency_ms.get('max')} ms; meanwhile the machine's other "
        f"processes used {busy['foreign_cpu_pct']}% of its CPU time and steal was {busy['steal_pct']}%; "
        f"{'; '.join(result.error_samples)}")


@pytest.mark.timeout(600)
@pytest.mark.parametrize("name", PRODUCTION)
def test_rss_flat_from_5k_to_50k_requests(name, running, results):
    entry = catalog.get(name)
    server = running(name)  # the stack's shared server: its growth is measured from its own first checkpoint
    paths = ("/", _busiest_route(entry))
    warm(server, paths)
    wait_for_workers(server, expected_processes(server), RECOVERY_S)
    # The first checkpoint is never scaled below 5k requests: before that a Go runtime's heap is
    # still growing to its GC target (seen: +28% from 500 to 5k requests on gin, then flat).
    small = scaled(5_000, minimum=5_000)
    large = scaled(50_000, minimum=2 * small)

    # hey's spare dials are silent connections: on a stack with that caveat a few requests wait past
    # the client timeout behind them (test_silent_connections_... shows it); counted, not failed here.
    silent_stalls_expected = any(pattern.startswith("test_silent_connections_do_not_stall_other_clients[")
                                 for key in entry.caveats for pattern, _ in catalog.CAVEAT_EVIDENCE.get(key, ()))
    stalled = 0

    def drive(count: int) -> None:
        nonlocal stalled
        for path in paths:
            # Memory, not latency, is what this test checks, beside other tests: only a hang fails it.
            got = hey(server.url + path, count // 2, keepalive=entry.keepalive, timeout=HANG_S)
            errors = got.errors_total
            codes = dict(got.status_codes)
            if silent_stalls_expected:  # hey's "Client.Timeout exceeded": loadtools counts it a timeout
                stalled += got.errors["timeout"]
                errors -= got.errors["timeout"]
                # and a spare dial the server timed out: cheroot answers 408 to a connection silent for 10 s, which
                # hey reads as the answer to the request it then sends there
                stalled += codes.pop("408", 0)
            assert not errors and set(codes) == {"200"}, (path, got.status_codes, got.error_samples)

    def rss_after(count: int) -> int:
        drive(count)
        time.sleep(0.5)
        return tree_rss(server)

    # The first checkpoint is the working set reached: another `small` requests while a round grew RSS by more
    # than SETTLED_GROWTH, at most SETTLE_ROUNDS in all. daphne reaps finished requests once a second
    # (server.py application_checker), so its memory holds the last second's, more when its loop runs late:
    # seen in CI beside other tests, 92 MiB after 5k requests and 113 MiB after 10k; here, hey alone, 95 MiB after 5k,
    # 101-107 MiB from 50k to 250k: a working set that settles, not a leak.
    # A leak does not settle: its growth goes on past the checkpoint and fails below.
    warmed = tree_rss(server)
    rounds = [rss_after(small)]
    while len(rounds) < SETTLE_ROUNDS and rounds[-1] > ([warmed] + rounds)[-2] * (1 + SETTLED_GROWTH):
        rounds.append(rss_after(small))
    settled, before = rounds[-1], small * len(rounds)
    after_large = rss_after(large - small)
    growth = after_large / settled - 1
    results.record(name, rss={"after_small_mib": settled / 2**20, "after_large_mib": after_large / 2**20,
                              "growth_pct": 100 * growth, "small": before, "large": before + large - small,
                              "settle_rounds_mib": [round(r / 2**20, 1) for r in rounds], "client_timeouts": stalled})
    assert alive(server)
    assert growth <= RSS_GROWTH_LIMIT, (f"{name}: RSS {settled / 2**20:.1f} MiB once settled (after {before} "
                                        f"requests; rounds of {small}: {[round(r / 2**20, 1) for r in rounds]} MiB), "
                                        f"{after_large / 2**20:.1f} MiB after {large - small} more "
                                        f"(+{100 * growth:.1f}%)")


@pytest.mark.parametrize("name", [n for n in RESPAWNING if n in SERVER_PRODUCTION])
def test_killed_worker_is_replaced(name, start_server, results):
    server = start_server(name)
    warm(server)
    expected = expected_processes(server)  # one where the workers are threads: killing it kills them all
    wait_for_workers(server, expected, RECOVERY_S)
    before = serving_workers(server)
    assert len(before) == expected, f"{name}: {len(before)} workers hold the socket, {expected} expected"
    victim = min(before)
    os.kill(victim, signal.SIGKILL)
    killed = time.monotonic()
    statuses = []
    while True:
        if not alive(server):
            results.record(name, respawn_s=f"exited {server.proc.returncode}")
            pytest.fail(f"{name}: the server exited ({server.proc.returncode}) when worker {victim} was killed; "
                        f"stderr:\n{server.stderr_text()}")
        statuses.append(get(server, "/")[0])
        now = serving_workers(server)
        if victim not in now and len(now) >= expected:
            break
        if time.monotonic() - killed > RECOVERY_S:
            results.record(name, respawn_s=f"not within {RECOVERY_S:g} s")
            pytest.fail(f"{name}: {len(now)} of {expected} workers {RECOVERY_S} s after SIGKILL of worker {victim} "
                        f"(the server does not replace crashed workers); stderr:\n{server.stderr_text()}")
        time.sleep(0.05)
    respawn = time.monotonic() - killed
    time.sleep(0.5)  # the new worker has started (not necessarily loaded its app yet)
    statuses += [get(server, "/")[0] for _ in range(20)]
    results.record(name, respawn_s=respawn)
    assert alive(server)
    assert set(statuses) == {200}, f"answers while a worker was replaced: {statuses}"
