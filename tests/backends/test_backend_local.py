"""backends.local: the CLI and the LocalBackends API (the session fixture already proves `up`)."""

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from backends.local import REPO_ROOT, BackendError, LocalBackends


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "backends.local", *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def backend_args(backends: LocalBackends) -> list[str]:
    return [
        "--state-dir", str(backends.state_dir),
        "--redis-port", str(backends.redis_port),
        "--mongo-port", str(backends.mongo_port),
    ]  # fmt: skip


def test_help() -> None:
    result = cli("--help")
    assert result.returncode == 0
    for word in ("up", "down", "status", "--state-dir", "--redis-port", "--mongo-port"):
        assert word in result.stdout


def test_urls(backends) -> None:
    assert backends.redis_url == f"redis://127.0.0.1:{backends.redis_port}/0"
    assert backends.mongo_url == f"mongodb://127.0.0.1:{backends.mongo_port}/test"


def test_status_and_idempotent_up_from_the_cli(backends) -> None:
    status = cli("status", *backend_args(backends))
    assert status.returncode == 0, status.stderr
    lines = status.stdout.splitlines()
    assert len(lines) == 2
    for line, name, port in zip(lines, ("redis", "mongo"), (backends.redis_port, backends.mongo_port), strict=True):
        assert line.split()[:3] == [name, "running", f"127.0.0.1:{port}"]
        assert f"pid {backends.pid(name)}" in line and "log " in line

    up = cli("up", "mongo", *backend_args(backends))
    assert up.returncode == 0, up.stderr
    assert up.stdout.split()[:3] == ["mongo", "already", "running"]


def test_idempotent_up_from_the_api(backends) -> None:
    pids = {name: backends.pid(name) for name in ("redis", "mongo")}
    results = backends.up()
    assert [started for _, started in results] == [False, False]
    assert {st.name: st.pid for st, _ in results} == pids


def test_status_of_an_empty_state_dir(tmp_path: Path) -> None:
    result = cli("status", "--state-dir", str(tmp_path), "--redis-port", "1", "--mongo-port", "2")
    assert result.returncode == 1
    assert [line.split()[:2] for line in result.stdout.splitlines()] == [["redis", "stopped"], ["mongo", "stopped"]]
    down = cli("down", "--state-dir", str(tmp_path))
    assert down.returncode == 0
    assert "was not running" in down.stdout


def test_unknown_service() -> None:
    result = cli("up", "postgres")
    assert result.returncode == 2
    assert "unknown service postgres" in result.stderr


def test_missing_redis_server_is_explained(tmp_path: Path) -> None:
    env = {**os.environ, "PATH": str(tmp_path)}
    result = cli("up", "redis", "--state-dir", str(tmp_path), "--redis-port", "1", env=env)
    assert result.returncode == 1
    assert "redis-server not found: apt-get install redis-server" in result.stderr


def test_port_taken_by_another_process(tmp_path: Path) -> None:
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        port = squatter.getsockname()[1]
        with pytest.raises(BackendError, match="already in use"):
            LocalBackends(tmp_path, redis_port=port).up(["redis"])


def test_running_on_another_port_must_be_stopped_first(backends) -> None:
    other = LocalBackends(backends.state_dir, redis_port=backends.redis_port + 1, mongo_port=backends.mongo_port)
    with pytest.raises(BackendError, match="already runs on port"):
        other.up(["redis"])


def test_down_up_one_service_keeps_port_and_data(backends) -> None:
    import pymongo

    mongo_pid = backends.pid("mongo")
    ((stopped, did_stop),) = backends.down(["mongo"])
    assert did_stop and not stopped.running
    assert backends.is_running("redis") and not backends.is_running("mongo")
    ((started, did_start),) = backends.up(["mongo"])
    assert did_start and started.pid != mongo_pid
    assert started.address == f"127.0.0.1:{backends.mongo_port}"
    client = pymongo.MongoClient(backends.mongo_url, serverSelectionTimeoutMS=2000)
    try:
        assert client.test.user.find_one({"id": 1}, {"_id": 0}) == {"id": 1, "name": "user-1"}
    finally:
        client.close()
