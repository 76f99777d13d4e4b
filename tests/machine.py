"""What the rest of the machine took while a test waited on a server: a bound a busy machine moves (a
latency, a stop) is judged against it, and a failure names it, so a busy machine is told from a slow server."""
from __future__ import annotations

import psutil


class MachineShare:
    """What the rest of the machine took while a test waited on a server: the CPU time of processes outside
    this test process and its descendants (the server, the load tool), and the hypervisor's steal, in percent
    of the machine's CPU time."""

    def __init__(self, server) -> None:
        self.server = server
        self._times = psutil.cpu_times()
        self._ours = self._our_cpu()

    def _our_cpu(self) -> float:
        """This process's CPU, its reaped children's (a server that has exited and been waited for, its workers
        included) and its live descendants' (the server, the load tool)."""
        mine = psutil.Process()
        times = mine.cpu_times()
        total = times.user + times.system + times.children_user + times.children_system
        for proc in {*mine.children(recursive=True), *self.server.tree()}:
            try:
                times = proc.cpu_times()
                total += times.user + times.system
            except psutil.Error:
                pass
        return total

    def over(self) -> dict:
        now = psutil.cpu_times()
        wall = sum(now) - sum(self._times)
        busy = wall - (now.idle - self._times.idle) - (getattr(now, "iowait", 0) - getattr(self._times, "iowait", 0))
        steal = getattr(now, "steal", 0.0) - getattr(self._times, "steal", 0.0)
        ours = self._our_cpu() - self._ours
        foreign = max(0.0, busy - steal - ours)
        return {"foreign_cpu_pct": round(100 * foreign / wall, 1) if wall else None,
                "steal_pct": round(100 * steal / wall, 1) if wall else None}

    def allowance(self, seconds: float, foreign_pct: float | None, most: float) -> float:
        """A bound of `seconds` on a quiet machine, stretched by the share of the machine other processes
        took meanwhile (the server had that much less of it), at most `most`."""
        free = 1.0 - min(0.9, (foreign_pct or 0.0) / 100.0)
        return min(most, seconds / free)
