"""backends.local: the CLI and the LocalBackends API (the session fixture already proves `up`)."""

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pymongo
import pytest

from backends.local import REPO_ROOT, BackendError, LocalBackends
from backends.seed import seed_mongo, user_name


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
    for word in ("up", "down", "status", "--state-dir", "--redis-port", "--mongo-port", "--mongo-engine", "postgres"):
        assert word in result.stdout


def test_urls(backends) -> None:
    assert backends.redis_url == f"redis://127.0.0.1:{backends.redis_port}/0"
    assert backends.mongo_url == f"mongodb://127.0.0.1:{backends.mongo_port}/test"


def test_status_and_idempotent_up_from_the_cli(backends) -> None:
    status = cli("status", *backend_args(backends))
    assert status.returncode == 0, status.stderr
    lines = status.stdout.splitlines()
    ports = (backends.redis_port, backends.postgres_port, backends.mongo_port)
    assert backends.services == ("redis", "postgres", "mongo")
    for line, name, port in zip(lines, backends.services, ports, strict=True):
        assert line.split()[:3] == [name, "running", f"127.0.0.1:{port}"]
        assert f"pid {backends.pid(name)}" in line and "log " in line
    assert f"(FerretDB on PostgreSQL at {backends.postgres_url})" in lines[2]
    assert postgres_port_is_private(backends.postgres_port)

    up = cli("up", "mongo", *backend_args(backends))
    assert up.returncode == 0, up.stderr
    assert [line.split()[:3] for line in up.stdout.splitlines()] == [
        ["postgres", "already", "running"],
        ["mongo", "already", "running"],
    ]


def postgres_port_is_private(port: int | None) -> bool:
    """Below the ephemeral range (32768-60999), where no client's outgoing connection takes it."""
    return port is not None and 1024 < port < 32768


def test_idempotent_up_from_the_api(backends) -> None:
    pids = {name: backends.pid(name) for name in backends.services}
    results = backends.up()
    assert [started for _, started in results] == [False, False, False]
    assert {st.name: st.pid for st, _ in results} == pids


def test_status_of_an_empty_state_dir(tmp_path: Path) -> None:
    result = cli("status", "--state-dir", str(tmp_path), "--redis-port", "1", "--mongo-port", "2")
    assert result.returncode == 1
    assert [line.split()[:2] for line in result.stdout.splitlines()] == [
        ["redis", "stopped"],
        ["postgres", "stopped"],
        ["mongo", "stopped"],
    ]
    down = cli("down", "--state-dir", str(tmp_path))
    assert down.returncode == 0
    assert "was not running" in down.stdout


def test_unknown_service() -> None:
    result = cli("up", "memcached")
    assert result.returncode == 2
    assert "unknown service memcached" in result.stderr
    # The SQLite engine runs no PostgreSQL.
    result = cli("up", "postgres", "--mongo-engine", "sqlite")
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
    postgres_port = backends.postgres_port
    results = backends.down(["mongo"])
    # FerretDB first, then the PostgreSQL it stores in.
    assert [(st.name, did_stop, st.running) for st, did_stop in results] == [
        ("mongo", True, False),
        ("postgres", True, False),
    ]
    assert backends.is_running("redis") and not backends.is_running("mongo") and not backends.is_running("postgres")
    results = backends.up(["mongo"])
    assert [(st.name, did_start) for st, did_start in results] == [("postgres", True), ("mongo", True)]
    started = results[1][0]
    assert started.pid != mongo_pid
    assert started.address == f"127.0.0.1:{backends.mongo_port}"
    assert backends.postgres_port == postgres_port
    client = pymongo.MongoClient(backends.mongo_url, serverSelectionTimeoutMS=2000)
    try:
        assert client.test.user.find_one({"id": 1}, {"_id": 0}) == {"id": 1, "name": "user-1"}
    finally:
        client.close()


def live_processes(pids: list[int]) -> list[int]:
    """The pids still running (the machine's init may leave zombies unreaped: those are gone)."""
    alive = []
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                alive.append(pid)
        except psutil.NoSuchProcess:
            pass
    return alive


@pytest.mark.parametrize("engine", ["postgresql", "sqlite"])
def test_engine_starts_seeds_answers_and_stops_leaving_no_process(tmp_path: Path, free_port, engine) -> None:
    local = LocalBackends(tmp_path, mongo_port=free_port, mongo_engine=engine)
    try:
        results = local.up(["mongo"])
        assert [st.name for st, started in results if started] == list(local.services)[1:]
        assert (local.postgres_url is not None) == (engine == "postgresql")
        status = cli("status", "mongo", "--state-dir", str(tmp_path), "--mongo-port", str(free_port),
                     "--mongo-engine", engine)  # fmt: skip
        assert status.returncode == 0, status.stderr
        assert ("FerretDB on PostgreSQL" if engine == "postgresql" else "FerretDB on SQLite") in status.stdout
        seeded = seed_mongo(local.mongo_url, 50, local.postgres_url)
        assert seeded.total == 50
        client = pymongo.MongoClient(local.mongo_url, serverSelectionTimeoutMS=2000)
        try:
            assert client.test.user.find_one({"id": 50}, {"_id": 0}) == {"id": 50, "name": user_name(50)}
        finally:
            client.close()
        pids = [local.pid(name) for name in local.services if local.pid(name)]
        pids += [child.pid for pid in pids for child in psutil.Process(pid).children(recursive=True)]
        assert len(pids) >= (4 if engine == "postgresql" else 1)  # postmaster and its workers
    finally:
        local.down()
    assert live_processes(pids) == []
    assert not any(local.is_running(name) for name in local.services)


def test_down_and_up_postgres_from_the_cli_leaves_mongo_serving(tmp_path: Path) -> None:
    """As the README and --help say, by hand: later commands name only the state dir, and the
    cluster comes back on the port the running FerretDB dials, so an entry answers again."""
    from serverproc import ServerProcess, free_port

    state = ["--state-dir", str(tmp_path)]
    redis_port = free_port()
    while (mongo_port := free_port()) == redis_port:
        pass
    server = None
    try:
        up = cli("up", *state, "--redis-port", str(redis_port), "--mongo-port", str(mongo_port))
        assert up.returncode == 0, up.stdout + up.stderr
        mongo_url, redis_url = f"mongodb://127.0.0.1:{mongo_port}/test", f"redis://127.0.0.1:{redis_port}/0"
        seed = subprocess.run([sys.executable, "-m", "backends.seed", "--users", "50", "--mongo-url", mongo_url,
                               "--redis-url", redis_url], cwd=REPO_ROOT, capture_output=True, text=True, timeout=60)
        assert seed.returncode == 0, seed.stderr
        server = ServerProcess("stdlib", ["--mongo-url", mongo_url, "--redis-url", redis_url]).start()
        assert server.request("/mongo/pooled/1")[0].status == 200

        down = cli("down", "postgres", *state)
        assert down.returncode == 0, down.stdout + down.stderr
        assert down.stdout.split()[:2] == ["postgres", "stopped"]
        assert server.request("/mongo/pooled/1")[0].status == 503
        up = cli("up", "postgres", *state)
        assert up.returncode == 0, up.stdout + up.stderr

        deadline = time.monotonic() + 5.0
        while (status := server.request("/mongo/pooled/1")[0].status) != 200 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert status == 200, f"/mongo/pooled/1 still answers {status} 5 s after `up postgres`"
        status = cli("status", *state)
        assert status.returncode == 0, status.stdout
    finally:
        if server is not None:
            server.stop()
        cli("down", *state)
