"""The lesson pages of an entry (docs/servers/*.md, docs/frameworks/*.md), from its catalog facts.

One page per server model and one per framework: entries that share a server or a framework share
its page. `python -m servers --markdown` (the README table) and every entry's --help link them.
"""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"

# catalog server name (Entry.server) -> page under docs/servers/
SERVER_PAGES: dict[str, str] = {
    "werkzeug": "werkzeug-dev", "werkzeug-threaded": "werkzeug-dev", "werkzeug-processes": "werkzeug-dev",
    "gunicorn-sync": "gunicorn-sync", "gunicorn-gthread": "gunicorn-gthread", "gunicorn-gevent": "gunicorn-gevent",
    "gevent": "gevent-prefork", "tornado-wsgi": "tornado", "tornado": "tornado", "twisted-wsgi": "twisted",
    "twisted": "twisted", "wsgiref": "wsgiref", "http.server": "http-server", "http.server-threaded": "http-server",
    "sanic": "sanic", "uvicorn": "uvicorn", "granian-wsgi": "granian", "granian-asgi": "granian",
    "waitress": "waitress", "uwsgi": "uwsgi", "echo": "go-nethttp", "gin": "go-nethttp", "net/http": "go-nethttp",
}
# catalog framework (Entry.framework) -> page under docs/frameworks/ (bare and stdlib: the server's page)
FRAMEWORK_PAGES: dict[str, str] = {
    "flask": "flask", "falcon": "falcon", "sanic": "sanic", "tornado": "tornado", "twisted": "twisted-web",
    "starlette": "starlette-fastapi", "fastapi": "starlette-fastapi", "echo": "go-frameworks",
    "gin": "go-frameworks", "nethttp": "go-frameworks",
}


def pages(entry) -> list[str]:
    """Paths (relative to the repository) of the entry's server page and framework page that exist."""
    out = []
    for folder, table, key in (("servers", SERVER_PAGES, entry.server),
                               ("frameworks", FRAMEWORK_PAGES, entry.framework)):
        if key in table and (DOCS / folder / f"{table[key]}.md").exists():
            out.append(f"docs/{folder}/{table[key]}.md")
    return out
