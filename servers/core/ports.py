"""Compose's published ports, stable by service name: compose/ports.json, committed.

A service keeps the port it was first given; a new one takes the next port after the highest ever
given (so adding a stack moves no other port, and a removed stack's port is not handed to another).
`python -m servers.generate` writes the registry with the compose files; tests/test_compose.py fails
when it lacks a service or names a port twice. The registry started from the positional ports of
before (8000 + 10 x the catalog position + the family's index), so no published port moved.
"""
from __future__ import annotations

import json
from pathlib import Path

REGISTRY = Path(__file__).resolve().parents[2] / "compose" / "ports.json"
FIRST_PORT = 8010  # 8000: nginx, 8001 and 8002: the mongo and redis backends


def load(path: Path = REGISTRY) -> dict[str, int]:
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        return {}


def assign(services: list[str], registry: dict[str, int]) -> dict[str, int]:
    """service -> port for every service: its registered port, or for a new one (in the given order)
    the next after the highest registered. Services no longer there drop out of the result."""
    ports = {name: registry[name] for name in services if name in registry}
    following = max(registry.values(), default=FIRST_PORT - 1) + 1
    for name in services:
        if name not in ports:
            ports[name], following = following, following + 1
    return ports


def render(ports: dict[str, int]) -> str:
    """The registry file: one service a line, by port."""
    return json.dumps(dict(sorted(ports.items(), key=lambda item: item[1])), indent=2) + "\n"
