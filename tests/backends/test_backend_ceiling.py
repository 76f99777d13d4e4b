"""backends.ceiling against the session backends: the direct client loops answer and count."""

import subprocess
import sys

import pytest

from backends.ceiling import CeilingError, measure
from backends.local import REPO_ROOT


@pytest.mark.parametrize("backend", ["mongo", "redis"])
def test_ceiling_is_measured(backends, backend) -> None:
    url = backends.mongo_url if backend == "mongo" else backends.redis_url
    ceiling = measure(backend, url, concurrency=4, duration_s=0.5)
    assert ceiling.backend == backend and ceiling.concurrency == 4
    assert ceiling.requests > 0 and ceiling.requests_per_s > 0 and ceiling.errors == 0
    assert "at concurrency 4" in ceiling.line()


def test_fortunes_ceiling_reads_the_whole_fortune_collection(backends) -> None:
    # /fortunes reads every row of TechEmpower's table: its ceiling is that query's, slower than a find_one by id
    fortunes = measure("mongo", backends.mongo_url, concurrency=4, duration_s=0.5, query="fortunes")
    lookup = measure("mongo", backends.mongo_url, concurrency=4, duration_s=0.5)
    assert fortunes.query == "fortunes" and fortunes.requests > 0 and fortunes.errors == 0
    assert "fortune collection" in fortunes.tool and "(fortunes)" in fortunes.line()
    assert fortunes.requests_per_s < lookup.requests_per_s
    with pytest.raises(CeilingError, match="no fortunes query"):
        measure("redis", backends.redis_url, concurrency=1, duration_s=0.1, query="fortunes")


def test_unreachable_mongo_fails_clearly(free_port) -> None:
    with pytest.raises(CeilingError, match="mongoloop"):
        measure("mongo", f"mongodb://127.0.0.1:{free_port}/test?serverSelectionTimeoutMS=500", 2, 0.2)


def test_cli(backends) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "backends.ceiling", "redis", "--redis-url", backends.redis_url,
         "--concurrency", "2", "--duration", "0.3"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("redis ") and "requests/s at concurrency 2" in result.stdout
    bad = subprocess.run([sys.executable, "-m", "backends.ceiling", "memcached"], cwd=REPO_ROOT,
                         capture_output=True, text=True, timeout=60)  # fmt: skip
    assert bad.returncode == 2 and "unknown backend memcached" in bad.stderr
