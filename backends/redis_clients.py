"""The Python Redis clients a stack can be served with: names, packages, and which one is the default.

One home for the choice: an app's entries say which client they run (servers/core/catalog.py makes
one entry per client variant an app spec names, like sanic_motor for Mongo), and the operations
ask this module for the pooled object and the per-request call of that client. Importing it
imports no client library: each client's code is in its own module, imported on first use.

- hiredis: redis-py with hiredis's C reply parser (`redis[hiredis]`), what redis-py's docs
  recommend for production and what a production user of any stack here installs: the default.
- redispy: redis-py with its pure-Python parser (what runs when hiredis is not installed).
- glide: valkey-glide, a Rust core (tokio) with a Python async front (asyncio only).
- coredis: coredis, an async-only client on anyio, with its own pure-Python/Cython RESP parser.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass

SYNC, ASYNC = "sync", "async"


@dataclass(frozen=True)
class RedisClient:
    name: str  # the entries' suffix (sanic_glide) and a result's redis client
    title: str  # how a description names it
    packages: tuple[str, ...]  # distributions whose versions a result records
    modes: tuple[str, ...]  # SYNC (WSGI, stdlib apps) and/or ASYNC (asyncio apps)
    # frame path prefixes of its code (the anatomy's driver layer); redis/asyncio/ by name: the event
    # loop's "asyncio/" (a server's code path) would own it otherwise
    code_paths: tuple[str, ...]
    sync_module: str = ""  # module with PooledRedis and get_name_per_request
    async_module: str = ""  # module with PooledAsyncRedis and get_name_per_request


CLIENTS: dict[str, RedisClient] = {c.name: c for c in (
    RedisClient("hiredis", "redis-py with hiredis's parser", ("redis", "hiredis"), (SYNC, ASYNC),
                ("redis/", "redis/asyncio/", "hiredis/"), "backends.redis_sync", "backends.redis_async"),
    RedisClient("redispy", "redis-py with its pure-Python parser", ("redis",), (SYNC, ASYNC),
                ("redis/", "redis/asyncio/"), "backends.redis_sync", "backends.redis_async"),
    RedisClient("glide", "valkey-glide (Rust core)", ("valkey-glide",), (ASYNC,), ("glide/", "glide_shared/"),
                async_module="backends.redis_glide"),
    RedisClient("coredis", "coredis", ("coredis",), (ASYNC,), ("coredis/",), async_module="backends.redis_coredis"),
)}
DEFAULT = "hiredis"
PURE_PYTHON = "redispy"  # what runs where hiredis does not install (free-threaded CPython 3.13t)


def get(name: str) -> RedisClient:
    try:
        return CLIENTS[name]
    except KeyError:
        raise KeyError(f"no Redis client {name!r}; known: {', '.join(CLIENTS)}") from None


def sync_access(name: str):
    """The module serving this client to sync apps (PooledRedis, get_name_per_request)."""
    client = get(name)
    if SYNC not in client.modes:
        raise ValueError(f"{client.title} has no sync client the suite uses (asyncio only)")
    return importlib.import_module(client.sync_module)


def async_access(name: str):
    """The module serving this client to asyncio apps (PooledAsyncRedis, get_name_per_request)."""
    return importlib.import_module(get(name).async_module)
