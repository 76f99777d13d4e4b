"""CPU pinning with taskset: the server on the first cores, the load tool on the others.

On a 2-core machine that is server on cpu 0, load tool on cpu 1, so neither steals the other's
core; the local backends (redis-server, FerretDB) are left unpinned. What was done is recorded
with every result (a 1-core machine or a missing taskset means no pinning, and says so).
"""
from __future__ import annotations

import shutil
from dataclasses import asdict, dataclass, field

from servers.core.cores import usable_cpus


def cpu_list(cpus: list[int]) -> str:
    return ",".join(str(c) for c in cpus)


@dataclass
class Pinning:
    enabled: bool
    server_cpus: list[int] = field(default_factory=list)
    tool_cpus: list[int] = field(default_factory=list)
    method: str = "none"
    backends: str = "unpinned"
    reason: str = ""

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
        return f"taskset: server on {server}, load tool on cpu {cpu_list(self.tool_cpus)}; backends unpinned"


def plan(requested: bool, server_cores: int | None = None, local_server: bool = True) -> Pinning:
    """The pinning to use: requested (--pin/--no-pin), server_cores (default half of the cores)."""
    cpus = usable_cpus()
    if not requested:
        return Pinning(False, reason="--no-pin")
    if len(cpus) < 2:
        return Pinning(False, reason=f"only {len(cpus)} usable core")
    if shutil.which("taskset") is None:
        return Pinning(False, reason="taskset not found (apt-get install util-linux)")
    if not local_server:  # --target: only the load tool is ours to pin
        return Pinning(True, [], cpus, method="taskset", reason="server started elsewhere")
    count = server_cores or len(cpus) // 2
    count = max(1, min(count, len(cpus) - 1))
    return Pinning(True, cpus[:count], cpus[count:], method="taskset",
                   reason=f"{len(cpus)} usable cores: {count} for the server, {len(cpus) - count} for the tool")
