"""The locustfile of bench's locust tool: one route, parametrised by --bench-path (with {id} drawn
at random over 1..--bench-users per request, as wrk's Lua script does).

FastHttpUser, not HttpUser: the default HttpUser sends through requests/urllib3, which costs
several times the CPU per request of geventhttpclient, so on a fast server the load generator,
not the server, would be measured (locust's docs: "FastHttpUser ... 4-5 times more requests/s").
No wait time: every user is one keep-alive connection that sends its next request as soon as the
answer is in (a closed loop, as wrk's connections).

A non-2xx answer is marked failed with the message "HTTP <code>"; a request without an answer
keeps the exception locust records (ConnectionRefusedError, a timeout, ...). loadtools.locust
tells those apart. At the end the master (or the only process) prints one line `BENCH-LOCUST {...}`:
locust's own final totals, percentiles and errors (its _stats.csv can miss the workers' last
reports: it is written every second, and was seen ending at 1151 of 2165 requests), the workers
that ran (host names from locust's own client ids). Not locust's CPU readings: it samples every
5 s, so a short run reads 0.

Remote workers need only locust installed: `locust -f - --worker --master-host MASTER` fetches
this file from the master, and the custom arguments are forwarded by the master at the start.
"""
from __future__ import annotations

import json
import random
import socket

from locust import FastHttpUser, constant, events, task
from locust.runners import LocalRunner, MasterRunner

MARKER = "BENCH-LOCUST "
PERCENTILES = (0.5, 0.9, 0.95, 0.99, 0.999)


@events.init_command_line_parser.add_listener
def _arguments(parser) -> None:
    parser.add_argument("--bench-path", default="/", help="route to load; {id} is drawn over 1..--bench-users")
    parser.add_argument("--bench-users", type=int, default=10_000, help="ids are drawn over 1..N")
    parser.add_argument("--bench-timeout", type=float, default=5.0, help="per-request timeout, seconds")


class Route(FastHttpUser):
    wait_time = constant(0)
    max_retries = 0  # a lost request is an error, not retried

    def __init__(self, environment) -> None:
        options = environment.parsed_options
        self.network_timeout = self.connection_timeout = options.bench_timeout  # read by FastHttpUser
        super().__init__(environment)
        self.template = options.bench_path
        self.users = max(1, int(options.bench_users))
        self.prefix, self.has_id, self.suffix = self.template.partition("{id}")

    @task
    def get(self) -> None:
        path = (f"{self.prefix}{random.randint(1, self.users)}{self.suffix}" if self.has_id
                else self.template)
        with self.client.get(path, name=self.template, catch_response=True) as response:
            code = response.status_code
            if code and not 200 <= code < 300:
                response.failure(f"HTTP {code}")


_seen: dict = {"environment": None, "workers": []}


@events.init.add_listener
def _keep(environment, **kwargs) -> None:
    _seen["environment"] = environment


@events.test_stop.add_listener
def _workers(environment, **kwargs) -> None:
    """Who ran the load, while the master still lists its workers (they leave as it quits)."""
    runner = environment.runner
    if isinstance(runner, MasterRunner):
        _seen["workers"] = [{"host": c.id.rsplit("_", 1)[0]} for c in runner.clients.values()]
    elif isinstance(runner, LocalRunner):
        _seen["workers"] = [{"host": socket.gethostname()}]


@events.quit.add_listener
def _report(exit_code, **kwargs) -> None:
    """locust's own final stats (the workers' last reports included) as one line for the parser."""
    environment = _seen["environment"]
    runner = environment.runner if environment else None
    if not isinstance(runner, (MasterRunner, LocalRunner)):
        return  # a worker: its master reports
    total = environment.stats.total
    report = {
        "mode": "distributed" if isinstance(runner, MasterRunner) else "standalone",
        "exit_code": exit_code,
        "num_requests": total.num_requests, "num_failures": total.num_failures,
        "start_time": total.start_time, "last_request_timestamp": total.last_request_timestamp,
        "avg_ms": total.avg_response_time, "max_ms": total.max_response_time,
        # locust's percentiles: over its histogram of rounded response times (see loadtools.locust)
        "percentiles_ms": {str(q): total.get_response_time_percentile(q) if total.num_requests else None
                           for q in PERCENTILES},
        "errors": [{"error": str(e.serialize()["error"]), "occurrences": e.occurrences}
                   for e in environment.stats.errors.values()],
        "workers": _seen["workers"],
    }
    print(MARKER + json.dumps(report), flush=True)
