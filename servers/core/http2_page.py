"""Where each server speaks HTTP/2, as a table of docs/http2.md (written by `python -m servers.generate` from the
servers' specs, Http2 in servers/core/specs.py): the framing library, the modes it serves by default and with
--http2, what it does not serve and why, and in which process and thread the frames are handled.
"""
from __future__ import annotations

from servers.core import catalog, specs, tables

MODE_WORDS = {specs.ALPN: "h2 (ALPN)", specs.PRIOR_KNOWLEDGE: "h2c prior knowledge", specs.UPGRADE: "h2c Upgrade"}


def _modes(modes: tuple[str, ...]) -> str:
    return ", ".join(MODE_WORDS[m] for m in modes) or "–"


def markdown() -> str:
    """One row per server that speaks HTTP/2, then one line for those that do not."""
    rows, without = [], []
    for spec in catalog.SERVERS.values():
        page = f"[{spec.name}](servers/{spec.lesson}.md)" if spec.lesson else spec.name
        h2 = spec.http2
        if not h2.speaks:
            without.append(f"{page} ({h2.cannot})")
            continue
        rows.append([page, h2.library, _modes(h2.default), _modes(h2.flag_adds), h2.missing or "–", h2.where])
    table = tables.markdown_table(["server", "framing", "by default", "--http2 adds", "not served", "where"], rows)
    return f"{table}\n\nNo HTTP/2 of their own (their entries refuse `--http2`): " + "; ".join(without) + "."
