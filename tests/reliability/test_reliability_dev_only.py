"""Dev-only stacks: their catalogued limitation is asserted, not skipped.

Each dev-only entry's dev_only_reason (servers/core/catalog.py) names its limitations; every phrase
below has a test that shows it on a real process, parametrized over the entries whose reason says
it. test_every_reason_is_checked fails for a dev-only entry whose reason no test covers, and a
failing test here means the catalog claims a limitation the stack does not have (fix the reason).
- "single-threaded" / "one request at a time": one client that sends half a request head stalls
  a second client's `GET /` (no answer within 2 s); once the first request is complete, the
  second is served.
- "HTTP/1.0": an HTTP/1.1 request gets an HTTP/1.0 answer, and the connection is closed after it.
- "listen backlog of 5": the kernel reports a backlog of 5 for the listening socket (`ss`), and,
  where one slow client stalls the only thread, no more than 5 + 1 further connections complete
  their handshake (the rest time out: SYNs dropped by a full accept queue).
- "unbounded threads": N slow clients get N threads (no pool, no cap; N = 64 x SCALE, >= 32).
- "not hardened": a client that sent half a request head and went silent is still connected
  seconds later (no header or read timeout).
- "forks per connection": N slow clients get N child processes.
- "past N" (werkzeug's forking server, N = workers): with N slow clients holding every child, the
  next `GET /` gets no answer within 2 s; once they go, it is served.
- "no chunked request bodies" (wsgiref, http.server): asserted by tests/test_reflection.py, in the default
  suite: the parser owner's reflection of a chunked POST does not show the decoded body.
"""
from __future__ import annotations

import asyncio
import socket
import time

import psutil
import pytest

from reltools import CONTRACT_S, DEV_ONLY, SlowClients, listen_backlog, parse_responses, probe_hello, scaled, warm
from servers.core import catalog

pytestmark = pytest.mark.reliability

CHECKS = {
    "single-threaded": "stall", "one request at a time": "stall", "HTTP/1.0": "http10",
    "listen backlog of 5": "backlog", "unbounded threads": "threads", "not hardened": "no_timeout",
    "forks per connection": "forks", "past N": "past_n",
}


def entries_saying(*phrases: str) -> list[str]:
    return [name for name in DEV_ONLY if any(p in catalog.get(name).dev_only_reason for p in phrases)]


def note(results, name: str, text: str) -> None:
    row = results.rows.get(name, {})
    results.record(name, limitation="; ".join(filter(None, [row.get("limitation", ""), text])))


def test_every_reason_is_checked():
    unchecked = [f"{name}: {catalog.get(name).dev_only_reason!r}" for name in DEV_ONLY
                 if not any(phrase in catalog.get(name).dev_only_reason for phrase in CHECKS)]
    assert DEV_ONLY and not unchecked, "dev-only reasons no test here asserts:\n" + "\n".join(unchecked)


def _probe(port: int, timeout: float) -> str | None:
    return asyncio.run(probe_hello(port, timeout=timeout))


@pytest.mark.parametrize("name", entries_saying("single-threaded", "one request at a time"))
def test_one_slow_client_stalls_the_next(name, start_server, results):
    server = start_server(name)
    warm(server)
    with SlowClients(server.port, 1, interval=0.2, limit=15) as slow:
        time.sleep(0.3)  # the only thread is now reading the slow client's head
        stalled = _probe(server.port, timeout=CONTRACT_S)
        slow.finish()  # the head is complete: the server answers it and moves on
        after = _probe(server.port, timeout=5.0)
    note(results, name, f"slow client stalls GET / ({stalled})")
    assert stalled == "timeout", f"{name}: GET / was answered ({stalled}) while another client held the thread"
    assert after is None, f"{name}: GET / not served after the slow client finished: {after}"


@pytest.mark.parametrize("name", entries_saying("HTTP/1.0"))
def test_answers_http_1_0_and_closes(name, start_server, results):
    server = start_server(name)
    warm(server)
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        data = b""
        while True:
            block = sock.recv(65536)
            if not block:
                break  # closed by the server
            data += block
    responses = parse_responses(data).responses
    note(results, name, "HTTP/1.0, closes")
    assert len(responses) == 1 and responses[0].status == 200, data[:300]
    assert responses[0].version == b"HTTP/1.0", f"{name} answered {responses[0].version!r} to HTTP/1.1"


