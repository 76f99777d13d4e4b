"""The settings and fronts columns of the conformance grid (tests/conformance/settings.py, fronts.py):
the recording upstream's strict reader, each declared setting accepted by its server's own API, a
request through a private HAProxy, and docs/conformance-columns.md against the stored runs. The runs
themselves are checked again under -m columns (tests/test_conformance_columns_run.py)."""
from __future__ import annotations


import pytest

from conformance import cases, columns, fronts, haproxy, recorder
from servers.core import catalog, server_options

GET = b"GET / HTTP/1.1\r\nHost: a\r\n\r\n"


@pytest.mark.parametrize(("data", "framed", "rest"), [
    (GET + GET, 2, b""),
    (b"POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello" + GET, 2, b""),
    (b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n" + GET, 2, b""),
    (b"POST / HTTP/1.1\r\nTransfer-Encoding: CHUNKED\r\n\r\n0\r\n\r\n", 1, b""),
    (b"POST / HTTP/1.1\r\nContent-Length: 9\r\n\r\nhello", 0, b"hello"),  # cut short
])
def test_recorder_frames_what_a_front_may_emit(data, framed, rest):
    found, left = recorder.messages(data)
    assert len(found) == framed and left.endswith(rest)


@pytest.mark.parametrize("data", [
    b"POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    b"POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
    b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXX0\r\n\r\n",
    b"POST / HTTP/1.1\r\nTransfer-Encoding: identity, chunked\r\n\r\n0\r\n\r\n",
])
def test_recorder_frames_nothing_ambiguous(data):
    # what even a strict reader cannot settle is left over: the differential names it, never guesses
    assert recorder.messages(data) == ([], data)


def _accepts(server: str, options: dict) -> None:
    if server.startswith("gunicorn"):
        from gunicorn.config import Config
        config = Config()
        for key, value in options.items():
            config.set(key, value)
    elif server == "uvicorn":
        import uvicorn
        uvicorn.Config(lambda: None, **options)
    elif server.startswith("granian"):
        from granian.http import HTTP1Settings
        HTTP1Settings(**dict(options.get("http1_settings", ())))
        from granian.server import Server
        assert set(options) <= set(Server.__init__.__code__.co_varnames)


@pytest.mark.parametrize(("server", "setting"), [(s.name, setting) for s in catalog.SERVERS.values()
                                                  for setting in s.settings], ids=lambda v: getattr(v, "key", v))
def test_each_setting_is_accepted_by_its_server(server, setting, monkeypatch):
    # a misspelt option would make a setting's column the default's, silently
    for key, value in setting.environment().items():
        monkeypatch.setenv(key, value)
    _accepts(server, server_options.given())
    for key, value in setting.env:
        assert key.startswith("SANIC_") and key[6:] in __import__("sanic.config").config.DEFAULT_CONFIG


def test_haproxy_forwards_a_post_and_refuses_cl_and_te():
    upstream = recorder.Recorder().start()
    proxy = haproxy.Haproxy(upstream.port).start()
    try:
        valid = cases.BY_ID["cl-valid"]
        assert [r.status for r in fronts.send(proxy.port, valid.request(cases.CONTRACT), 2).responses] == [200, 200]
        framed, rest = recorder.messages(b"".join(upstream.forwarded()))
        assert len(framed) == 2 and rest == b"" and framed[0].body == cases.body(cases.CONTRACT)
        upstream.clear()
        smuggle = b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
        fronts.send(proxy.port, smuggle, 1)
        framed, rest = recorder.messages(b"".join(upstream.forwarded()))
        assert rest == b"" and all(not m.fields(b"content-length") for m in framed)  # never both
    finally:
        proxy.stop()
        upstream.stop()


def test_outcome_names_what_the_front_did():
    valid = cases.BY_ID["cl-valid"]
    head, _, rest = valid.request(cases.CONTRACT).partition(b"\r\n\r\n")
    assert fronts.outcome(valid, []) == "refused"
    assert fronts.outcome(valid, [head + b"\r\nX-Forwarded-For: 1\r\n\r\n" + rest]) == "unchanged"
    rechunked = head.replace(b"Content-Length: 61", b"Transfer-Encoding: chunked") + b"\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
    assert fronts.outcome(valid, [rechunked]) == "normalized"


def test_the_page_is_the_stored_runs():
    settings, stored = columns.load()
    assert settings["run"]["complete"] and stored["run"]["complete"]
    assert columns.PAGE.read_text() == columns.page(settings, stored), "regenerate: python -m tests.conformance.columns"
