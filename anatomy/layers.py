"""Which layer of a stack a sampled call stack belongs to: the rule table, and the attribution.

A stack's layers come from its specs: its server's and its app's code paths (ServerSpec and
FrameworkSpec.code_paths, servers/core/specs.py), so nothing here names a server or an entry. A
sample belongs to the layer of the frame nearest its leaf that some rule owns (the longest matching prefix wins, so
`werkzeug/serving.py` is the werkzeug dev server's while the rest of werkzeug is Flask's, and
`tornado/web.py` is tornado's framework while the rest of tornado is its server; a rule
`path#function` owns one function of a file, `tornado/escape.py#xhtml_escape` the template's escaping). Frames no rule
owns (the stdlib: socket, selectors, threading; Go's runtime, syscall, sync) are transparent: their
time goes to the layer that called them, and a stack owned by nobody is the interpreter's.

The tls layer is the server's TLS code as its spec declares it (Tls.code_paths): Python's ssl.py (the
OpenSSL work of SSLSocket and SSLObject, and the socket calls OpenSSL makes through them: a Python
profile cannot split the two), pyOpenSSL, Go's crypto/ (the crypto only: Go's socket writes under it
are net/http's). rustls inside granian and uWSGI's OpenSSL run in native code no Python frame covers:
their share is in the native layer (granian's Rust threads) or the server's, and shows only as the
difference from the same stack in plaintext.

The h2 layer is the server's HTTP/2 framing as its spec declares it (Http2.code_paths): python-hyper's h2, hpack
and hyperframe with the server's own HTTP/2 glue (Hypercorn's protocol/h2.py, gunicorn's http2 package, twisted's
_http2.py, uvicorn's zttp protocol), Go's http2 functions bundled in net/http and its hpack. Rust's hyper inside
granian frames HTTP/2 in native threads no profile of Python frames sees: there it is in the native layer.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from anatomy import recompiled
from servers.core import catalog

SERVER, TLS, H2, FRAMEWORK, APP, TEMPLATE, DRIVER, JSON, INTERPRETER, NATIVE, IDLE = (
    "server", "tls", "h2", "framework", "app", "template", "driver", "json", "interpreter", "native", "idle")
ORDER = (SERVER, TLS, H2, FRAMEWORK, APP, TEMPLATE, DRIVER, JSON, INTERPRETER, NATIVE)  # on-CPU layers; idle is not one
WHAT = {
    SERVER: "accepting, parsing HTTP, writing responses, the event loop or worker machinery",
    TLS: "TLS: handshakes and the record layer's encryption, where a profile sees the server's TLS library "
         "(ssl.py with OpenSSL's socket calls under it, pyOpenSSL, Go's crypto/)",
    H2: "HTTP/2: frames, HPACK, the streams' state and flow control, where a profile sees the server's framing "
        "(python-hyper's h2, hpack, hyperframe and the server's HTTP/2 code, Go's bundled http2)",
    FRAMEWORK: "routing, request/response objects, handler dispatch",
    APP: "this suite's route code (servers/apps, the Go commands' handlers)",
    TEMPLATE: "the template engine: loading, rendering and escaping the page (/fortunes)",
    DRIVER: "Mongo and Redis drivers and this suite's backend access (backends/)",
    JSON: "JSON serialization",
    INTERPRETER: "interpreter/runtime and stdlib frames no layer called (GC, startup, bookkeeping)",
    NATIVE: "threads with CPU time and no Python stack (Rust, C), by thread name",
    IDLE: "the worker waiting: its process's wall time not spent on a CPU",
}

# The suite's own adapters configure and start the server: their frames are the server's. Each
# server's and framework's own code paths are in its spec (ServerSpec/FrameworkSpec.code_paths).
_ADAPTERS = ("servers/adapters/",)

APP_PACKAGES = ("servers/apps/", "main.", "refsuite/servers/go/internal/contract.")
# Every driver's code and the suite's backend access, as backends/drivers.py and redis_clients.py declare them.
DRIVER_PACKAGES = catalog.DRIVER_CODE_PATHS
JSON_PACKAGES = catalog.JSON_CODE_PATHS  # the apps' JSON code, as their specs declare it


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
    for layer, prefixes in ((JSON, JSON_PACKAGES), (DRIVER, DRIVER_PACKAGES), (TEMPLATE, app_spec.template_paths),
                            (APP, APP_PACKAGES), (TLS, server_spec.tls.code_paths), (H2, server_spec.http2.code_paths),
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


def _function(frame: str) -> str:
    """py-spy's `func (path:line)` -> `func` (a method's name without its class)."""
    return frame.rpartition(" (")[0].rpartition(".")[2] if frame.endswith(")") and " (" in frame else ""


def layer_of_frame(frame: str, rules: Rules) -> str | None:
    path = frame_path(frame)
    for prefix, layer in rules.prefixes:
        prefix, _, function = prefix.partition("#")
        if _matches(path, prefix) and (not function or _function(frame) == function):
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
    """CPU (seconds, or samples) by layer and by leaf function, and held time apart from it.

    held: time a thread was sampled in a stack while it was off CPU (py-spy took it for active:
    parked in C, waiting in a recv, a lingering close, a backend call), by (function, layer).
    """

    by_layer: Counter
    by_function: Counter  # (function, layer) -> weight
    held: Counter = field(default_factory=Counter)  # (function, layer) -> seconds

    @property
    def active(self) -> float:
        return sum(v for k, v in self.by_layer.items() if k != IDLE)

    def shares(self) -> dict[str, float]:
        """Percent of the on-CPU time by layer in ORDER, summing to 100 (empty when nothing was on CPU)."""
        total = self.active
        if not total:
            return {}
        return {layer: 100.0 * self.by_layer[layer] / total for layer in ORDER if self.by_layer[layer]}

    def top_functions(self, n: int = 10) -> list[tuple[str, str, float]]:
        """(function, layer, percent of the on-CPU time), the most frequent leaves first."""
        active = sum(self.by_function.values())
        return [(fn, layer, 100.0 * w / active) for (fn, layer), w in self.by_function.most_common(n)] if active else []

    def top_held(self, n: int = 5) -> list[tuple[str, str, float]]:
        """(function, layer, held seconds), the longest first."""
        return [(fn, layer, w) for (fn, layer), w in self.held.most_common(n) if w > 0]


def attribute(stacks: list[tuple[list[str], float]], rules: Rules, scale: float = 1.0) -> Attribution:
    """Every sample weighs the same (Go's pprof samples are on-CPU time already)."""
    by_layer: Counter = Counter()
    by_function: Counter = Counter()
    for frames, count in stacks:
        frames = [recompiled.real_frame(f) for f in frames]
        layer = layer_of_stack(frames, rules)
        by_layer[layer] += count * scale
        by_function[(function_name(frames[-1]), layer)] += count * scale
    return Attribution(by_layer, by_function)


def thread_of(frames: list[str]) -> tuple[int | None, list[str]]:
    """py-spy --threads puts `thread (TID): name` (or `thread (TID)`, under gevent) first: (TID, the rest)."""
    if frames and frames[0].startswith("thread (") and ")" in frames[0]:
        try:
            return int(frames[0][8:frames[0].index(")")], 0), frames[1:]
        except ValueError:
            pass
    return None, frames


def attribute_threads(stacks: list[tuple[list[str], float]], rules: Rules, thread_cpu: dict[int, float],
                      process_cpu: float, names: dict[int, str] | None = None,
                      wall: list[tuple[list[str], float]] = (), wall_rate: float = 1.0,
                      main_tid: int | None = None) -> Attribution:
    """On-CPU time only: each thread's CPU seconds over the window spread over its on-CPU samples.

    stacks are on-CPU samples (py-spy --gil), so a thread parked in C has none and adds nothing.
    py-spy's choice of the GIL holder is not exact between threads (a loop thread that just gave
    the GIL up may still be sampled), so each thread's own CPU time (thread_cpu, from /proc) sets
    its weight; a thread's system calls (send, recv: the GIL released) go with the Python code of
    that thread that made them. Threads sampled but gone by the end of the window share what the
    process used beyond the threads seen at both ends; a Python thread with CPU but no on-CPU
    sample (a pool thread busy in short bursts) is spread over all samples; a thread with CPU time
    and no Python stack in either sampling (Rust, C) is native, by name. wall (samples of every
    thread, waiting or not) gives the held time: a function's wall time minus its CPU time.
    """
    stacks, wall = _main_thread_after_fork(stacks, thread_cpu, main_tid), _main_thread_after_fork(wall, thread_cpu, main_tid)
    samples: Counter = Counter()
    parsed = []
    for frames, count in stacks:
        tid, rest = thread_of(frames)
        if rest:
            parsed.append((tid, [recompiled.real_frame(f) for f in rest], count))
            samples[tid] += count
    python = set(samples) | {thread_of(frames)[0] for frames, _ in wall}
    gone = [tid for tid in samples if tid not in thread_cpu]
    leftover = max(0.0, process_cpu - sum(thread_cpu.values()))
    gone_samples = sum(samples[tid] for tid in gone)
    weight = {tid: thread_cpu[tid] / samples[tid] for tid in samples if tid in thread_cpu}
    weight.update({tid: leftover / gone_samples for tid in gone} if gone_samples else {})
    # A Python thread whose CPU fell between on-CPU samples (a pool thread of many, each busy in
    # short bursts) is spread over the process's samples rather than called native.
    unplaced = sum(cpu for tid, cpu in thread_cpu.items() if tid not in samples and tid in python)
    unplaced += 0.0 if gone_samples else leftover
    total_samples = sum(samples.values())
    attribution = Attribution(Counter(), Counter())
    for tid, frames, count in parsed:
        layer = layer_of_stack(frames, rules)
        cpu = count * (weight[tid] + (unplaced / total_samples if total_samples else 0.0))
        attribution.by_layer[layer] += cpu
        attribution.by_function[(function_name(frames[-1]), layer)] += cpu
    for tid, cpu in thread_cpu.items():
        if tid not in samples and tid not in python and cpu > 0:
            attribution.by_layer[NATIVE] += cpu
            attribution.by_function[(f"thread {(names or {}).get(tid, tid)}", NATIVE)] += cpu
    for frames, count in wall:
        frames = [recompiled.real_frame(f) for f in thread_of(frames)[1]]
        if frames:
            attribution.held[(function_name(frames[-1]), layer_of_stack(frames, rules))] += count / wall_rate
    for key in list(attribution.held):
        attribution.held[key] = max(0.0, attribution.held[key] - attribution.by_function.get(key, 0.0))
    return attribution


def _main_thread_after_fork(stacks: list[tuple[list[str], float]], thread_cpu: dict[int, float],
                            main_tid: int | None) -> list[tuple[list[str], float]]:
    """A worker forked from an embedding C program (uWSGI) keeps the thread id its interpreter
    recorded before the fork: py-spy reports the parent's id. One sampled id that is no thread of
    the process while its main thread has none is that main thread."""
    ids = {thread_of(frames)[0] for frames, _ in stacks} - {None}
    strangers = [tid for tid in ids if tid not in thread_cpu]
    if main_tid is None or main_tid in ids or main_tid not in thread_cpu or len(strangers) != 1:
        return list(stacks)
    return [([f"thread ({main_tid})", *thread_of(frames)[1]] if thread_of(frames)[0] == strangers[0] else frames, count)
            for frames, count in stacks]


def with_native_share(attribution: Attribution, layer: str, share: float, function: str) -> Attribution:
    """The attribution with `share` of its on-CPU time moved to `layer` as one function: native code that
    ran without the GIL (OpenSSL, measured by perf), whose time the GIL samples had spread over every
    layer of its thread; the rest is scaled down to keep the total."""
    share = min(max(share, 0.0), 1.0)
    active = attribution.active
    keep = 1.0 - share
    by_layer = Counter({k: v * keep if k != IDLE else v for k, v in attribution.by_layer.items()})
    by_function = Counter({k: v * keep for k, v in attribution.by_function.items()})
    by_layer[layer] += share * active
    by_function[(function, layer)] += share * active
    return Attribution(by_layer, by_function, attribution.held)


def merge(parts: list[Attribution]) -> Attribution:
    by_layer: Counter = Counter()
    by_function: Counter = Counter()
    held: Counter = Counter()
    for part in parts:
        by_layer.update(part.by_layer)
        by_function.update(part.by_function)
        held.update(part.held)
    return Attribution(by_layer, by_function, held)
