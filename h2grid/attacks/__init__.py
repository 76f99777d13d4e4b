"""The attack probes, one module each (its ATTACK), by key in the order the grid and the docs show them.

A module is imported only when its attack runs (as uvicorn's config maps a name to an import path).
"""
from __future__ import annotations

import importlib

from h2grid.attacks.base import Attack

MODULES: dict[str, str] = {
    "rapid-reset": "h2grid.attacks.rapid_reset",
    "continuation-flood": "h2grid.attacks.continuation_flood",
    "hpack-bomb": "h2grid.attacks.hpack_bomb",
    "made-you-reset": "h2grid.attacks.made_you_reset",
    "ping-flood": "h2grid.attacks.ping_flood",
    "settings-flood": "h2grid.attacks.settings_flood",
    "reset-flood": "h2grid.attacks.reset_flood",
    "empty-frames": "h2grid.attacks.empty_frames",
    "zero-length-headers": "h2grid.attacks.zero_length_headers",
    "data-dribble": "h2grid.attacks.data_dribble",
    "resource-loop": "h2grid.attacks.resource_loop",
    "data-buffering": "h2grid.attacks.data_buffering",
    "unread-reflections": "h2grid.attacks.unread_reflections",
}
KEYS = tuple(MODULES)


def get(key: str) -> Attack:
    try:
        module = MODULES[key]
    except KeyError:
        raise KeyError(f"no attack {key!r}; one of {', '.join(KEYS)}") from None
    return importlib.import_module(module).ATTACK
