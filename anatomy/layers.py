"""Which layer of a stack a sampled call stack belongs to: the rule table, and the attribution.

A stack's layers come from its specs: its server's and its app's code paths (ServerSpec and
FrameworkSpec.code_paths, servers/core/specs.py), so nothing here names a server or an entry. A
sample belongs to the layer of the frame nearest its leaf that some rule owns (the longest matching prefix wins, so
`werkzeug/serving.py` is the werkzeug dev server's while the rest of werkzeug is Flask's, and
`tornado/web.py` is tornado's framework while the rest of tornado is its server). Frames no rule
owns (the stdlib: socket, selectors, threading; Go's runtime, syscall, sync) are transparent: their
time goes to the layer that called them, and a stack owned by nobody is the interpreter's.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from servers.core import catalog

SERVER, FRAMEWORK, APP, DRIVER, JSON, INTERPRETER, IDLE = (
    "server", "framework", "app", "driver", "json", "interpreter", "idle")
ORDER = (SERVER, FRAMEWORK, APP, DRIVER, JSON, INTERPRETER, IDLE)
WHAT = {
    SERVER: "accepting, parsing HTTP, writing responses, the event loop or worker machinery",
    FRAMEWORK: "routing, request/response objects, handler dispatch",
    APP: "this suite's route code (servers/apps, the Go commands' handlers)",
    DRIVER: "Mongo and Redis drivers and this suite's backend access (backends/)",
    JSON: "JSON serialization",
    INTERPRETER: "interpreter/runtime and stdlib frames no layer called (GC, startup, bookkeeping)",
    IDLE: "the worker waiting: its process's wall time not spent on a CPU",
}

# The suite's own adapters configure and start the server: their frames are the server's. Each
# server's and framework's own code paths are in its spec (ServerSpec/FrameworkSpec.code_paths).
_ADAPTERS = ("servers/adapters/",)

APP_PACKAGES = ("servers/apps/", "main.", "refsuite/servers/go/internal/contract.")
# redis/asyncio/ by name: the event loop's "asyncio/" (a server's code path) would own it otherwise.
DRIVER_PACKAGES = ("pymongo/", "bson/", "gridfs/", "motor/", "flask_pymongo/", "redis/", "redis/asyncio/", "hiredis/",
                   "glide/", "glide_shared/", "coredis/", "dns/", "backends/",
                   "go.mongodb.org/", "github.com/redis/go-redis/", "refsuite/servers/go/internal/backend.")
JSON_PACKAGES = ("json/", "orjson", "ujson", "simplejson/", "encoding/json.", "github.com/bytedance/sonic",
                 "github.com/goccy/go-json", "github.com/json-iterator/", "github.com/ugorji/go/codec")


@dataclass(frozen=True)
class Rules:
    """The prefix -> layer table of one stack, and the names it shows for server and framework."""

    prefixes: tuple[tuple[str, str], ...]  # longest first
    server: str
    framework: str

    def label(self, layer: str) -> str:
        if layer == SERVER:
            return f"server ({self.server})"
        if layer == FRAMEWORK:
            return f"framework ({self.framework})"
        return layer


def rules_for(server: str, app: str) -> Rules:
    """The table of a stack from its specs: catalog.SERVERS[entry.server], catalog.APPS[entry.app]."""
    server_spec, app_spec = catalog.SERVERS[server], catalog.APPS[app]
    table: dict[str, str] = {}
    for layer, prefixes in ((JSON, JSON_PACKAGES), (DRIVER, DRIVER_PACKAGES), (APP, APP_PACKAGES),
                            (SERVER, server_spec.code_paths + _ADAPTERS), (FRAMEWORK, app_spec.code_paths)):
        for prefix in prefixes:
            table.setdefault(prefix, layer)  # a shared prefix keeps the more specific layer listed first
    ordered = tuple(sorted(table.items(), key=lambda kv: -len(kv[0])))
    return Rules(ordered, server, app_spec.framework)


def frame_path(frame: str) -> str:
    """py-spy's `func (path/to/file.py:123)` -> `path/to/file.py`; a Go frame is its function name."""
    if frame.endswith(")") and " (" in frame:
        return frame[frame.rindex(" (") + 2:-1].rsplit(":", 1)[0]
    return frame


def _matches(path: str, prefix: str) -> bool:
    return path.startswith(prefix) or f"/{prefix}" in path or f"site-packages/{prefix}" in path


def layer_of_frame(frame: str, rules: Rules) -> str | None:
    path = frame_path(frame)
    for prefix, layer in rules.prefixes:
        if _matches(path, prefix):
            return layer
    return None


def layer_of_stack(frames: list[str], rules: Rules) -> str:
    """frames root first: the layer of the owned frame nearest the leaf, else the interpreter."""
    for frame in reversed(frames):
        layer = layer_of_frame(frame, rules)
        if layer is not None:
            return layer
    return INTERPRETER


def parse_collapsed(text: str) -> list[tuple[list[str], float]]:
    """Collapsed stacks (`a;b;c 12` per line, as py-spy --format raw and flamegraph.pl write)."""
    out = []
    for line in text.splitlines():
        stack, _, count = line.rstrip().rpartition(" ")
        if stack and count:
            try:
                out.append((stack.split(";"), float(count)))
            except ValueError:
                continue
    return out


def function_name(frame: str) -> str:
    """A frame without its line number, so one function's lines add up."""
    if frame.endswith(")") and ":" in frame:
        return frame.rsplit(":", 1)[0] + ")"
    return frame


@dataclass
class Attribution:
    """Samples (or seconds) by layer and by leaf function; idle added from outside."""

    by_layer: Counter
    by_function: Counter  # (function, layer) -> weight

    @property
    def active(self) -> float:
        return sum(v for k, v in self.by_layer.items() if k != IDLE)

    def shares(self) -> dict[str, float]:
        """Percent by layer in ORDER, summing to 100 (empty when nothing was sampled)."""
        total = sum(self.by_layer.values())
        if not total:
            return {}
        return {layer: 100.0 * self.by_layer[layer] / total for layer in ORDER if self.by_layer[layer]}

    def top_functions(self, n: int = 10) -> list[tuple[str, str, float]]:
        """(function, layer, percent of the active samples), the most frequent leaves first."""
        active = sum(self.by_function.values())
        return [(fn, layer, 100.0 * w / active) for (fn, layer), w in self.by_function.most_common(n)] if active else []


def attribute(stacks: list[tuple[list[str], float]], rules: Rules, scale: float = 1.0) -> Attribution:
    by_layer: Counter = Counter()
    by_function: Counter = Counter()
    for frames, count in stacks:
        layer = layer_of_stack(frames, rules)
        by_layer[layer] += count * scale
        by_function[(function_name(frames[-1]), layer)] += count * scale
    return Attribution(by_layer, by_function)


def merge(parts: list[Attribution]) -> Attribution:
    by_layer: Counter = Counter()
    by_function: Counter = Counter()
    for part in parts:
        by_layer.update(part.by_layer)
        by_function.update(part.by_function)
    return Attribution(by_layer, by_function)
