"""A run's defaults, written once: the command line (bench/cli.py), Settings (bench/plan.py),
the presets (bench/presets.py), a tool's LoadSpec (bench/tools/base.py) and the noise probe
(bench/noise.py) all start from these."""
from __future__ import annotations

from backends import DEFAULT_USERS as USERS  # ids are drawn over the seeded users 1..USERS

CONNECTIONS = 50
DURATION_S = 10.0
WARMUP_S = 1.0
TIMEOUT_S = 5.0
REPEATS = 1
NOISE_THRESHOLD_PCT = 15.0  # a run is noisy when the noise probe moved more than this

__all__ = ["CONNECTIONS", "DURATION_S", "WARMUP_S", "TIMEOUT_S", "REPEATS", "NOISE_THRESHOLD_PCT", "USERS"]
