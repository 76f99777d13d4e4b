"""The load every tool sends unless told otherwise: connections, duration, timeout, the ids' range.

bench's run defaults (bench/defaults.py) start from these; a LoadSpec (loadtools/base.py) is made of them.
"""
from __future__ import annotations

from backends import DEFAULT_USERS as USERS  # ids are drawn over the seeded users 1..USERS

CONNECTIONS = 50
DURATION_S = 10.0
TIMEOUT_S = 5.0

__all__ = ["CONNECTIONS", "DURATION_S", "TIMEOUT_S", "USERS"]
