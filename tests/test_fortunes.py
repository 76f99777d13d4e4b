"""/fortunes, TechEmpower's fortunes test, on every entry that serves it: TechEmpower's verifier
(bench/run/fortunes_check.py) on the real page from real FerretDB, one query per request (a row added
between two requests shows in the second), and the verifier itself failing on each trap of the test."""
from __future__ import annotations

import html
import os
import time
from urllib.parse import urlsplit, urlunsplit

import pymongo
import pytest

from backends import FORTUNE_COLLECTION
from backends.seed import FORTUNES, seed_fortunes
from bench.run import fortunes_check
from servers.apps import contract
from servers.core import catalog

ENTRY_NAMES = [e.name for e in catalog.ENTRIES if "fortunes" in e.ops]
# a database of its own per pytest-xdist worker: two workers sharing one backend never see each other's row
NO_CACHE_DB = "fortunes_no_cache_" + os.environ.get("PYTEST_XDIST_WORKER", "main")


def _one_per_app_and_driver(names: list[str]) -> list[str]:
    """The first entry of each app and Mongo driver: "no cache" is the app's and the driver's doing, not
    the server's (each of these starts a server of its own, about 2 s)."""
    chosen: dict[tuple[str, str], str] = {}
    for entry in map(catalog.get, names):
        if not entry.free_threaded:
            chosen.setdefault((entry.app, entry.mongo_driver), entry.name)
    return list(chosen.values())


NO_CACHE_NAMES = _one_per_app_and_driver(ENTRY_NAMES)


def headers_of(response) -> dict[str, str]:
    return {name.lower(): value for name, value in response.getheaders()}


@pytest.fixture(scope="module")
def seeded(backends):
    """The test backends' Mongo, started if it is not yet: its seed has the fortune rows (backends.seed)."""
    backends.ensure("mongo")
    return backends


@pytest.fixture(params=ENTRY_NAMES)
def server(request, seeded, running):
    return running(request.param)


def test_techempower_verifier_passes(server):
    response, body = server.request("/fortunes")
    assert response.status == 200, body[:300]
    problems = fortunes_check.problems("/fortunes", headers_of(response), body)
    assert not [p for p in problems if p.level == fortunes_check.FAIL], [str(p) for p in problems]


def _private_database(mongo_url: str) -> str:
    """The same server, another database: a row added there is seen by no other test's server."""
    parts = urlsplit(mongo_url)
    return urlunsplit(parts._replace(path=f"/{NO_CACHE_DB}"))


@pytest.mark.parametrize("name", NO_CACHE_NAMES)
def test_one_query_per_request_no_cache(name, seeded, start_server):
    url = _private_database(seeded.mongo_url)
    seed_fortunes(url)
    server = start_server(name, ["--mongo-url", url, "--workers", "1"])  # one worker: it starts sooner
    first = server.request("/fortunes")[1].decode()
    assert html.escape("フレームワークのベンチマーク") in first
    client = pymongo.MongoClient(url, serverSelectionTimeoutMS=5000)
    added = {"_id": 1_000_001, "id": 1_000_001, "message": f"Added by the test for {name} <b>"}
    collection = client.get_default_database()[FORTUNE_COLLECTION]
    try:
        collection.insert_one(added)
        second = server.request("/fortunes")[1].decode()
        assert "<td>1000001</td>" in second and "Added by the test" in second, "the second request read no new row"
        assert "<b>" not in second, "the added row's message went out unescaped"
    finally:
        collection.delete_one({"_id": added["_id"]})
        client.close()
    third = server.request("/fortunes")[1].decode()
    assert "1000001" not in third


# -- the verifier's own traps, each on a small hand-made answer ---------------------------------------
def page(rows: list[tuple[int, str]] | None = None, escape=html.escape, doctype: str = "<!DOCTYPE html>") -> bytes:
    """A fortunes page as a user would write it by hand (rows already in order)."""
    if rows is None:
        rows = sorted([*FORTUNES, (0, contract.ADDITIONAL_FORTUNE)], key=lambda row: row[1])
    cells = "".join(f"<tr><td>{fid}</td><td>{escape(message)}</td></tr>\n" for fid, message in rows)
    return (f"{doctype}\n<html>\n<head><title>Fortunes</title></head>\n<body>\n<table>\n"
            f"<tr><th>id</th><th>message</th></tr>\n{cells}</table>\n</body>\n</html>\n").encode()


