"""The WebSocket probe bed (wsgrid/): its two servers answer a legitimate client alike and differ where the
probes look (the default suite), and each attack probe judges the faulty server degraded or down and the correct
one held (`-m wsgrid`, about 2 minutes): a probe that could not tell them apart would not be in the grid."""
from __future__ import annotations

import http.client
import subprocess
import sys

import pytest
from websockets.sync.client import connect

from h2grid.judge import DEGRADED, DOWN, HELD, summary
from processes.ports import free_port
from processes.tree import stop
from serverproc import ROOT
from wsgrid import frames, probes, runner
from wsgrid.server import LIMIT, MODES


@pytest.fixture(scope="module", params=MODES)
def bed(request):
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "wsgrid.server", "--mode", request.param, "--port", str(port)],
                              cwd=ROOT, stdout=subprocess.PIPE, text=True, start_new_session=True)
    assert "listening on" in server.stdout.readline()
    yield request.param, port
    stop(server)


def test_both_servers_echo_a_legitimate_client(bed):
    _, port = bed
    with connect(f"ws://127.0.0.1:{port}/ws/echo", compression=None) as ws:
        for message in ("text é", b"\x00binary", b"x" * 70_000):
            ws.send(message)
            assert ws.recv(timeout=5) == message
        ws.send(["frag", "ments"])
        assert ws.recv(timeout=5) == "fragments"
        assert ws.ping(b"p").wait(5)


def test_a_plain_get_is_refused(bed):
    _, port = bed
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    conn.request("GET", "/ws/echo")
    assert conn.getresponse().status == 400
    conn.close()


def test_only_the_correct_server_bounds_a_message(bed):
    mode, port = bed
    code = frames.oversized_close_code(port, "/ws/echo", LIMIT + 1, timeout=3.0)
    assert code == (1009 if mode == "correct" else None), (mode, code)


@pytest.mark.wsgrid
@pytest.mark.parametrize("name", sorted(probes.PROBES))
def test_the_probe_tells_the_faulty_server_from_the_correct_one(name):
    faulty = runner.probe_bed("faulty", name)
    correct = runner.probe_bed("correct", name)
    assert faulty.exercised and correct.exercised, (faulty.sent, correct.sent)
    assert faulty.judgement.outcome in (DEGRADED, DOWN), summary(faulty.judgement)
    assert correct.judgement.outcome == HELD, summary(correct.judgement)
