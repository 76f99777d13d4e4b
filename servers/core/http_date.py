"""The Date header value, formatted once per second (for frameworks that send none themselves)."""
from __future__ import annotations

import time
from email.utils import formatdate

_cache: tuple[int, str] = (0, "")


def http_date() -> str:
    global _cache
    now = int(time.time())
    if _cache[0] != now:
        _cache = (now, formatdate(now, usegmt=True))
    return _cache[1]
