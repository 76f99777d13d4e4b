"""Coordinated omission: a server that stalls its event loop for 1 s once during a 10 s run.

The open-loop step (loadtools/openloop.py: vegeta at 1,000/s, latency from each request's
intended send time) must show the stall in its p99: about 10 % of the requests were due while the
loop slept. A closed-loop tool without correction (hey, 50 connections) sends nothing while its 50
requests wait, so only 50 of its requests see the stall and its p99 stays at a few ms. Both run at
once, each against its own server, so the test costs one 10 s run.
"""
from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from processes.bounded import run_bounded
from processes.tree import stop
from loadtools import LoadSpec, get
from loadtools.openloop import OpenLoop, parse_csv

STALL_SERVER = Path(__file__).with_name("stall_server.py")
RATE, SECONDS = 1000, 10


def start_stall_server() -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, str(STALL_SERVER), "--stall-at", "4", "--stall", "1"],
                            stdout=subprocess.PIPE, text=True, start_new_session=True)
    line = proc.stdout.readline()
    assert line.startswith("listening on "), line
    return proc, line.split()[-1]


@pytest.mark.alone  # its latencies and sent rate are timing
def test_open_loop_p99_shows_a_stall_that_closed_loop_hides(tmp_path, need_tool):
    need_tool("vegeta")
    hey = need_tool("hey")
    open_server, open_url = start_stall_server()
    closed_server, closed_url = start_stall_server()
    try:
        tool = OpenLoop()
        spec = LoadSpec(base_url=open_url, path="/", workdir=tmp_path, stem="co")
        argv = tool.command(spec, RATE, SECONDS)
        closed = {}
        hey_thread = threading.Thread(target=lambda: closed.update(done=run_bounded(
            [hey, "-c", "50", "-z", f"{SECONDS}s", closed_url + "/"], timeout=SECONDS + 30)))
        hey_thread.start()
        done = run_bounded(argv, timeout=tool.time_limit(SECONDS, spec.timeout_s))
        hey_thread.join(SECONDS + 40)
        assert done.returncode == 0, done.stderr
        step = parse_csv(tool.collect(spec), RATE, SECONDS)
        closed_m = get("hey").parse({"stdout": closed["done"].stdout})
    finally:
        stop(open_server)
        stop(closed_server)
    open_p99, open_own_p99, closed_p99 = step.latency_ms["p99"], step.service_ms["p99"], closed_m.latency_ms["p99"]
    print(f"\n1 s stall in a 10 s run: open loop (vegeta {RATE}/s) p99 {open_p99:.1f} ms from the intended "
          f"send ({open_own_p99:.1f} ms from vegeta's actual send); closed loop (hey -c 50) p99 "
          f"{closed_p99:.1f} ms, its slowest {closed_m.latency_ms['max']:.0f} ms")
    assert step.sent >= 0.9 * RATE * SECONDS
    assert open_p99 >= 500
    assert closed_p99 < 500
    assert closed_m.latency_ms["max"] >= 900  # hey saw the stall: it just counted it 50 times, not 1,000
