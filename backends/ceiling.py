"""The backends' own ceiling: what Mongo and Redis serve to a direct client loop, no web stack.

Mongo: `backends/mongoloop`, a Go program on the official Go driver, N goroutines sharing one
pooled client, each looping find_one({"id": random}) (what the lookup routes ask), or with the
fortunes query reading the whole fortune collection (what /fortunes asks). Redis:
`redis-benchmark` (Debian's redis-tools) sending GET name over N connections. A stack's requests/s
on a backend route over this ceiling says whether the stack or the backend is the bound.

`python -m backends.ceiling [mongo] [redis] --concurrency 50`; measure() is the same for bench.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from urllib.parse import urlsplit

from backends import COLLECTION, DEFAULT_MONGO_URL, DEFAULT_REDIS_URL, FORTUNE_COLLECTION, REDIS_KEY
from processes import gobuild
from backends.seed import DEFAULT_USERS

MONGOLOOP_SRC = Path(__file__).resolve().parent / "mongoloop"
MONGOLOOP_BIN = gobuild.BUILD_DIR / "mongoloop"
DEFAULT_DURATION_S = 3.0
CALIBRATION_REQUESTS = 5_000
# What each backend route asks its backend, as the ceiling's loop asks it: "lookup" (a find_one by id, a GET) or
# "fortunes" (the whole fortune collection). An operation not named here asks a lookup.
QUERIES: dict[str, str] = {"fortunes": "fortunes"}


def query_of(operation: str) -> str:
    return QUERIES.get(operation, "lookup")


class CeilingError(Exception):
    """The ceiling could not be measured; the message says why."""


@dataclass(frozen=True)
class Ceiling:
    backend: str  # "mongo" or "redis"
    concurrency: int
    requests_per_s: float
    requests: int
    errors: int
    tool: str
    query: str = "lookup"  # QUERIES

    def line(self) -> str:
        errors = f", {self.errors:,} errors" if self.errors else ""
        what = "" if self.query == "lookup" else f" ({self.query})"
        return (f"{self.backend:<6}{what} {self.requests_per_s:>10,.0f} requests/s at concurrency {self.concurrency} "
                f"({self.requests:,} requests{errors}; {self.tool})")

    def as_dict(self) -> dict:
        return asdict(self)


def mongo_ceiling(url: str, concurrency: int, duration_s: float = DEFAULT_DURATION_S,
                  users: int = DEFAULT_USERS, query: str = "lookup") -> Ceiling:
    try:
        gobuild.build(MONGOLOOP_SRC, MONGOLOOP_BIN)
    except gobuild.GoBuildError as exc:
        raise CeilingError(str(exc)) from exc
    collection = FORTUNE_COLLECTION if query == "fortunes" else COLLECTION
    command = [str(MONGOLOOP_BIN), "-url", url, "-collection", collection, "-concurrency", str(concurrency),
               "-duration", f"{duration_s}s", "-users", str(users), "-query", query]
    done = subprocess.run(command, capture_output=True, text=True, timeout=duration_s + 30)
    if done.returncode != 0:
        raise CeilingError(f"mongoloop: {done.stderr.strip()}")
    report = json.loads(done.stdout)
    what = "find() of the fortune collection" if query == "fortunes" else "find_one by random id"
    return Ceiling("mongo", concurrency, round(report["requests_per_s"], 1), report["requests"], report["errors"],
                   f"mongoloop (Go driver, {what})", query)


def _redis_benchmark(url: str, concurrency: int, requests: int) -> tuple[float, int]:
    binary = shutil.which("redis-benchmark")
    if binary is None:
        raise CeilingError("redis-benchmark not found: apt-get install redis-tools (it comes with redis-server)")
    parts = urlsplit(url)
    command = [binary, "-h", parts.hostname or "127.0.0.1", "-p", str(parts.port or 6379), "-c", str(concurrency),
               "-n", str(requests), "--csv", "GET", REDIS_KEY]
    if parts.password:
        command[1:1] = ["-a", parts.password]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise CeilingError(f"redis-benchmark: {(done.stderr or done.stdout).strip()}")
    # --csv: a header line, then "GET name","<requests/s>",...
    for line in done.stdout.splitlines():
        cells = [c.strip('"') for c in line.split(",")]
        if len(cells) > 1 and cells[0].upper().startswith("GET"):
            return float(cells[1]), requests
    raise CeilingError(f"redis-benchmark: no result in {done.stdout.strip()!r}")


def redis_ceiling(url: str, concurrency: int, duration_s: float = DEFAULT_DURATION_S) -> Ceiling:
    """redis-benchmark counts requests, not seconds: a short run sizes one of about duration_s."""
    rate, _ = _redis_benchmark(url, concurrency, CALIBRATION_REQUESTS)
    requests = max(CALIBRATION_REQUESTS, int(rate * duration_s))
    rate, requests = _redis_benchmark(url, concurrency, requests)
    return Ceiling("redis", concurrency, rate, requests, 0, "redis-benchmark (GET name)")


def measure(backend: str, url: str, concurrency: int, duration_s: float = DEFAULT_DURATION_S,
            users: int = DEFAULT_USERS, query: str = "lookup") -> Ceiling:
    if backend == "mongo":
        return mongo_ceiling(url, concurrency, duration_s, users, query)
    if query != "lookup":
        raise CeilingError(f"{backend} has no {query} query (only mongo serves /fortunes)")
    if backend == "redis":
        return redis_ceiling(url, concurrency, duration_s)
    raise CeilingError(f"unknown backend {backend}: mongo or redis")


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m backends.ceiling", description=__doc__.split("\n\n")[0])
    parser.add_argument("backends", nargs="*", metavar="BACKEND", help="mongo and/or redis (default: both)")
    parser.add_argument("--concurrency", type=int, default=50, help="default: %(default)s")
    parser.add_argument("--duration", type=float, default=DEFAULT_DURATION_S, help="seconds (default: %(default)s)")
    parser.add_argument("--users", type=int, default=DEFAULT_USERS, help="ids 1..N (default: %(default)s)")
    parser.add_argument("--query", choices=("lookup", "fortunes"), default="lookup",
                        help="mongo: find_one by id (lookup) or the whole fortune collection (default: %(default)s)")
    parser.add_argument("--mongo-url", default=os.environ.get("MONGO_URL", DEFAULT_MONGO_URL),
                        help="env MONGO_URL (default: %(default)s)")
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL", DEFAULT_REDIS_URL),
                        help="env REDIS_URL (default: %(default)s)")
    args = parser.parse_args(argv)
    bad = [b for b in args.backends if b not in ("mongo", "redis")]
    if bad:
        parser.error(f"unknown backend {', '.join(bad)} (choose from mongo, redis)")
    if args.concurrency < 1 or args.duration <= 0 or args.users < 1:
        parser.error("--concurrency and --users must be at least 1, --duration above 0")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse_args(argv)
    status = 0
    for backend in args.backends or ["mongo", "redis"]:
        url = args.mongo_url if backend == "mongo" else args.redis_url
        try:
            query = args.query if backend == "mongo" else "lookup"
            print(measure(backend, url, args.concurrency, args.duration, args.users, query).line(), flush=True)
        except (CeilingError, subprocess.TimeoutExpired, ValueError, KeyError) as exc:
            print(f"backends.ceiling: {backend} at {url}: {exc}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
