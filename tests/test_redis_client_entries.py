"""The Redis routes of the entries that run another Redis client than the default (sanic_glide,
flask_gevent_redispy, ...: backends.redis_clients), served end to end: the name, 503 within 2 s
while redis-server is down and 200 again once it is back, in the same process."""
from __future__ import annotations

import pytest

import test_backend_routes as routes
from backends import redis_clients
from backends.seed import REDIS_VALUE
from servers.core import catalog

VARIANTS = [e.name for e in catalog.ENTRIES if e.language == "python" and e.redis_client != redis_clients.DEFAULT]


@pytest.fixture(params=VARIANTS)
def server(request, running):
    return running(request.param)


def test_every_client_has_an_entry() -> None:
    assert {catalog.get(name).redis_client for name in VARIANTS} == set(redis_clients.CLIENTS) - {redis_clients.DEFAULT}


@pytest.mark.parametrize("route", routes.REDIS_ROUTES)
def test_redis_returns_the_name(server, route):
    assert routes.get_json(server, route) == (200, {"name": REDIS_VALUE})


@pytest.mark.parametrize("name", VARIANTS)
def test_redis_outage_is_503_within_2s_then_recovers(name, start_server, private_backends):
    routes.test_backend_outage_is_503_within_2s_then_recovers(start_server(name, on=private_backends), "redis",
                                                             ["/redis/pooled", "/redis/per-request"])
