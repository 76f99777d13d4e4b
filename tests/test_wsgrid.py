"""The WebSocket probe bed (wsgrid/): its two servers answer a legitimate client alike and differ where the
probes look (the default suite), and each attack probe judges the faulty server degraded or down and the correct
one held (`-m wsgrid`, about 2 minutes): a probe that could not tell them apart would not be in the grid. Then the
grid's records (wsgrid/grid.py): every framing owner with every probe pinned on its installed versions, and
docs/websockets.md's table written from them."""
from __future__ import annotations

import http.client
import subprocess
import sys

import pytest
from websockets.sync.client import connect

from harness import versions
from h2grid.judge import DEGRADED, DOWN, HELD, Judgement, summary
from processes.ports import free_port
from processes.tree import stop
from serverproc import ROOT
from servers.core import derived
from wsgrid import frames, grid, probes, runner
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


# ------------------------------------------------------------------ the grid's records (no server)


@pytest.mark.parametrize("owner", grid.owners())
def test_every_owner_has_every_probe_recorded_on_its_installed_versions(owner):
    data = grid.pinned(owner)
    assert data, f"{owner}: no WebSocket probe record (python -m wsgrid grid --stack {owner} --record)"
    assert set(data["probes"]) == set(probes.PROBES) and data["complete"], sorted(data["probes"])
    installed = versions.for_entry(owner, websocket=True)
    moved = {k: (v, installed.get(k)) for k, v in data["versions"].items() if installed.get(k) != v}
    assert not moved, f"{owner}: recorded on other versions than installed (recorded, installed): {moved}"
    for name, pin in data["probes"].items():
        assert pin["outcome"] in (HELD, DEGRADED, DOWN, grid.NOT_EXERCISED), (name, pin)


def test_an_exercised_probe_is_never_pinned_from_an_unexercised_run():
    """A probe that did not reach its path is "not exercised" whatever the judge said (it saw no attack)."""
    result = runner.ProbeResult("deflate-bomb", Judgement(HELD, ["all answers within 2 s"]),
                                {"ending": "not exercised: the server refused permessage-deflate"})
    assert grid.summary(result)["outcome"] == grid.NOT_EXERCISED


def test_the_docs_table_is_the_records():
    text = (ROOT / "docs" / "websockets.md").read_text()
    assert derived.splice(text, grid.DOCS_START, grid.DOCS_END, grid.markdown(), ROOT) == text, \
        "docs/websockets.md's probe table differs from the records: python -m wsgrid docs"
