"""The one Markdown table writer: docs/catalog.md's table, bench's results.md, the reliability summary."""
from __future__ import annotations

from typing import Callable, Iterable, Sequence


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[object]],
                   right: Callable[[str], bool] = lambda column: False) -> str:
    """A GitHub Markdown table; a column for which right(title) is true is right-aligned (numbers)."""
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---:" if right(title) else "---" for title in header) + "|"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)
