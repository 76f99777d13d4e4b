"""Which entries and operations to run: names, globs and tags of the catalog (`--servers`, `--ops`).

--servers takes a comma list. Each item is an entry name (`sanic`), an fnmatch glob over names
(`flask_*`), a tag (`production`, `dev-only`), a language (`python`, `go`), or a framework, server
or model (`falcon`, `gunicorn-gevent`, `greenlets`); `kind:value` forces one reading
(`framework:sanic` is sanic and sanic_motor, `sanic` alone is the entry). `!item` removes.
--ops takes operation names (`hello`, `mongo-pooled`), families (`mongo`, `redis`: both of each)
or `all`; an entry runs only the operations it supports.
"""
from __future__ import annotations

import fnmatch

from servers.core import catalog
from servers.core.catalog import Entry

KINDS = ("name", "tag", "language", "framework", "server", "model")


def _values(entry: Entry, kind: str) -> set[str]:
    if kind == "name":
        return {entry.name}
    if kind == "tag":
        return set(entry.tags)
    return {str(getattr(entry, kind))}


def _match(item: str) -> list[Entry]:
    kind, sep, value = item.partition(":")
    if sep and kind in KINDS:
        return [e for e in catalog.ENTRIES if any(fnmatch.fnmatchcase(v, value) for v in _values(e, kind))]
    if item in catalog.BY_NAME:
        return [catalog.BY_NAME[item]]
    if any(ch in item for ch in "*?["):
        return [e for e in catalog.ENTRIES if fnmatch.fnmatchcase(e.name, item)]
    for kind in KINDS[1:]:
        found = [e for e in catalog.ENTRIES if item in _values(e, kind)]
        if found:
            return found
    return []


def vocabulary() -> str:
    tags = sorted({t for e in catalog.ENTRIES for t in e.tags})
    frameworks = sorted({e.framework for e in catalog.ENTRIES})
    return (f"names: {' '.join(e.name for e in catalog.ENTRIES)}; tags: {' '.join(tags)}; "
            f"languages: python go; frameworks: {' '.join(frameworks)}")


def select_entries(spec: str | list[str]) -> list[Entry]:
    """The entries spec selects, in catalog order; ValueError naming an item that matches nothing."""
    items = [i.strip() for i in (spec.split(",") if isinstance(spec, str) else spec) if i.strip()]
    chosen: set[str] = set()
    if items and all(i.startswith("!") for i in items):
        chosen = set(catalog.BY_NAME)
    for item in items:
        negate = item.startswith("!")
        found = _match(item[1:] if negate else item)
        if not found:
            raise ValueError(f"--servers: {item!r} matches no catalog entry ({vocabulary()})")
        names = {e.name for e in found}
        chosen = chosen - names if negate else chosen | names
    return [e for e in catalog.ENTRIES if e.name in chosen]


WS_FAMILY = "ws"  # --ops ws: both WebSocket operations (not in "all": their load is wsload's, not the HTTP tool's)


def select_ops(spec: str | list[str] | None) -> list[str]:
    """Operation names in contract order from names, families (hello, mongo, redis, ws) or all (the HTTP ones)."""
    items = [i.strip() for i in (spec.split(",") if isinstance(spec, str) else (spec or ["all"])) if i.strip()]
    wanted: set[str] = set()
    for item in items:
        if item == "all":
            wanted |= set(catalog.ALL_OPS)
        elif item in catalog.OPERATIONS or item in catalog.WS_OPERATIONS:
            wanted.add(item)
        elif item in catalog.FAMILIES:
            wanted |= set(catalog.FAMILIES[item])
        elif item == WS_FAMILY:
            wanted |= set(catalog.WS_OPS)
        else:
            raise ValueError(f"--ops: unknown operation {item!r} (operations: "
                             f"{', '.join((*catalog.OPERATIONS, *catalog.WS_OPERATIONS))}; families: "
                             f"{', '.join((*catalog.FAMILIES, WS_FAMILY))}; or all, the HTTP operations)")
    return [op for op in (*catalog.OPERATIONS, *catalog.WS_OPERATIONS) if op in wanted]


