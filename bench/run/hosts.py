"""Where the pieces of a run were: the backend URL a route used (credentials removed) and the load
tool's master address, for the result records (Result.backends, load_hosts, load_master)."""
from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

from servers.core import catalog


def without_credentials(url: str) -> str:
    """mongodb://user:${PASSWORD}@db:27017/test?authSource=admin -> mongodb://db:27017/test?authSource=admin."""
    if not url:
        return ""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))


def backends_of(operation: str, urls: dict[str, str]) -> dict[str, str]:
    """{backend: URL} of the backend the operation goes through ({} for hello and json)."""
    backend = catalog.backend_of(operation)
    url = urls.get(backend, "") if backend else ""
    return {backend: without_credentials(url)} if url else {}


def load_master(argv: list[str]) -> str:
    """HOST:PORT of a locust master (loadtools.locust_cluster's --bind/--port), else ""."""
    if "loadtools.locust_cluster" not in argv:
        return ""
    value = lambda flag: argv[argv.index(flag) + 1] if flag in argv else ""  # noqa: E731
    return f"{value('--bind')}:{value('--port')}"
