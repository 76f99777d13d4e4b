"""The catalog as a table: its rows (`python -m servers` prints them) and the Markdown table of
docs/catalog.md (`python -m servers --markdown`; `python -m servers.generate` writes it into that page).
The page's limits column names each caveat by its key and links its text on docs/caveats.md.
"""
from __future__ import annotations

from pathlib import Path

from servers.core import catalog, lessons, specs, tables

COLUMNS = ("name", "language", "framework", "server", "model", "workers", "tags", "description", "limits", "tls",
           "h2", "ws", "lessons")
# HTTP/2's modes as the h2 column names them (servers/core/specs.py Http2)
MODE_NAMES = {specs.ALPN: "ALPN", specs.PRIOR_KNOWLEDGE: "h2c prior knowledge", specs.UPGRADE: "h2c Upgrade"}


def http2_cell(http2: specs.Http2) -> str:
    """The h2 column: the framing library and its modes, each marked (--http2) where the flag turns it on."""
    if not http2.speaks:
        return "none"
    modes = ", ".join(MODE_NAMES[m] + ("" if m in http2.default else " (--http2)") for m in http2.modes)
    return f"{http2.library}: {modes}"


def size(n: int | None) -> str:
    return "no limit" if n is None else f"{n >> 20} MiB" if n % (1 << 20) == 0 else f"{n >> 10} KiB"


def websocket_cell(entry: catalog.Entry) -> str:
    """The ws column: what frames its WebSockets and the largest message its stack takes (its default beside, where
    it differs), or "none" where it serves no WebSocket route (Entry.ws_cannot says why: `python -m servers --json`)."""
    if not entry.ws_ops:
        return "none"
    ws = entry.websocket
    default = "" if ws.default_max_message == ws.max_message else f" (default {size(ws.default_max_message)})"
    return f"{ws.library}: {size(ws.max_message)} a message{default}"


CAVEATS_PAGE = "caveats.md"  # beside docs/catalog.md


def rows() -> list[dict[str, str]]:
    out = []
    for entry in catalog.ENTRIES:
        workers = str(entry.workers) if entry.workers is not None else "per core"
        tags = ", ".join(entry.tags)
        out.append({"name": entry.name, "language": entry.language, "framework": entry.framework,
                    "server": entry.server, "model": entry.model, "workers": workers, "tags": tags,
                    "description": entry.description,
                    "limits": "; ".join(filter(None, (entry.dev_only_reason, *entry.caveat_texts))),
                    "tls": entry.tls.library if entry.tls.terminates else "none", "h2": http2_cell(entry.http2),
                    "ws": websocket_cell(entry), "lessons": " ".join(lessons.pages(entry))})
    return out


def markdown_table() -> str:
    """docs/catalog.md's table: links relative to docs/, a caveat as its key linked to its text."""
    def cells(entry: catalog.Entry, row: dict[str, str]) -> list[str]:
        links = ", ".join(f"[{Path(page).parent.name[:-1]}]({page.removeprefix('docs/')})"
                          for page in row["lessons"].split())
        caveats = " ".join(f"[{key}]({CAVEATS_PAGE}#{key})" for key in entry.caveats)
        limits = "; ".join(filter(None, (entry.dev_only_reason, caveats)))
        return [f"`{row['name']}`", *(row[c] for c in COLUMNS[1:-5]), limits, row["tls"], row["h2"], row["ws"], links]

    return tables.markdown_table(COLUMNS, (cells(entry, row) for entry, row in zip(catalog.ENTRIES, rows())))
