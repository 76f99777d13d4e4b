"""The WebSocket operations in the benchmark (docs/websockets.md): selected by name or the ws family and never by
"all", planned only where the stack serves them (the catalog says why not), loaded by wsload whatever --tool says,
ws-broadcast on one worker and without a capacity ramp; wsload's echo-rate report read as a step of the ramp. No
process is run."""
from __future__ import annotations

import pytest

from bench.planning import plan, selection
from loadtools import LoadSpec, Unsupported, WS_TOOL, get, ws
from servers.core import catalog


def test_ws_operations_are_chosen_by_name_or_family_never_by_all():
    assert selection.select_ops("ws") == ["ws-echo", "ws-broadcast"]
    assert selection.select_ops("hello,ws-echo") == ["hello", "ws-echo"]
    assert not set(selection.select_ops("all")) & set(catalog.WS_OPERATIONS)


def test_a_stack_without_websockets_is_skipped_with_its_reason():
    p = plan.build(plan.Settings(servers=["flask_gunicorn"], ops=["ws-echo"], capacity_ops=["ws-echo"]))
    assert not p.runs
    assert any("WSGI has no upgrade path" in line for line in p.skipped), p.skipped


def test_ws_echo_is_ramped_by_wsload_and_broadcast_runs_closed_loop_on_one_worker():
    s = plan.Settings(servers=["starlette_uvicorn"], ops=["hello", "ws-echo", "ws-broadcast"], tool="wrk",
                      capacity_ops=["hello", "ws-echo", "ws-broadcast"])
    p = plan.build(s)
    tools = {(r.operation, r.mode): r.tool for r in p.runs}
    assert tools[("ws-echo", "capacity")] == WS_TOOL and tools[("hello", "capacity")] == "vegeta"
    assert tools[("ws-echo", "")] == WS_TOOL and tools[("hello", "")] == "wrk"
    (broadcast,) = [e for e in p.entries if any(r.operation == "ws-broadcast" for r in e.runs)]
    assert broadcast.workers == 1 and all(r.operation == "ws-broadcast" and not r.mode for r in broadcast.runs)
    assert any("ws-broadcast: no capacity ramp" in line for line in p.skipped), p.skipped


def test_ws_operations_run_over_h1_only():
    p = plan.build(plan.Settings(servers=["starlette_uvicorn"], ops=["ws-echo"], protocols=["h1-tls"]))
    assert not p.runs and any("over h1 only" in line for line in p.skipped), p.skipped


def test_wsload_takes_the_mode_from_the_route_and_the_loop():
    tool = get(WS_TOOL)
    base = dict(base_url="http://127.0.0.1:5000", connections=16, duration_s=3.0)
    argv = tool.command(LoadSpec(path="/ws/echo", **base))
    assert argv[argv.index("-url") + 1] == "ws://127.0.0.1:5000/ws/echo" and argv[argv.index("-mode") + 1] == "echo"
    argv = tool.command(LoadSpec(path="/ws/echo", rate=2000, **base))
    assert argv[argv.index("-mode") + 1] == "echo-rate" and argv[argv.index("-rate") + 1] == "2000"
    argv = tool.command(LoadSpec(path="/ws/broadcast", **base))
    assert argv[argv.index("-mode") + 1] == "broadcast"
    with pytest.raises(Unsupported, match="closed-loop"):
        tool.check(LoadSpec(path="/ws/broadcast", rate=100, **base))


REPORT = """{"tool": "wsload", "library": "github.com/coder/websocket v1.8.14", "mode": "echo-rate", "url": "ws://x",
 "conns": 64, "size": 32, "text": false, "rate": 1000, "duration_s": 2.0, "connected": 64, "sent": 2000,
 "received": 1990, "completed": 1985, "completed_all": 2980, "lost": 10, "per_s": 992.5, "sent_per_s": 1000,
 "received_per_s": 995, "combined_per_s": 1995, "latency_ms": {"p50": 0.4, "p90": 0.9, "p95": 1.2, "p99": 3.5,
 "p99.9": 9.0, "max": 12.0, "mean": 0.6}, "send_lag_ms": {"p99": 0.2, "max": 1.5},
 "errors": {"connect": 0, "read": 0, "write": 0, "timeout": 0, "mismatch": 5}, "error_samples": [], "cpu_s": 0.3,
 "cpu_per_message_us": 7.5}"""


def test_an_echo_rate_report_is_a_step_of_the_ramp():
    step = ws.WsOpenLoop.measure(REPORT, 1000)
    assert (step.sent, step.ok, step.completed, step.non_2xx, step.total_completed) == (2000, 1985, 1990, 5, 2980)
    assert step.errors == {"timeout": 10} and step.latency_ms["p99"] == 3.5 and step.send_lag_p99_ms == 0.2
    assert step.sent_rate == 1000 and step.success_ratio == pytest.approx(1985 / 2000)
