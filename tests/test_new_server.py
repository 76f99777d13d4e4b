"""A new server needs only its own files (docs/contributing.md): its adapter, its spec and its page. Each test here
fails when a server's spec would need a hand edit somewhere else: a parser owner's name to guess, a Date to add by
hand, a line in h2grid's LIBRARIES, another server's caveat to import, an app's list of server names to extend."""
from __future__ import annotations

import asyncio
import dataclasses
import http.client
import importlib
import io
from types import SimpleNamespace

import pytest

import selection
from conformance.__main__ import owner_of
from h2grid import endpoints
from servers.adapters.asgi_headers import with_default_headers
from servers.core import catalog, specs
from servers.core.specs import ASGI, PASSES, WSGI, ServerSpec
from test_hello_contract import date_of


def _new_server(interface: str, **fields) -> ServerSpec:
    """A server spec as a contributor writes one: its own fields, nothing declared about other servers or apps."""
    return ServerSpec(name="newserver", interface=interface, serve="servers.adapters.newserver_server:serve",
                      model="asyncio", description="a new server", details="", entry_suffix="newserver",
                      tls=specs.Tls(cannot="none"), http2=specs.Http2(cannot="none"),
                      websocket=specs.WebSocket(cannot="none"), **fields)


# ---------------------------------------------------------------------------------------------- the parser owner

@pytest.mark.parametrize("interface,owner", [(WSGI, "bare_"), (ASGI, "bare_asgi_"), ("rsgi", "bare_rsgi_")])
def test_the_owner_of_a_server_is_named_for_any_interface(interface, owner):
    servers = [s for s in catalog.SERVERS.values() if s.interface == interface and not s.shares_parser]
    assert servers
    for server in servers:
        assert owner_of(server.name) == owner + server.entry_suffix
        if server.entry_suffix in catalog.SERVERS:  # a server's name comes first (tornado-wsgi's suffix: tornado)
            continue
        if sum(s.entry_suffix == server.entry_suffix for s in catalog.SERVERS.values()) == 1:
            assert owner_of(server.entry_suffix) == owner + server.entry_suffix
        else:  # granian's three servers make <app>_granian entries
            with pytest.raises(KeyError, match="name one"):
                owner_of(server.entry_suffix)


def test_a_wrong_name_is_refused_and_a_k_that_selects_nothing_names_the_owner():
    with pytest.raises(KeyError, match="no server or entry 'bare_hypercorn'"):
        owner_of("bare_hypercorn")
    assert "bare_asgi_hypercorn" in selection.hint("bare_hypercorn")
    assert "bare_asgi_hypercorn" in selection.hint("bare_hypercorn and not ft")
    written = []
    reporter = SimpleNamespace(write_line=lambda line, **_: written.append(line))
    # (selection.report is what conftest's hook calls: importing `conftest` here may give another folder's)
    selection.report(reporter, selection.NO_TESTS_COLLECTED, "bare_hypercorn")
    assert written and "parser owner of server 'hypercorn' is bare_asgi_hypercorn" in written[0]
    written.clear()
    selection.report(reporter, 0, "bare_asgi_hypercorn")
    assert not written


# ---------------------------------------------------------------------------------------- what the server sends

def _start_headers(app, scope_type: str = "http") -> list[tuple[bytes, bytes]]:
    sent: list[dict] = []

    async def send(message: dict) -> None:
        sent.append(message)

    async def receive() -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    asyncio.run(app({"type": scope_type}, receive, send))
    return next(m for m in sent if m["type"] == "http.response.start")["headers"]


def _app(headers: list[tuple[bytes, bytes]]):
    async def app(scope, receive, send):
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"x"})

    return app


def test_the_asgi_helper_adds_date_and_server_where_the_server_sends_none():
    added = dict(_start_headers(with_default_headers(_app([(b"content-type", b"text/plain")]), server="newserver")))
    assert added[b"server"] == b"newserver"
    assert date_of(SimpleNamespace(getheader=lambda name: added[name.lower().encode()].decode()), "x").tzinfo
    kept = _start_headers(with_default_headers(_app([(b"Date", b"Thu, 01 Jan 1970 00:00:00 GMT"),
                                                     (b"Server", b"app")]), server="newserver"))
    assert kept == [(b"Date", b"Thu, 01 Jan 1970 00:00:00 GMT"), (b"Server", b"app")]
    assert _start_headers(with_default_headers(_app([])), scope_type="lifespan") == []  # other scopes untouched


