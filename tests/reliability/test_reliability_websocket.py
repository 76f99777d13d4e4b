"""What a WebSocket server does with open sockets when it is told to stop (docs/websockets.md): each framing owner
of the catalog (catalog.ws_owner: the server alone, or Sanic, tornado and each Go library), with its default
workers, holding 100 sockets that have each echoed once, gets SIGTERM; it must exit 0 within the contract's 5 s with
no worker left, and every client must see its socket end the way the server's spec says (WebSocket.on_sigterm: a
close frame with that code, or the TCP connection ended without one, 1006 to the client).
"""
from __future__ import annotations

import threading
import time
from collections import Counter
from contextlib import ExitStack

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from machine import MachineShare
from servers.core import catalog
from test_hello_contract import STOP_S, STOP_WAIT_MOST_S  # the contract's 5 s, and a busy machine's stretch
from wsgrid import grid

pytestmark = pytest.mark.reliability

SOCKETS = 100
SEEN_WITHIN_S = 5.0  # after the exit, how long a client may take to see its socket end
NO_CLOSE_FRAME = 1006  # what a client reports when the connection ended without a close frame (RFC 6455 7.1.5)


def _ending(ws, deadline: float) -> int | str:
    """The close code the server sent on this socket, 1006 for none, "open" if it never ended."""
    try:
        while time.monotonic() < deadline:
            ws.recv(timeout=max(0.1, deadline - time.monotonic()))
    except ConnectionClosed as closed:
        return closed.rcvd.code if closed.rcvd is not None else NO_CLOSE_FRAME
    except TimeoutError:
        pass
    return "open"


@pytest.mark.parametrize("name", grid.owners())
def test_sigterm_with_100_sockets_open_ends_each_as_the_spec_says_and_exits_within_5s(name, start_server):
    server = start_server(name)
    url = f"ws://127.0.0.1:{server.port}/ws/echo"
    with ExitStack() as opened:
        sockets = []
        for i in range(SOCKETS):
            ws = opened.enter_context(connect(url, compression=None, open_timeout=10))
            sockets.append(ws)
            ws.send(f"open {i}")
            assert ws.recv(timeout=10) == f"open {i}"
        machine = MachineShare(server)
        code, elapsed, survivors = server.terminate(timeout=STOP_WAIT_MOST_S)
        busy = machine.over()
        deadline = time.monotonic() + SEEN_WITHIN_S
        endings: list[int | str] = [None] * SOCKETS
        readers = [threading.Thread(target=lambda i=i: endings.__setitem__(i, _ending(sockets[i], deadline)))
                   for i in range(SOCKETS)]
        for reader in readers:
            reader.start()
        for reader in readers:
            reader.join()
    allowed = machine.allowance(STOP_S, busy["foreign_cpu_pct"], most=STOP_WAIT_MOST_S)
    waited = f"waited {elapsed:.1f} s of the {allowed:.1f} s allowed (the machine's other processes took " \
             f"{busy['foreign_cpu_pct']}% of its CPU)"
    seen = Counter(endings)
    assert code == 0, f"exit code {code} after SIGTERM with {SOCKETS} sockets open; {waited}; sockets: {dict(seen)}"
    assert elapsed <= allowed, f"{waited}; sockets: {dict(seen)}"
    assert not survivors, f"workers left behind: {survivors}"
    expected = catalog.get(name).websocket.on_sigterm
    assert seen == {expected: SOCKETS}, \
        f"the sockets ended {dict(seen)} ({elapsed:.1f} s to exit), the spec says {expected} for each"
