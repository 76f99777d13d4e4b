"""The WebSocket load tool (loadtools/wsload, loadtools/ws.py): its Go tests (each mode against a correct and a
wrong server of its own), its report parsed into the suite's Measurement, and short runs against Go net/http's
/ws/echo and /ws/broadcast (coder/websocket) through the Python module."""
from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from loadtools import ws

pytestmark = pytest.mark.skipif(shutil.which("go") is None, reason="go not installed: see setup.sh")

REPORT = {
    "tool": "wsload", "library": "github.com/coder/websocket v1.8.14", "mode": "echo-rate", "url": "ws://x",
    "conns": 4, "size": 32, "text": False, "rate": 1000, "duration_s": 2.0, "connected": 4, "sent": 2000,
    "received": 1990, "completed": 1985, "lost": 10, "per_s": 992.5, "sent_per_s": 1000.0,
    "received_per_s": 995.0, "combined_per_s": 1995.0,
    "latency_ms": {"p50": 0.2, "p90": 0.3, "p95": 0.4, "p99": 1.5, "p99.9": 3.0, "max": 4.0, "mean": 0.25},
    "send_lag_ms": {"p99": 0.1}, "errors": {"connect": 0, "read": 1, "write": 0, "timeout": 0, "mismatch": 5},
    "close_codes": {"1009": 1}, "error_samples": ["read: closed"],
}


def test_wsload_go_tests():
    done = subprocess.run(["go", "test", "-count=1", "./..."], cwd=ws.SOURCE, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]


def test_a_report_becomes_a_measurement():
    result = ws.parse(json.dumps(REPORT))
    assert result.close_codes == {"1009": 1} and result.send_lag_ms == {"p99": 0.1}
    m = result.measurement()
    # a wrong echo is an answer that is no success; an echo owed and never seen is a timeout
    assert (m.requests, m.non_2xx, m.errors["timeout"], m.errors["read"]) == (1990, 5, 10, 1)
    assert m.requests_per_s == 992.5 and m.latency_ms["p99"] == 1.5
    assert m.success_ratio == round(1985 / (1990 + 11), 6)
    with pytest.raises(ws.WsLoadError):
        ws.parse(json.dumps({**REPORT, "tool": "vegeta"}))


def test_only_loopback_is_loaded():
    with pytest.raises(ws.WsLoadError, match="loopback"):
        ws.run(ws.WsSpec(url="ws://192.0.2.1:80/ws/echo", duration_s=1))


@pytest.fixture
def nethttp(running):
    return running("nethttp")


def test_echo_and_broadcast_against_go(nethttp):
    base = f"ws://127.0.0.1:{nethttp.port}"
    echo = ws.run(ws.WsSpec(url=base + "/ws/echo", mode="echo", conns=4, size=64, duration_s=1.0))
    assert echo.connected == 4 and echo.completed > 100 and not any(echo.errors.values()), echo
    assert echo.measurement().success_ratio == 1.0
    assert 0 < echo.cpu_per_message_us < 1000, echo  # the tool's own CPU per message, its ceiling
    rate = ws.run(ws.WsSpec(url=base + "/ws/echo", mode="echo-rate", conns=4, size=32, rate=400, duration_s=1.5,
                            warmup_s=0.5))
    assert 350 <= rate.completed <= 450 and rate.lost == 0 and rate.latency_ms["p50"] < 25, rate
    fan = ws.run(ws.WsSpec(url=base + "/ws/broadcast", mode="broadcast", conns=4, size=64, duration_s=1.0))
    assert fan.sent > 50 and fan.received == 4 * fan.sent and fan.lost == 0, fan
    assert fan.combined_per_s == pytest.approx(fan.sent_per_s + fan.received_per_s, rel=1e-3)


def test_fasthttps_read_timeout_ends_with_the_upgrade(running):
    """fasthttp's ReadTimeout (10 s, cmd/fasthttp) bounds a request's read; a socket held idle past it still echoes."""
    server = running("fasthttp")
    idle = ws.run(ws.WsSpec(url=f"ws://127.0.0.1:{server.port}/ws/echo", mode="idle", conns=10, size=16,
                            duration_s=12.0))
    assert idle.connected == 10 and idle.completed == 10 and idle.lost == 0, idle


def test_the_limits_table_derives_the_tools_ceiling_per_core():
    from loadtools import ws_limit

    echo = ws.parse(json.dumps({**REPORT, "mode": "echo", "cpu_per_message_us": 10.0}))
    fan = ws.parse(json.dumps({**REPORT, "mode": "broadcast", "cpu_per_message_us": 10.0}))
    # an echo is two messages (sent and received) of the tool's; a broadcast delivery one
    assert "| 50,000/s |" in ws_limit.row("echo", echo) and "| 100,000/s |" in ws_limit.row("fan", fan)
    assert "| 16 |" in ws_limit.row("echo", echo)  # a read error, 5 wrong echoes and 10 lost, together
