"""The catalog as a table: its rows (`python -m servers` prints them) and the README's Markdown table
(`python -m servers --markdown`; `python -m servers.generate` writes it into the README).
"""
from __future__ import annotations

from pathlib import Path

from servers.core import catalog, lessons, tables

COLUMNS = ("name", "language", "framework", "server", "model", "workers", "tags", "description", "limits", "tls",
           "lessons")


def rows() -> list[dict[str, str]]:
    out = []
    for entry in catalog.ENTRIES:
        workers = str(entry.workers) if entry.workers is not None else "per core"
        tags = ", ".join(entry.tags)
        out.append({"name": entry.name, "language": entry.language, "framework": entry.framework,
                    "server": entry.server, "model": entry.model, "workers": workers, "tags": tags,
                    "description": entry.description,
                    "limits": "; ".join(filter(None, (entry.dev_only_reason, *entry.caveat_texts))),
                    "tls": entry.tls.library if entry.tls.terminates else "none",
                    "lessons": " ".join(lessons.pages(entry))})
    return out


def markdown_table() -> str:
    def cells(row: dict[str, str]) -> list[str]:
        links = ", ".join(f"[{Path(page).parent.name[:-1]}]({page})" for page in row["lessons"].split())
        return [f"`{row['name']}`", *(row[c] for c in COLUMNS[1:-1]), links]

    return tables.markdown_table(COLUMNS, (cells(row) for row in rows()))
