"""The Mongo drivers a stack can run, and every driver's code: what a result records and what the
anatomy counts as the driver layer, declared once here beside the backend access.

A Python app names its Mongo driver (FrameworkSpec.mongo_driver, a key of MONGO); its Redis client is
backends.redis_clients'. Go stacks all run the same two driver modules (servers/go/go.mod).
"""
from __future__ import annotations

from dataclasses import dataclass

from backends import redis_clients


@dataclass(frozen=True)
class MongoDriver:
    name: str
    packages: tuple[str, ...]  # distributions whose versions a result records
    code_paths: tuple[str, ...]  # frame path prefixes of its code (the anatomy's driver layer)


# pymongo's own: bson and gridfs ship in its wheel, dnspython resolves mongodb+srv:// URLs.
_PYMONGO_PATHS = ("pymongo/", "bson/", "gridfs/", "dns/")
MONGO: dict[str, MongoDriver] = {d.name: d for d in (
    MongoDriver("pymongo", ("pymongo",), _PYMONGO_PATHS),
    MongoDriver("flask-pymongo", ("flask-pymongo", "pymongo"), ("flask_pymongo/", *_PYMONGO_PATHS)),
    MongoDriver("motor", ("motor", "pymongo"), ("motor/", *_PYMONGO_PATHS)),
)}

GO_MODULES = ("github.com/redis/go-redis/v9", "go.mongodb.org/mongo-driver/v2")
GO_CODE_PATHS = ("go.mongodb.org/", "github.com/redis/go-redis/")
# The suite's own backend access (pools, timeouts, the id rule): the driver layer too.
OWN_CODE_PATHS = ("backends/", "refsuite/servers/go/internal/backend.")


def code_paths() -> tuple[str, ...]:
    """Every driver's frame path prefixes, Mongo and Redis, Python and Go, and the suite's access."""
    paths = [*(p for d in MONGO.values() for p in d.code_paths),
             *(p for c in redis_clients.CLIENTS.values() for p in c.code_paths), *GO_CODE_PATHS, *OWN_CODE_PATHS]
    return tuple(dict.fromkeys(paths))
