"""The load tools: one module each (wrk, ab, hey, vegeta, locust, h2load), each builds its command and parses its output.

TOOLS maps an HTTP tool's name to its class (the choices of --tool); get(name) returns an instance, of those or of
wsload, the tool of the WebSocket operations (loadtools/ws.py), which no HTTP operation takes. Nothing here starts a
server.
"""
from __future__ import annotations

from loadtools.ab import Ab
from loadtools.base import LoadSpec, Tool, ToolMissing, Unsupported
from loadtools.h2load import H2load
from loadtools.hey import Hey
from loadtools.locust import Locust
from loadtools.vegeta import Vegeta
from loadtools.wrk import Wrk
from loadtools.ws import WsLoad

TOOLS: dict[str, type[Tool]] = {"wrk": Wrk, "ab": Ab, "hey": Hey, "vegeta": Vegeta, "locust": Locust, "h2load": H2load}
DEFAULT_TOOL = "wrk"


WS_TOOL = WsLoad.name


def get(name: str) -> Tool:
    try:
        return WsLoad() if name == WS_TOOL else TOOLS[name]()
    except KeyError:
        raise KeyError(f"unknown tool {name!r}; one of {', '.join(TOOLS)}") from None


__all__ = ["TOOLS", "DEFAULT_TOOL", "WS_TOOL", "get", "LoadSpec", "Tool", "ToolMissing", "Unsupported"]
