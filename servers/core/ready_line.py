"""The ready line: what an entry prints once it serves, and how its starters read it.

`listening on http://HOST:PORT (NAME, N workers)`, or https:// when the entry serves HTTPS (its
--certfile and --keyfile): tests, the benchmark and compose checks wait for it instead of sleeping. Written by servers.core.launch (and uWSGI's master hook), read here.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

READY = re.compile(r"^listening on (?P<url>https?://\S+) \((?P<name>[^,]+), (?P<workers>\d+) workers?\)$")


def announcement(url: str, name: str, workers: int) -> str:
    return f"listening on {url} ({name}, {workers} workers)"


@dataclass(frozen=True)
class ReadyLine:
    line: str
    url: str
    name: str
    workers: int

    @property
    def tls(self) -> bool:
        return self.url.startswith("https://")

    @property
    def port(self) -> int:
        return urlsplit(self.url).port or (443 if self.tls else 80)

    @property
    def host(self) -> str:
        return urlsplit(self.url).hostname or ""


def parse(line: str) -> ReadyLine | None:
    """The ready line's parts, or None when `line` is another line."""
    match = READY.match(line.rstrip("\n"))
    if match is None:
        return None
    return ReadyLine(match.group(0), match["url"], match["name"], int(match["workers"]))
