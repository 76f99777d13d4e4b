"""compose, run for real: `up sanic-redis` and friends on podman, answering the contract (`pytest -m compose`).

Debian's podman and docker-compose (v1) through podman's Docker API, with docker-compose.local.yml
over the committed file: no image comes from a registry, everything is built on a debootstrap
Debian base (compose/podman-setup.sh does the podman set-up; see its header for the sandbox quirks).
Everything is taken down at the end, on failure too: containers, network, images, the API service
and the healthcheck loop. The time of each step is printed at the end of the run.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from backends import DEFAULT_USERS as USERS  # what the compose seed loads (backends.seed's default)
from bench.run.verify import fetch, verify
from servers.core import catalog, compose_model as compose
from serverproc import free_port

pytestmark = [pytest.mark.compose, pytest.mark.timeout(900)]

ROOT = Path(__file__).resolve().parent.parent
COMPOSE_DIR = ROOT / "compose"
SETUP = COMPOSE_DIR / "podman-setup.sh"
PROJECT = "refsuite-compose-test"
SERVICES = ("sanic-redis", "flask_gunicorn_gevent-mongo", "echo-mongo")
FIXED_ID = 42
STEP_TIMEOUT = 600


class Stack:
    """The running compose project: a published loopback URL per service, and how to run compose."""

    def __init__(self, env: dict[str, str], ports: dict[str, int], timings: dict[str, float]):
        self.env, self.ports, self.timings = env, ports, timings
        self.only_redis: dict[str, str] = {}  # the containers after `up sanic-redis` alone
        self.rates: dict[str, float] = {}  # requests/s of the bench runs, printed with the step times

    def url(self, service: str) -> str:
        return f"http://127.0.0.1:{self.ports[service]}"

    def compose(self, *args: str, timeout: float = STEP_TIMEOUT, check: bool = True) -> subprocess.CompletedProcess:
        argv = ["docker-compose", "-p", PROJECT, "-f", "docker-compose.yml", "-f", "docker-compose.local.yml", *args]
        result = subprocess.run(argv, cwd=COMPOSE_DIR, env=self.env, capture_output=True, text=True, timeout=timeout)
        if check and result.returncode != 0:
            pytest.fail(f"{' '.join(argv)}: exit {result.returncode}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
        return result

    def containers(self) -> dict[str, str]:
        """service -> state of every container of the project."""
        out = subprocess.run(["podman", "ps", "-a", "--filter", f"label=com.docker.compose.project={PROJECT}",
                              "--format", "json"], env=self.env, capture_output=True, text=True, check=True).stdout
        return {c["Labels"]["com.docker.compose.service"]: c["State"] for c in json.loads(out or "[]")}


def _run(argv: list, env: dict[str, str], timeout: float = STEP_TIMEOUT) -> str:
    result = subprocess.run([str(a) for a in argv], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    if result.returncode != 0:
        pytest.fail(f"{argv}: exit {result.returncode}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return result.stdout


@pytest.fixture(scope="module")
def stack(tmp_path_factory, pytestconfig):
    if os.geteuid() != 0:
        pytest.fail("the compose test needs root (debootstrap, rootful podman): run `python3 -m pytest -m compose` as root")
    for tool in ("podman", "docker-compose", "debootstrap", "catatonit"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} not found: apt-get install podman docker-compose debootstrap catatonit "
                        "(apt-packages.txt lists them; .ci/run installs it)")
    timings: dict[str, float] = {}

    @contextmanager
    def step(name: str):
        started = time.monotonic()
        try:
            yield
        finally:
            timings[name] = time.monotonic() - started

    state = tmp_path_factory.mktemp("podman")
    ports = {service: free_port() for service in SERVICES}
    clean = {k: v for k, v in os.environ.items()
             if not k.startswith(("PORT_", "COMPOSE_", "DOCKER_")) and k not in ("CPUS", "MEMORY", "WORKERS")}
    env = {**clean, **{compose.port_variable(service): str(port) for service, port in ports.items()}}
    stack = Stack(env, ports, timings)
    try:
        with step("podman API service and healthcheck loop"):
            for line in _run([SETUP, "start", state], env).splitlines():
                key, _, value = line.partition("=")
                env[key] = value
        with step("debootstrap base image (cached in .build/compose) and import"):
            _run([SETUP, "base"], env)
        with step("host binaries (FerretDB, Go servers)"):
            _run([SETUP, "binaries"], env)
        # One service per image: docker-compose v1 builds every named service, even sharing an image.
        for service, what in (("redis", "redis image (Debian redis-server)"), ("mongo", "mongo image (FerretDB)"),
                              ("seed-redis", "Python image (Debian python3, venv, pip install)"),
                              ("echo-mongo", "Go image")):
            with step(what):
                stack.compose("build", service)
        with step("up sanic-redis"):
            stack.compose("up", "-d", "--no-build", "sanic-redis", timeout=300)
        stack.only_redis = stack.containers()
        with step("up flask_gunicorn_gevent-mongo echo-mongo"):
            stack.compose("up", "-d", "--no-build", "flask_gunicorn_gevent-mongo", "echo-mongo", timeout=300)
        yield stack
    finally:
        with step("down (containers, network, images), stop the API service and the loop"):
            down = None
            if "DOCKER_HOST" in env:
                down = stack.compose("down", "--rmi", "all", "-v", "--remove-orphans", "-t", "5", check=False)
            # Whatever down left (or all of it, when the API service never came up) goes here.
            subprocess.run([SETUP, "stop", state], env=env, timeout=60)
            subprocess.run([SETUP, "clean", PROJECT], env=env, timeout=120)
        _report(pytestconfig, timings, stack.rates, down)


def _report(pytestconfig, timings: dict[str, float], rates: dict[str, float],
            down: subprocess.CompletedProcess | None) -> None:
    """The time of each step, on the terminal even under output capture (this runs in a teardown)."""
    reporter = pytestconfig.pluginmanager.get_plugin("terminalreporter")
    capture = pytestconfig.pluginmanager.get_plugin("capturemanager")
    if reporter is None or capture is None:
        return
    with capture.global_and_fixture_disabled():
        reporter.write_line("")
        if down is not None and down.returncode != 0:
            reporter.write_line(f"compose down failed (podman-setup.sh clean removed what it left):\n{down.stderr[-2000:]}")
        reporter.write_line("compose test steps:")
        for name, seconds in timings.items():
            reporter.write_line(f"  {seconds:7.1f} s  {name}")
        for name, rate in rates.items():
            reporter.write_line(f"  {rate:9,.0f} requests/s  {name}")


def _ready(stack: Stack, service: str, within: float = 60.0) -> None:
    """The published port answers / (a container is 'up' before its server listens)."""
    deadline = time.monotonic() + within
    while True:
        try:
            if fetch(stack.url(service), "/")[0] == 200:
                return
        except OSError:
            pass
        if time.monotonic() > deadline:
            logs = stack.compose("logs", "--no-color", "--tail", "40", service, check=False).stdout
            pytest.fail(f"{service} does not answer on {stack.url(service)} within {within:.0f} s; logs:\n{logs}")
        time.sleep(0.5)


def test_a_redis_service_brings_up_redis_and_its_seed_only(stack):
    assert stack.only_redis.keys() == {"sanic-redis", "redis", "seed-redis"}, stack.only_redis
    assert stack.only_redis["seed-redis"] == "exited"


def test_every_container_runs_and_the_seeds_exited(stack):
    states = stack.containers()
    assert states.keys() == {*SERVICES, "redis", "mongo", "seed-redis", "seed-mongo"}
    for service, state in states.items():
        assert state == ("exited" if service.startswith("seed-") else "running"), states
    ps = stack.compose("ps").stdout
    assert "seed-redis_1" in ps and "Exit 0" in ps


@pytest.mark.parametrize("service", SERVICES)
def test_service_answers_the_contract_on_its_loopback_port(stack, service):
    _ready(stack, service)
    family = service.rsplit("-", 1)[1]
    for operation in (*catalog.HELLO_OPS, *catalog.FAMILIES[family]):
        verify(stack.url(service), operation, catalog.OPERATIONS[operation], USERS, FIXED_ID)
    status, _, body = fetch(stack.url(service), "/no/such/route")
    assert status == 404 and json.loads(body) == {"error": "not found"}


def _bench(stack: Stack, label: str, out: Path, *where: str) -> dict:
    """One 3 s bench run of sanic's /redis/pooled; its record, its rate kept for the report. Unpinned
    both ways: the container's server has both cores, so the host's gets them too."""
    started = time.monotonic()
    result = subprocess.run([str(ROOT / "bench.sh"), *where, "--servers", "sanic", "--ops", "redis-pooled",
                             "--duration", "3", "--no-pin", "--plain", "--out", str(out)],
                            cwd=ROOT, capture_output=True, text=True, timeout=180)
    stack.timings[f"bench.sh {label} (3 s)"] = time.monotonic() - started
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    (record,) = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    stack.rates[f"sanic /redis/pooled, {label}"] = record.get("requests_per_s") or 0.0
    return record


def test_bench_drives_a_compose_service(stack, tmp_path):
    _ready(stack, "sanic-redis")
    record = _bench(stack, "--target sanic-redis (compose)", tmp_path / "compose", "--target", stack.url("sanic-redis"))
    assert record["status"] == "ok" and record["path"] == "/redis/pooled", record
    assert record["requests"] > 0 and record["errors_total"] == 0 and record["non_2xx"] == 0, record
    # The same stack run bare on the host, right after: what the containers cost, in the report.
    bare = _bench(stack, "sanic on the host", tmp_path / "host")
    assert bare["status"] == "ok" and bare["errors_total"] == 0 and bare["non_2xx"] == 0, bare
