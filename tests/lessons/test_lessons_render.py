"""`python -m anatomy --docs --links-only` (what the contributor guide and every server page tell a writer to
run) re-renders every page without a page name, and a page it cannot render (a trace never recorded, a
source link to a package no spec declares) gets one line saying what to do, never a traceback, while the
other pages are still written. Run on a copy of docs/, so the real pages stay as they are."""
from __future__ import annotations

import shutil

import pytest

from anatomy import __main__ as anatomy_cli
from anatomy import docs
from servers.core.lessons import DOCS


@pytest.fixture
def pages(tmp_path, monkeypatch):
    """A copy of the lesson pages that the renderer reads and writes instead of docs/ (the stored traces
    and anatomies stay where they are: they are read only)."""
    copy = tmp_path / "docs"
    shutil.copytree(DOCS, copy, ignore=shutil.ignore_patterns("data"))
    monkeypatch.setattr(docs, "DOCS", copy)
    return copy


def test_links_only_without_a_page_name_renders_every_page_and_changes_none(pages, capsys):
    assert anatomy_cli.main(["--docs", "--links-only"]) == 0, capsys.readouterr().err
    out = capsys.readouterr()
    assert out.out.startswith("0 pages changed"), out  # the committed pages are current
    assert not out.err


def test_a_page_that_cannot_render_is_named_with_what_to_do_and_the_others_are_written(pages, capsys):
    new = pages / "servers" / "newserver.md"
    new.write_text("# A new server\n\n<!-- trace: flask_newserver -->\n<!-- /trace -->\n")
    untyped = pages / "servers" / "other.md"
    untyped.write_text("# Another\n\nIts loop: [`Server.serve`](src:newserverlib/server.py).\n")
    waitress = pages / "servers" / "waitress.md"
    current = waitress.read_text()
    waitress.write_text(current.replace("/waitress/blob/v3.0.2/", "/waitress/blob/v0.0.1/"))  # a stale tag

    assert anatomy_cli.main(["--docs", "--links-only"]) == 1
    out = capsys.readouterr()
    errors = [line for line in out.err.splitlines() if line]
    assert "Traceback" not in out.err
    assert set(errors) >= {
        "error: docs/servers/newserver.md: no trace of flask_newserver: run `python -m anatomy --trace flask_newserver`",
        "error: docs/servers/other.md: src:newserverlib/server.py: no spec module's SOURCES names the package "
        "'newserverlib' (its GitHub repository, tag and folder: see servers/adapters/waitress_server_spec.py)",
    }, out.err
    assert "servers/waitress.md" in out.out.split(": ", 1)[1].split(), out.out
    assert waitress.read_text() == current  # the pages that render are written all the same


def test_a_page_name_that_names_no_page_is_said(pages, capsys):
    assert anatomy_cli.main(["--docs", "--links-only", "flask_waitress"]) == 1
    assert "flask_waitress: no lesson page of that name" in capsys.readouterr().err
    assert anatomy_cli.main(["--docs", "--links-only", "waitress"]) == 0
