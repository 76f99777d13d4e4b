"""How tables and charts name a stack: the entry, with what sets it apart from the same entry elsewhere in a run.

An entry on an interpreter other than its own (the GIL twin: servers/core/interpreters.py), on a protocol other
than plaintext HTTP/1.1 (harness/protocols.py), given a number of server cores (the cores axis). One function,
so a run's rows, ramps and answers name a stack the same way.
"""
from __future__ import annotations

from servers.core import catalog, interpreters

BASE_PROTOCOL = "h1"


def interpreter_name(key: str) -> str:
    """How a table names an interpreter: its label ('3.13', '3.14t', 'default'), or its key where unknown."""
    try:  # another version's lane too (a run made with FT_VERSION=3.14)
        return interpreters.get(key).label
    except KeyError:
        return key


def interpreter_label(entrypoint: str, interpreter: str) -> str:
    """'' where the stack runs on its entry's own interpreter (or none is known), else the interpreter's label."""
    entry = catalog.BY_NAME.get(entrypoint)
    if not interpreter or entry is None or interpreter == entry.interpreter:
        return ""
    return interpreter_name(interpreter)


def stack(entrypoint: str, protocol: str = BASE_PROTOCOL, interpreter: str = "", cores: int | None = None) -> str:
    """'flask_granian', 'flask_granian on 3.13', 'sanic h1-tls', 'flask_granian_ft (2 cores)'."""
    text = entrypoint
    if on := interpreter_label(entrypoint, interpreter):
        text += f" on {on}"
    if protocol and protocol != BASE_PROTOCOL:
        text += f" {protocol}"
    if cores:
        text += f" ({cores} core{'s' if cores > 1 else ''})"
    return text
