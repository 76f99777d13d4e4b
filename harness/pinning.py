"""CPU pinning with taskset: the server on the first cores, the load tool on the others, and the
local backends (redis-server, FerretDB and its PostgreSQL) placed so the tool's cores stay its own.

On a 2-core machine that is server on cpu 0, load tool on cpu 1, so neither steals the other's
core. A backend started here shares the server's cores (pinned with it) on a machine with fewer
than OWN_BACKEND_CORES cores: a backend call is part of the request the server serves, and its
CPU beside the tool's would make the tool, not the stack, the bound. With more cores the backends
get cores of their own, taken from the tool's side. What was done is recorded with every result
(a 1-core machine or a missing taskset means no pinning, and says so).
"""
from __future__ import annotations

import shutil
import subprocess
from dataclasses import asdict, dataclass, field

import psutil

from servers.core.cores import usable_cpus

OWN_BACKEND_CORES = 6  # from this many usable cores on, the local backends get cores of their own


def cpu_list(cpus: list[int]) -> str:
    return ",".join(str(c) for c in cpus)


@dataclass
class Pinning:
    enabled: bool
    server_cpus: list[int] = field(default_factory=list)
    tool_cpus: list[int] = field(default_factory=list)
    method: str = "none"
    backends: str = "unpinned"  # where local backends run: "with the server", "own cores" or "unpinned"
    reason: str = ""
    backend_cpus: list[int] = field(default_factory=list)

    def server_prefix(self) -> list[str]:
        return ["taskset", "-c", cpu_list(self.server_cpus)] if self.enabled and self.server_cpus else []

    def tool_prefix(self) -> list[str]:
        return ["taskset", "-c", cpu_list(self.tool_cpus)] if self.enabled and self.tool_cpus else []

    def as_dict(self) -> dict:
        return asdict(self)

    def describe(self) -> str:
        if not self.enabled:
            return f"no pinning ({self.reason})"
        server = f"cpu {cpu_list(self.server_cpus)}" if self.server_cpus else "not started here"
        if self.backend_cpus:
            backends = f"local backends on cpu {cpu_list(self.backend_cpus)} ({self.backends})"
        else:
            backends = "no local backends" if self.backends == "none" else "backends unpinned"
        return f"taskset: server on {server}, load tool on cpu {cpu_list(self.tool_cpus)}; {backends}"


TOOL = "load tool"


def placement(pins: dict, backends: list[str] = (), local_server: bool = True) -> dict[str, list[int]]:
    """Which cores each piece of a run had (a Pinning's record, as results carry it): "server", "load tool" and
    each local backend ("mongo": FerretDB and its PostgreSQL; "redis"); every usable core where nothing was
    pinned, [] for a server started elsewhere (--target)."""
    every = usable_cpus()
    enabled = bool(pins.get("enabled"))
    server = (list(pins.get("server_cpus") or []) if enabled else list(every)) if local_server else []
    out = {"server": server, TOOL: list(pins.get("tool_cpus") or []) if enabled else list(every)}
    if pins.get("backends") != "none":
        cpus = list(pins.get("backend_cpus") or []) if enabled and pins.get("backends") != "unpinned" else list(every)
        out.update({backend: cpus for backend in backends})
    return out


def sharing(where: dict[str, list[int]], backend: str | None = None) -> list[str]:
    """What shared the server's cores in a placement: the load tool, and the route's backend (an idle backend on
    the server's cores costs it nothing)."""
    server = set(where.get("server") or ())
    return [role for role in (TOOL, *([backend] if backend else [])) if server & set(where.get(role) or ())]


def cores_to_isolate(server_cores: int) -> int:
    """The fewest usable cores on which plan() gives a server of server_cores, the load tool and the local backends
    cores apart (the backends get their own from OWN_BACKEND_CORES on, the tool keeps at least one)."""
    return max(OWN_BACKEND_CORES, server_cores + 2)


def what_isolates(server_cores: int) -> str:
    """The machine that would isolate a server of server_cores from the load tool and the backends."""
    return (f"a machine of {cores_to_isolate(server_cores)} or more usable cores (the server on {server_cores}, the "
            f"load tool and the local backends on cores of their own), or the three-host layout: the server on a "
            f"host of its own (--target), the load from load hosts, the backends on a third (--mongo-url, "
            f"--redis-url): docs/benchmarks.md")


def measures(shared: list[str]) -> str:
    """What a placement can measure, given what shares the server's cores (sharing())."""
    if not shared:
        return "the server on cores of its own: capacity, cost per request, and scaling across core counts"
    return (f"the server shares its cores with the {' and the '.join(shared)}: cost per request (the server's own "
            f"CPU); its capacity is the stack's together with theirs, never compared on scaling nor threads "
            f"against processes")


def plan(requested: bool, server_cores: int | None = None, local_server: bool = True,
         backends: bool = False) -> Pinning:
    """The pinning to use: requested (--pin/--no-pin), server_cores (default half of the cores; all of them:
    no pinning, the tool shares them), and whether local backends are started (backends: they are placed, see
    the module's docstring)."""
    cpus = usable_cpus()
    if not requested:
        return Pinning(False, reason="--no-pin")
    if len(cpus) < 2:
        return Pinning(False, reason=f"only {len(cpus)} usable core")
    if shutil.which("taskset") is None:
        return Pinning(False, reason="taskset not found (apt-get install util-linux)")
    if not local_server:  # --target: only the load tool is ours to pin
        return Pinning(True, [], cpus, method="taskset", reason="server started elsewhere")
    if server_cores and server_cores >= len(cpus):  # the server on every core: nothing is left for the tool
        return Pinning(False, reason=f"the server on all {len(cpus)} usable cores: the load tool and the backends "
                                     f"share them")
    count = server_cores or len(cpus) // 2
    count = max(1, min(count, len(cpus) - 1))
    server, tool = cpus[:count], cpus[count:]
    reason = f"{len(cpus)} usable cores: {count} for the server, {len(tool)} for the tool"
    if not backends:
        return Pinning(True, server, tool, method="taskset", backends="none", reason=reason)
    own = max(1, len(cpus) // 8)
    if len(cpus) >= OWN_BACKEND_CORES and len(tool) - own >= 1:
        tool, backend_cpus = tool[:-own], tool[-own:]
        reason = f"{len(cpus)} usable cores: {count} for the server, {len(tool)} for the tool, {own} for the backends"
        return Pinning(True, server, tool, method="taskset", backends="own cores", reason=reason,
                       backend_cpus=backend_cpus)
    return Pinning(True, server, tool, method="taskset", backends="with the server", backend_cpus=list(server),
                   reason=reason + f"; the backends share the server's (fewer than {OWN_BACKEND_CORES} cores)")


def pin_tree(pid: int, cpus: list[int]) -> list[int]:
    """Pin a running process, its threads and its children to cpus (taskset -a -p; what they fork or
    spawn later inherits it). Returns the pids pinned."""
    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.Error:
        return []
    pinned = []
    for proc in procs:
        done = subprocess.run(["taskset", "-a", "-p", "-c", cpu_list(cpus), str(proc.pid)],
                              capture_output=True, text=True, timeout=10)
        if done.returncode == 0:
            pinned.append(proc.pid)
    return pinned