@pytest.mark.parametrize("name", entries_saying("listen backlog of 5"))
def test_listen_backlog_of_5(name, start_server, results):
    server = start_server(name)
    warm(server)
    backlog = listen_backlog(server.port)
    if backlog is None:
        pytest.skip("ss (iproute2) is not installed")
    assert backlog == 5, f"{name}: listen backlog {backlog}"
    text = "backlog 5"
    if "single-threaded" in catalog.get(name).dev_only_reason:
        attempts = 20
        with SlowClients(server.port, 1, interval=0.2, limit=15):
            time.sleep(0.3)
            completed = asyncio.run(_handshakes(server.port, attempts, timeout=1.0))
        text += f" ({completed} of {attempts} connects completed while stalled)"
        assert completed <= 5 + 1 + 1, f"{completed} of {attempts} handshakes completed behind a backlog of 5"
        assert completed < attempts
    note(results, name, text)


async def _handshakes(port: int, attempts: int, timeout: float) -> int:
    async def one() -> bool:
        try:
            _, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), timeout)
        except (OSError, asyncio.TimeoutError):
            return False
        writer.transport.abort()
        return True

    return sum(await asyncio.gather(*(one() for _ in range(attempts))))


def _threads(server) -> int:
    return server.tree()[0].num_threads()


@pytest.mark.parametrize("name", entries_saying("unbounded threads"))
def test_a_thread_per_connection_without_bound(name, start_server, results):
    server = start_server(name)
    warm(server)
    count = scaled(64, minimum=32)
    before = _threads(server)
    with SlowClients(server.port, count, interval=0.5, limit=20):
        deadline = time.monotonic() + 5
        while _threads(server) < 1 + count and time.monotonic() < deadline:
            time.sleep(0.05)
        during = _threads(server)
    note(results, name, f"{count} slow clients: {before}→{during} threads")
    # One thread per connection on top of the main one (`before` may still count warm()'s).
    assert during >= 1 + count, f"{name}: {count} slow clients, threads {before} -> {during}"


@pytest.mark.parametrize("name", entries_saying("not hardened"))
def test_silent_half_request_is_never_timed_out(name, start_server, results):
    server = start_server(name)
    warm(server)
    silent = 3.0
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Half: ")
        time.sleep(silent)
        sock.setblocking(False)
        try:
            still_open = sock.recv(1, socket.MSG_PEEK) != b""
        except BlockingIOError:
            still_open = True  # nothing to read and not closed
        except OSError:
            still_open = False
    note(results, name, f"half request held {silent:g} s")
    assert still_open, f"{name} closed a silent half request after {silent} s: it has a header timeout"


def _children(server) -> int:
    """Live child processes (a finished child stays a zombie until the server reaps it)."""
    live = 0
    for proc in server.tree()[1:]:
        try:
            live += proc.status() != psutil.STATUS_ZOMBIE
        except psutil.Error:
            pass
    return live


@pytest.mark.parametrize("name", entries_saying("forks per connection"))
def test_forks_a_process_per_connection(name, start_server, results):
    server = start_server(name)
    warm(server)
    workers = catalog.get(name).default_workers()
    settle = time.monotonic() + 3
    while _children(server) and time.monotonic() < settle:  # warm()'s child exits
        time.sleep(0.05)
    before = _children(server)
    with SlowClients(server.port, workers, interval=0.2, limit=15):
        deadline = time.monotonic() + 5
        while _children(server) < before + workers and time.monotonic() < deadline:
            time.sleep(0.05)
        during = _children(server)
    note(results, name, f"{workers} slow clients: {before}→{during} child processes")
    assert during >= before + workers, f"{name}: {workers} slow clients, children {before} -> {during}"


@pytest.mark.parametrize("name", entries_saying("past N"))
def test_no_answer_past_n_connections(name, start_server, results):
    server = start_server(name)
    warm(server)
    workers = catalog.get(name).default_workers()
    with SlowClients(server.port, workers, interval=0.2, limit=15) as slow:
        time.sleep(0.5)
        past = _probe(server.port, timeout=CONTRACT_S)
        slow.close()
        after = _probe(server.port, timeout=5.0)
    how = "refused" if past and past.startswith("connect") else "stalls (accepted, unanswered)"
    note(results, name, f"past N={workers}: {how}")
    results.record(name, past_n=past)
    assert past is not None, f"{name} answered GET / with all {workers} children busy"
    assert after is None, f"{name}: GET / not served once the slow clients left: {after}"
