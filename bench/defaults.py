"""A run's defaults, written once: the command line (bench/cli.py), Settings (bench/plan.py),
the presets (bench/presets.py) and a tool's LoadSpec (bench/tools/base.py) all start from these."""
from __future__ import annotations

from backends import DEFAULT_USERS as USERS  # ids are drawn over the seeded users 1..USERS

CONNECTIONS = 50
DURATION_S = 10.0
WARMUP_S = 1.0
TIMEOUT_S = 5.0
REPEATS = 1

__all__ = ["CONNECTIONS", "DURATION_S", "WARMUP_S", "TIMEOUT_S", "REPEATS", "USERS"]