def test_a_missing_date_fails_the_contract_saying_so():
    response = http.client.HTTPResponse(SimpleNamespace(makefile=lambda *_: io.BytesIO(
        b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nServer: x\r\n\r\n")))
    response.begin()
    with pytest.raises(AssertionError, match="sent no Date header.*asgi_headers"):
        date_of(response, "bare_asgi_newserver")


# ---------------------------------------------------------------------------------------------------- HTTP/2

def test_a_new_servers_http2_libraries_need_no_line_in_h2grid(monkeypatch):
    monkeypatch.setattr(endpoints, "LIBRARIES", dict(endpoints.LIBRARIES))
    server = dataclasses.replace(catalog.SERVERS["hypercorn"], name="newserver", pip_packages=("newserver",),
                                 http2=dataclasses.replace(catalog.SERVERS["hypercorn"].http2,
                                                           packages=("h2", "newframing")))
    assert endpoints._libraries(server) == ("newserver", "h2", "newframing")
    assert endpoints.LIBRARIES["newserver"][1] == "dist:newserver"
    assert endpoints.LIBRARIES["newframing"][1] == "dist:newframing"
    for name in catalog.SERVERS:
        assert all(library in endpoints.LIBRARIES for library in endpoints.libraries_of(name)), name


# --------------------------------------------------------------------------------------------- shared facts

def test_a_caveat_several_spec_modules_use_is_declared_in_servers_core_specs():
    """A parser another server is built on (twisted.web under daphne, http.server under werkzeug) is one caveat, in
    servers/core/specs.py, which every spec module may import: never another server's spec module."""
    users: dict[str, set[str]] = {}
    objects = {}
    for module in catalog.SPEC_MODULES:
        for spec in importlib.import_module(module).SPECS:
            for caveat in getattr(spec, "caveats", ()) if isinstance(spec, ServerSpec) else ():
                users.setdefault(caveat.key, set()).add(module)
                objects[caveat.key] = caveat
    shared = {vars(specs)[name].key: vars(specs)[name] for name in dir(specs)
              if isinstance(vars(specs)[name], specs.Caveat)}
    for key, modules in users.items():
        if len(modules) > 1:
            assert shared.get(key) is objects[key], (f"caveat {key!r} is used by {sorted(modules)}: declare it once in "
                                                     "servers/core/specs.py")
    assert "twisted-web" in shared and "http-server-parser" in shared


# ------------------------------------------------------------------------------------------ framework caveats

def test_a_new_server_gets_each_apps_own_caveats_from_its_spec_alone():
    """An app's HEAD, Host and method caveats reach a new server by what its spec says it passes on, with no edit of
    the app's spec; a server that answers HEAD itself does not get the HEAD caveats, and one that refuses a
    lower-case method (the default) not the method ones."""
    for interface in (WSGI, ASGI):
        new = _new_server(interface)
        lenient = _new_server(interface, passes=PASSES)
        strict = _new_server(interface, passes=tuple(p for p in specs.PASSES_DEFAULT if p != specs.PASSES_HEAD))
        for app in catalog.APPS.values():
            if app.interface != interface or app.servers:
                continue
            assert {c.key for c in app.caveats_on(lenient)} == {c.key for _, c in app.caveats}, app.name
            by_default = {c.key for needs, c in app.caveats if needs in ("", *specs.PASSES_DEFAULT)}
            assert {c.key for c in app.caveats_on(new)} == by_default, app.name
            head = {c.key for needs, c in app.caveats if needs == specs.PASSES_HEAD}
            assert not head & {c.key for c in app.caveats_on(strict)}, app.name
    heads = {app.name for app in catalog.APPS.values() for needs, c in app.caveats if needs == specs.PASSES_HEAD}
    assert {"fastapi", "litestar", "blacksheep", "falcon", "falcon_asgi"} <= heads
    hosts = {app.name for app in catalog.APPS.values() for needs, c in app.caveats if needs == specs.PASSES_ANY_HOST}
    assert {"django", "django_asgi"} <= hosts
    methods = {app.name for app in catalog.APPS.values() for needs, c in app.caveats
               if needs == specs.PASSES_LOWER_CASE_METHOD}
    assert {"flask", "django", "django_asgi"} <= methods


def test_no_app_lists_every_server_it_runs_on_for_one_caveat():
    """A caveat an app names for each server it runs on is the app's own behaviour: FrameworkSpec.caveats, keyed by
    what the server passes, so the next server needs no edit of the app's spec."""
    for app in catalog.APPS.values():
        runs_on = {e.server for e in catalog.ENTRIES if e.app == app.name}
        named: dict[str, set[str]] = {}
        for server, caveat in app.combination_caveats:
            named.setdefault(caveat.key, set()).add(server)
        for key, servers in named.items():
            assert len(runs_on) < 2 or servers != runs_on, (
                f"{app.name} names caveat {key!r} for each of its servers {sorted(servers)}: declare it in its "
                "FrameworkSpec.caveats by what the server passes (servers/core/specs.py, PASSES)")
