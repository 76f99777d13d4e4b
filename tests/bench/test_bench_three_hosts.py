"""The three-host layout on one machine: nothing assumes 127.0.0.1.

Linux routes all of 127.0.0.0/8 to lo, so each piece gets its own address: Redis (with a password)
on 127.0.0.2, the stack on 127.0.0.3 pointed at it by its URL, the locust master on 127.0.0.4 with
two local workers, and bench given only --target and --redis-url, as it would be on a third host.
The results must be right and say where everything was, without the password.
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time

import pytest
import redis

from bench import schema
from serverproc import ServerProcess, free_port

BACKENDS, SERVER, LOAD = "127.0.0.2", "127.0.0.3", "127.0.0.4"
PASSWORD = "s3cret-not-recorded"


@pytest.fixture
def redis_elsewhere(tmp_path):
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.fail("redis-server not found: apt-get install redis-server")
    port = free_port(BACKENDS)
    proc = subprocess.Popen([binary, "--bind", BACKENDS, "--port", str(port), "--requirepass", PASSWORD,
                             "--save", "", "--appendonly", "no", "--dir", str(tmp_path)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = redis.Redis(host=BACKENDS, port=port, password=PASSWORD, socket_timeout=2)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                client.set("name", "reference-server")  # what backends.seed writes
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise
                time.sleep(0.05)
        yield f"redis://:{PASSWORD}@{BACKENDS}:{port}/0", client
    finally:
        client.close()
        proc.terminate()
        proc.wait(10)


def test_backends_server_and_load_on_their_own_addresses(run_bench, tmp_path, redis_elsewhere):
    redis_url, client = redis_elsewhere
    server = ServerProcess("nethttp", ["--host", SERVER, "--redis-url", redis_url]).start()
    try:
        assert any(f"http://{SERVER}:{server.port}" in line for line in server.stdout_lines)  # its ready line
        commands_before = client.info("stats")["total_commands_processed"]
        target = f"http://{SERVER}:{server.port}"
        out = tmp_path / "out"
        proc = run_bench("--target", target, "--servers", "nethttp", "--ops", "hello,redis-pooled",
                         "--redis-url", redis_url, "--tool", "locust", "--load-workers", "2",
                         "--locust-master-bind", LOAD, "--connections", "8", "--duration", "2",
                         "--warmup", "0", "--no-probe", "--plain", "--out", str(out), timeout=120)
        assert proc.returncode == 0, proc.stderr[-3000:]
        served = client.info("stats")["total_commands_processed"] - commands_before
    finally:
        server.stop()
    for path in out.rglob("*"):  # results, reports, raw outputs, logs
        assert not path.is_file() or PASSWORD not in path.read_text(errors="replace"), path
    results = {r.operation: r for r in schema.read(out / "results.jsonl")}
    assert set(results) == {"hello", "redis-pooled"}
    for op, r in results.items():
        assert r.ok and r.requests > 0 and r.errors_total == 0 and r.non_2xx == 0, (op, r.failure)
        assert r.target == target and r.url.startswith(target + "/")
        assert r.load_workers == 2 and r.load_master.startswith(f"{LOAD}:")
        assert r.load_hosts == [socket.gethostname()]
    assert results["hello"].backends == {}
    assert results["redis-pooled"].backends == {"redis": f"redis://{BACKENDS}:{redis_url.rsplit(':', 1)[1]}"}
    assert served >= results["redis-pooled"].requests  # the stack's lookups went to 127.0.0.2


def test_a_remote_worker_joins_with_the_documented_line(run_bench, tmp_path):
    """The line printed for remote load hosts (`locust -f - --worker ...`) works: the worker fetches
    the locustfile and the route from the master; one local worker and this "remote" one share the load."""
    server = ServerProcess("nethttp", ["--host", SERVER]).start()
    port = free_port(LOAD)
    remote = subprocess.Popen([sys.executable, "-m", "locust", "-f", "-", "--worker", "--master-host", LOAD,
                               "--master-port", str(port)], cwd=tmp_path, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out = tmp_path / "out"
        proc = run_bench("--target", f"http://{SERVER}:{server.port}", "--ops", "json", "--tool", "locust",
                         "--load-workers", "1", "--locust-remote-workers", "1", "--locust-master-bind",
                         f"{LOAD}:{port}", "--connections", "4", "--duration", "2", "--warmup", "0",
                         "--no-probe", "--plain", "--out", str(out), timeout=120)
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert f"--master-host {LOAD} --master-port {port}" in proc.stderr  # the line for the load hosts
        remote.wait(20)  # a worker exits with its master
    finally:
        server.stop()
        if remote.poll() is None:
            os.killpg(remote.pid, signal.SIGKILL)
            remote.wait()
    [r] = schema.read(out / "results.jsonl")
    assert r.ok and r.requests > 0 and r.errors_total == 0 and r.non_2xx == 0, r.failure
    assert r.load_workers == 2 and r.load_master == f"{LOAD}:{port}"
