"""What frames each stack's WebSockets, as a table of docs/websockets.md (written by `python -m servers.generate`
from the specs' WebSocket facts, servers/core/specs.py): per framing (an ASGI server, a framework's own server, a Go
library), the largest message the suite's stacks take and the default users get, pings, permessage-deflate, how the
limit is set, where a message is framed and which stacks run on it; then the stacks that serve no WebSocket route
and why.
"""
from __future__ import annotations

from servers.core import catalog, tables
from servers.core.catalog_table import size


def _framings() -> dict[str, list[catalog.Entry]]:
    """Each framing's library -> the stacks that serve the routes on it, in catalog order."""
    out: dict[str, list[catalog.Entry]] = {}
    for entry in catalog.ENTRIES:
        if entry.ws_ops and not entry.free_threaded:
            out.setdefault(entry.websocket.library, []).append(entry)
    return out


# RFC 6455 section 7.4.1 and IANA's registry: what a client learns from each ending
SIGTERM_WORDS = {1000: "closed 1000 (normal)", 1001: "closed 1001 (going away)", 1011: "closed 1011 (internal error)",
                 1012: "closed 1012 (service restart)", 1006: "dropped, no close frame (1006)"}


def _version(answer: tuple[int, str | None]) -> str:
    status, names = answer
    return f"{status}" + (f" naming {names}" if names else "")


def markdown() -> str:
    rows = []
    for library, entries in _framings().items():
        ws = entries[0].websocket
        frame = f", {size(ws.max_frame)} a frame" if ws.max_frame else ""
        rows.append([library, f"{size(ws.max_message)}{frame}", size(ws.default_max_message), ws.pings or "none",
                     "accepted" if ws.deflate else "refused", _version(ws.bad_version),
                     "refused (403)" if ws.checks_origin else "accepted", SIGTERM_WORDS.get(ws.on_sigterm, ws.on_sigterm),
                     ws.setting or "not settable", ws.where,
                     ", ".join(f"`{e.name}`" for e in entries)])
    table = tables.markdown_table(["framing", "largest message (the suite's)", "its default", "server pings",
                                   "permessage-deflate", "a bad version", "a cross-site Origin",
                                   "open sockets on SIGTERM", "set by", "where",
                                   "stacks"], rows)
    reasons: dict[str, list[str]] = {}
    for entry in catalog.ENTRIES:
        if not entry.ws_ops and not entry.free_threaded:
            reasons.setdefault(entry.ws_cannot, []).append(f"`{entry.name}`")
    without = "\n".join(f"- {why}: {', '.join(names)}" for why, names in reasons.items())
    return f"{table}\n\nNo WebSocket route, and why:\n\n{without}"
