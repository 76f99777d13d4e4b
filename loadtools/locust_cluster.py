"""`python -m loadtools.locust_cluster --workers N --bind HOST --port P -- MASTER-ARGS`: locust's
distributed mode on this machine, as one command the benchmark can bound and kill.

Starts N local `locust --worker` processes connecting to HOST:P, then the master in the foreground
(`--master --master-bind-host HOST --master-bind-port P` plus MASTER-ARGS, which say how many workers
to expect: remote ones too). When this process was started pinned to some cores (the benchmark's
taskset for its load tool), each worker is pinned to one of them in turn, as harness.pinning pins
the other tools; unpinned, the workers float. The master's output is this command's output; the
workers' goes to stderr. When the master ends, workers still running are stopped.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time

from harness import pinning
from servers.core.cores import usable_cpus

LOCUST = [sys.executable, "-m", "locust"]


def worker_prefixes(count: int) -> list[list[str]]:
    """taskset -c CPU per worker when this process is confined to fewer cores than the machine has."""
    allowed = usable_cpus()
    confined = len(allowed) < (os.cpu_count() or len(allowed))
    if not confined or shutil.which("taskset") is None:
        return [[] for _ in range(count)]
    return [["taskset", "-c", pinning.cpu_list([allowed[i % len(allowed)]])] for i in range(count)]


def worker_command(locustfile: str, host: str, port: int) -> list[str]:
    return [*LOCUST, "-f", locustfile, "--worker", "--master-host", host, "--master-port", str(port)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m loadtools.locust_cluster")
    parser.add_argument("--workers", type=int, required=True, help="local worker processes")
    parser.add_argument("--bind", required=True, help="address the master listens on (workers connect to it)")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--locustfile", required=True)
    parser.add_argument("master", nargs=argparse.REMAINDER, help="-- then the master's own arguments")
    args = parser.parse_args(argv)
    master_args = args.master[1:] if args.master[:1] == ["--"] else args.master
    workers: list[subprocess.Popen] = []
    try:
        for prefix in worker_prefixes(args.workers):
            workers.append(subprocess.Popen([*prefix, *worker_command(args.locustfile, args.bind, args.port)],
                                            stdout=sys.stderr, stderr=sys.stderr))
        master = subprocess.run([*LOCUST, "-f", args.locustfile, "--master", "--master-bind-host", args.bind,
                                 "--master-bind-port", str(args.port), *master_args])
        return master.returncode
    finally:
        deadline = time.monotonic() + 10  # workers quit when their master does
        for proc in workers:
            try:
                proc.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


if __name__ == "__main__":
    sys.exit(main())
