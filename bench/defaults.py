"""A run's defaults, written once: the command line (bench/cli.py), Settings (bench/planning/plan.py),
the presets (bench/planning/presets.py) and the noise probe (bench/noise.py) all start from these; the load's
own (connections, duration, timeout, users) are the load tools' (loadtools/defaults.py)."""
from __future__ import annotations

from loadtools.defaults import CONNECTIONS, DURATION_S, TIMEOUT_S, USERS

WARMUP_S = 1.0
REPEATS = 1
NOISE_THRESHOLD_PCT = 15.0  # a run is noisy when the noise probe moved more than this

__all__ = ["CONNECTIONS", "DURATION_S", "WARMUP_S", "TIMEOUT_S", "REPEATS", "NOISE_THRESHOLD_PCT", "USERS"]
