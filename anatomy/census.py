"""Who runs what: a server's process tree under load, each process's role, threads, CPU and RSS.

Sampled from outside with psutil. CPU is the user+system time a process spent between the first
and the last sample, as a percent of one core over that window. Roles:
- worker: a process that serves requests: the only process, or a child of the entry's process
  that holds the server's listen socket or client connections;
- supervisor: the entry's process when it has children (gunicorn's arbiter, Sanic's main process,
  uvicorn's and granian's supervisors, the pre-forking gevent parent): it starts, watches and
  replaces workers and serves nothing itself (its CPU stays near 0);
- spawner: a helper of the process machinery (multiprocessing's resource tracker or fork server);
- helper: any other child (Sanic's multiprocessing manager, which shares state between workers).
A worker that the kernel gave no connection shows as a worker with 0 client connections and no CPU.
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field

import psutil

WORKER, SUPERVISOR, SPAWNER, HELPER = "worker", "supervisor", "spawner", "helper"
_SPAWNER_MARKS = ("resource_tracker", "forkserver", "semaphore_tracker")


@dataclass
class ProcessInfo:
    pid: int
    ppid: int
    name: str
    command: str
    role: str = WORKER
    threads: int = 0
    cpu_percent: float = 0.0  # of one core over the window
    cpu_s: float = 0.0
    rss_mb: float = 0.0  # peak

    def as_dict(self) -> dict:
        return asdict(self)


def _cpu(proc: psutil.Process) -> float:
    t = proc.cpu_times()
    return t.user + t.system


def _command(proc: psutil.Process) -> str:
    try:
        argv = proc.cmdline()
    except (psutil.Error, OSError):
        argv = []
    text = " ".join(argv) or proc.name()
    return text if len(text) <= 90 else text[:87] + "..."


@dataclass
class Census:
    """census.sample() repeatedly during the load, then census.result(client_pids)."""

    root: int
    first_cpu: dict[int, float] = field(default_factory=dict)
    last_cpu: dict[int, float] = field(default_factory=dict)
    info: dict[int, ProcessInfo] = field(default_factory=dict)
    started: float = 0.0
    ended: float = 0.0

    def tree(self) -> list[psutil.Process]:
        try:
            root = psutil.Process(self.root)
            return [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            return []

    def pids(self) -> list[int]:
        return [p.pid for p in self.tree()]

    def sample(self) -> None:
        now = time.monotonic()
        self.started = self.started or now
        self.ended = now
        for proc in self.tree():
            try:
                with proc.oneshot():
                    cpu, threads, rss = _cpu(proc), proc.num_threads(), proc.memory_info().rss
                    info = self.info.get(proc.pid)
                    if info is None:
                        info = self.info[proc.pid] = ProcessInfo(proc.pid, proc.ppid(), proc.name(), _command(proc))
            except (psutil.NoSuchProcess, psutil.ZombieProcess, psutil.AccessDenied):
                continue
            self.first_cpu.setdefault(proc.pid, cpu)
            self.last_cpu[proc.pid] = cpu
            info.threads = max(info.threads, threads)
            info.rss_mb = max(info.rss_mb, round(rss / 2**20, 1))

    def result(self, serving: set[int] | None = None) -> list[ProcessInfo]:
        """The processes seen, with their roles and their CPU over the window."""
        window = max(self.ended - self.started, 1e-9)
        infos = sorted(self.info.values(), key=lambda i: (i.pid != self.root, i.pid))
        for info in infos:
            info.cpu_s = round(self.last_cpu[info.pid] - self.first_cpu[info.pid], 3)
            info.cpu_percent = round(100.0 * info.cpu_s / window, 1)
        assign_roles(infos, self.root, serving)
        return infos


def assign_roles(infos: list[ProcessInfo], root: int, serving: set[int] | None = None) -> None:
    """The root alone is the worker; with children it supervises them. A child is a worker when it
    holds the server's listen socket or client connections (serving), else a spawner or a helper."""
    for info in infos:
        if info.pid == root:
            info.role = SUPERVISOR if len(infos) > 1 else WORKER
        elif any(mark in info.command for mark in _SPAWNER_MARKS):
            info.role = SPAWNER
        elif serving is None or info.pid in serving:
            info.role = WORKER
        else:
            info.role = HELPER