GOOD_HEADERS = {"server": "test", "date": "Mon, 01 Jan 2024 00:00:00 GMT", "content-type": contract.HTML,
                "content-length": "1300"}


def fail_messages(body: bytes, headers: dict[str, str] = GOOD_HEADERS, path: str = "/fortunes", **kwargs) -> str:
    return "\n".join(p.message for p in fortunes_check.failures(path, headers, body, **kwargs))


def test_a_correct_page_passes():
    assert fail_messages(page()) == ""
    # the spellings TechEmpower accepts: numeric references of its list, &mdash;, a different doctype case
    spelled = page(escape=lambda m: html.escape(m).replace("&quot;", "&#34;").replace("+", "&#43;")
                   .replace("—", "&mdash;").replace("&#x27;", "&#39;"), doctype="<!doctype HTML>")
    assert fail_messages(spelled) == ""
    later = {**GOOD_HEADERS, "date": "Mon, 01 Jan 2024 00:00:03 GMT"}
    assert fail_messages(page(), later_headers=later) == ""


def test_trap_content_type_without_charset():
    assert "Invalid Content-Type" in fail_messages(page(), {**GOOD_HEADERS, "content-type": "text/html"})


def test_trap_unescaped_script():
    # a bare jinja2.Template (no autoescape) sends the <script> row as markup: its content is ignored
    failed = fail_messages(page(escape=lambda message: message))
    assert "Invalid according to the fortune parser" in failed and "&lt;script&gt;" in failed


def test_trap_dropped_character_references():
    # &#8212; for the dash, and the Japanese encoded as references: TechEmpower's parser drops both
    dash = page(escape=lambda m: html.escape(m).replace("—", "&#8212;"))
    assert "Donald Knuth" in fail_messages(dash) and "—" in fail_messages(dash)
    japanese = page(escape=lambda m: html.escape(m).encode("ascii", "xmlcharrefreplace").decode())
    assert "フレームワークのベンチマーク" in fail_messages(japanese)


def test_trap_wrong_order():
    by_id = sorted([*FORTUNES, (0, contract.ADDITIONAL_FORTUNE)])
    assert "Invalid according to the fortune parser" in fail_messages(page(by_id))
    # the encoded bytes of the message sort as its code points do; by length or descending they do not
    by_length = sorted([*FORTUNES, (0, contract.ADDITIONAL_FORTUNE)], key=lambda row: len(row[1]))
    assert "fortune: No such file or directory" in fail_messages(page(by_length))


def test_trap_missing_added_row():
    rows = sorted(FORTUNES, key=lambda row: row[1])
    assert contract.ADDITIONAL_FORTUNE in fail_messages(page(rows))


def test_trap_missing_headers_and_cached_date():
    failed = fail_messages(page(), {"content-type": contract.HTML})
    assert "missing: Server" in failed and "missing: Date" in failed and "size header" in failed
    assert "Cached Date" in fail_messages(page(), later_headers=dict(GOOD_HEADERS))
    assert fail_messages(b"") == "Empty response"
    assert "at least 9 characters" in fail_messages(page(), path="/fortune")


def test_a_bad_date_format_is_a_warning_only():
    headers = {**GOOD_HEADERS, "date": str(time.time())}
    problems = fortunes_check.problems("/fortunes", headers, page())
    assert [p.level for p in problems] == [fortunes_check.WARN]


def test_the_stdlib_app_renders_the_standard_librarys_template(monkeypatch):
    """TechEmpower requires a template: the stdlib app's page is string.Template's rendering (a row template and
    the page around the rows), and passes the verifier."""
    from string import Template

    from servers.apps import stdlib_app

    rows = [{"id": fid, "message": message} for fid, message in FORTUNES]
    assert isinstance(stdlib_app.FORTUNES_PAGE, Template) and isinstance(stdlib_app.FORTUNES_ROW, Template)
    assert fail_messages(stdlib_app.fortunes_page([dict(r) for r in rows])) == ""
    # the rows come out of the template: change it, and every row changes
    monkeypatch.setattr(stdlib_app, "FORTUNES_ROW", Template("<tr><td>$id</td><td>[$message]</td></tr>\n"))
    changed = stdlib_app.fortunes_page([dict(r) for r in rows]).decode()
    assert changed.count("<td>[") == len(FORTUNES) + 1 and "&lt;script&gt;" in changed
