"""HTTP/1.1 conformance, observed where each fact lives (tests/conformance; tests/conformance/grid.py).

Each parser owner (catalog.parser_owner: a server's bare app, which reflects what its server handed it)
runs every case of tests/conformance/cases.py in reflect mode; each framework stack runs the app-sensitive
cases (bodies its app leaves unread, its own 404 and 405, Host, and those its app's caveats name) in contract
mode and inherits the rest from its owner; a client variant inherits everything from its base entry. A case
goes alone on a fresh connection, a probe follows the answers, and the judge (tests/conformance/verdict.py)
holds the answers to the reference's framings of the same bytes; a fresh request must then still be answered
(unless the probe was). Every cell is pinned in the stack's record (records/<entry>.json,
tests/conformance/pinning.py), passes included: a cell that differs fails and prints the new one. Racy cells
(a race declared in known.py) run several times, the worst kept. The owners' smuggling-relevant cells that
fail alone run again behind a private nginx and HAProxy (columns of the record), and so do a framework stack's own. test_inherited_cells_agree
runs every inherited case on one framework stack per parser owner and holds it to the owner's cells
(tests/conformance/inheritance.py says what "agrees" means). With CONFORMANCE_RECORD=1 the run writes the
records; `python -m tests.conformance` writes docs/conformance.md.
"""
from __future__ import annotations

import socket
import time

import psutil
import pytest

from conformance import cases, grid, haproxy, inheritance, nginx, pinning, verdict
from conformance.settings import representative
from harness import versions
from reltools import warm
from servers.core import catalog

pytestmark = pytest.mark.reliability

OWNERS = [e.name for e in grid.entries(grid.OWNER)]
FRAMEWORKS = [e.name for e in grid.entries(grid.FRAMEWORK)]
FRONTS = {"nginx": (nginx.Nginx, nginx.binary, nginx.version), "haproxy": (haproxy.Haproxy, haproxy.binary,
                                                                          haproxy.version)}
FRAMING_CASES = [case for case in cases.CASES if case.cls == cases.SMUGGLING]
# One framework stack per parser owner whose inheritance is shown: its plainest app (Flask on WSGI, Starlette on
# ASGI), on the owner's interpreter
INHERITING = sorted({min((e for e in grid.entries(grid.FRAMEWORK) if catalog.parser_owner(e).name == owner),
                         key=lambda e: (representative(e.server) != e.name.removesuffix("_ft"), len(e.name))).name
                     for owner in {catalog.parser_owner(e).name for e in grid.entries(grid.FRAMEWORK)}})


@pytest.fixture(scope="module")
def warmed(shared_server):
    """warmed(name) -> the stack's shared server, once it answers GET /. warmed.settle(name, cell) stops it after a
    cell that left it dead or holding a connection while it grew (a worker stuck reading a body that never comes:
    werkzeug's chunked reader loops at EOF, allocating), so the next case starts on a fresh server."""
    ready: dict[int, int] = {}  # server pid -> its tree's RSS once warm

    def get(name: str):
        server = shared_server(name)
        if server.proc.pid not in ready:
            warm(server)
            ready[server.proc.pid] = _rss(server)
        return server

    def settle(name: str, cell: dict) -> None:
        server = shared_server(name)
        if "dead" in cell["answers"] or (cell["close"] == "held" and _rss(server) > ready.get(server.proc.pid, 0)
                                         + GROWN_BYTES):
            server.kill()

    get.settle = settle
    return get


GROWN_BYTES = 256 * 2 ** 20  # a server tree this much larger than when warm is still busy with a case: restart it


def _rss(server) -> int:
    total = 0
    for process in server.tree():
        try:
            total += process.memory_info().rss
        except psutil.Error:
            pass
    return total


@pytest.fixture(scope="module")
def fronted(warmed):
    """fronted(front, name) -> the port of a private front (nginx, haproxy) before that stack's server."""
    current: dict[tuple[str, int], object] = {}

    def get(front: str, name: str) -> int:
        server = warmed(name)
        key = (front, server.port)
        if key not in current:
            for old_key in [k for k in current if k[1] != server.port]:  # both fronts stay up for one server
                current.pop(old_key).stop()
            current[key] = FRONTS[front][0](server.port).start()
        return current[key].port

    get.settle = warmed.settle
    yield get
    for proxy in current.values():
        proxy.stop()


@pytest.fixture(scope="module", autouse=True)
def pins():
    """With CONFORMANCE_RECORD=1, each stack's cells become its record's conformance section."""
    yield pinning.PINS
    if pinning.ENABLED and pinning.PINS.got:
        fronts = {front: FRONTS[front][2]() for front in FRONTS if FRONTS[front][1]()}
        written = pinning.PINS.write(versions.for_entry, fronts)
        print(f"conformance records: {len(written)} written")


def _params(names: list[str], selected) -> list:
    return [pytest.param(name, case.id, id=f"{name}-{case.id}") for name in names for case in selected]


def _still_serves(port: int, mode: str) -> str:
    """"" if a fresh request is answered 200, else what happened."""
    target = b"/reflect/alive" if mode == cases.REFLECT else b"/"
    request = b"GET " + target + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            sock.sendall(request)
            sock.settimeout(5)
            head = sock.recv(64)
    except OSError as exc:
        return type(exc).__name__
    return "" if head.startswith((b"HTTP/1.1 200", b"HTTP/1.0 200")) else repr(head[:40])


def observe_cell(port, settle, entry: catalog.Entry, case: cases.Case, mode: str, front: str = "") -> tuple[dict, str]:
    """The cell of one case on one server: one run, or the worst of several for a racy one; and its race. While
    recording, every cell runs twice: answers that differ make it racy (its race still to be declared, known.py).
    port() is the server's port (it may have been restarted), settle(cell) restarts a server a run left busy."""
    setup = verdict.setup(case, mode)
    race = grid.front_racy(entry, case.id, front) if front else grid.racy(entry, case.id)

    def once() -> dict:
        cell = _checked(verdict.run(port(), setup)[0].cell(), port(), mode)
        settle(cell)
        return cell

    first = None if race else once()
    if first is not None and pinning.ENABLED and once()["answers"] != first["answers"]:
        race = grid.UNDECLARED
    if not race:
        return first, race
    found = [once() for _ in range(grid.RACY_RUNS_RECORDED_BEHIND_FRONT if front and pinning.ENABLED else grid.RACY_RUNS)]
    runs: dict[str, int] = {}
    for cell in found:
        runs[cell["answers"]] = runs.get(cell["answers"], 0) + 1
    return {**min(found, key=lambda c: verdict.rank(c["effect"])), "runs": dict(sorted(runs.items()))}, race


def _checked(cell: dict, port: int, mode: str) -> dict:
    """The cell, a crash where a fresh request then fails (a connection kept to the probe's answer showed the
    server alive already)."""
    dead = "" if cell["close"] == "kept" else _still_serves(port, mode)
    if dead:
        cell.update(verdict=verdict.FAIL, effect=verdict.CRASH, answers=cell["answers"] + " dead",
                    reading=cell["reading"] + f"; then a fresh request failed: {dead}")
    return cell


def hold(name: str, case: cases.Case, col: str, cell: dict, race: str, results) -> None:
    """Record the cell, and hold it to its pin."""
    pinning.PINS.add(name, col, case.id, cell)
    results.verdict(name, "conformance" if col == pinning.NONE else f"conformance_{col}", case.id,
                    cell["effect"] or verdict.PASS, f"{cell['answers']}: {cell['reading']}")
    if pinning.ENABLED:
        return
    pin = pinning.pinned(name, case.id, col)
    changed = pinning.differs(pin, cell, bool(race)) if col == pinning.NONE else pinning.front_differs(pin, cell, bool(race))
    if changed:
        pinning.PINS.failure(name)
        label = name if col == pinning.NONE else f"{name} behind {col}"
        pytest.fail(f"{label}: case {case.id} ({case.cls}, RFC {case.rfc}) {changed}\nnew cell: {cell}\n"
                    f"pinned:   {pin}\n" + (f"race: {race}\n" if race else "")
                    + "see whether the framing moved, then rewrite the record (CONFORMANCE_RECORD=1, "
                      f"tests/conformance/pinning.py)\nsent: {case.request(grid.mode(catalog.get(name)))[:300]!r}")


def _needs_record(name: str) -> None:
    if not pinning.ENABLED and not pinning.recorded(name):
        pytest.skip(f"{name} has no conformance record to hold it to (unverified): write it with CONFORMANCE_RECORD=1 "
                    f"./test.sh -m reliability tests/reliability/test_reliability_conformance.py -k {name}")


@pytest.mark.parametrize("name,case_id", _params(OWNERS, cases.CASES))
def test_parser_owner(name, case_id, warmed, results):
    """Every case on a server's parser owner, in reflect mode."""
    _needs_record(name)
    entry, case = catalog.get(name), cases.BY_ID[case_id]
    cell, race = observe_cell(lambda: warmed(name).port, lambda c: warmed.settle(name, c), entry, case, cases.REFLECT)
    hold(name, case, pinning.NONE, cell, race, results)


@pytest.mark.parametrize("name,case_id", [pytest.param(name, case.id, id=f"{name}-{case.id}") for name in FRAMEWORKS
                                           for case in grid.selected(catalog.get(name))])
def test_framework_stack(name, case_id, warmed, results):
    """The app-sensitive cases on a framework stack, in contract mode (the rest is its owner's): those of
    cases.Case.app, and those a caveat of its app on that server names (grid.selected)."""
    _needs_record(name)
    entry, case = catalog.get(name), cases.BY_ID[case_id]
    cell, race = observe_cell(lambda: warmed(name).port, lambda c: warmed.settle(name, c), entry, case,
                              cases.CONTRACT)
    hold(name, case, pinning.NONE, cell, race, results)


def _owner_cell(name: str, case_id: str) -> dict | None:
    return pinning.PINS.got.get(name, {}).get(pinning.NONE, {}).get(case_id) or pinning.pinned(name, case_id)


@pytest.mark.parametrize("front", sorted(FRONTS))
@pytest.mark.parametrize("name,case_id", _params(OWNERS, FRAMING_CASES))
def test_behind_front(front, name, case_id, fronted, results):
    """An owner's framing case that does not pass alone, again behind a front: does the front close it?"""
    if FRONTS[front][1]() is None:
        pytest.skip(f"no {front} (apt-packages.txt)")
    alone = _owner_cell(name, case_id)
    if alone is None or alone.get("effect") not in verdict.FRONTED:
        pytest.skip("passes alone (or refuses, or was not observed): nothing for a front to close")
    _needs_record(name)
    entry, case = catalog.get(name), cases.BY_ID[case_id]
    cell, race = observe_cell(lambda: fronted(front, name), lambda c: fronted.settle(name, c), entry, case,
                              cases.REFLECT, front)
    hold(name, case, front, cell, race, results)


@pytest.mark.parametrize("front", sorted(FRONTS))
@pytest.mark.parametrize("name,case_id", [pytest.param(name, case.id, id=f"{name}-{case.id}") for name in FRAMEWORKS
                                           for case in grid.selected(catalog.get(name)) if case.cls == cases.SMUGGLING])
def test_framework_behind_front(front, name, case_id, fronted, results):
    """A framework stack's own framing case that does not pass alone (cheroot's unread chunked bodies), again behind a
    front, in contract mode: what its owner's column cannot say, since the owner's app reads every body."""
    if FRONTS[front][1]() is None:
        pytest.skip(f"no {front} (apt-packages.txt)")
    alone = _owner_cell(name, case_id)
    if alone is None or alone.get("effect") not in verdict.FRONTED:
        pytest.skip("passes alone (or refuses, or was not observed): nothing for a front to close")
    _needs_record(name)
    entry, case = catalog.get(name), cases.BY_ID[case_id]
    cell, race = observe_cell(lambda: fronted(front, name), lambda c: fronted.settle(name, c), entry, case,
                              cases.CONTRACT, front)
    hold(name, case, front, cell, race, results)


@pytest.mark.timeout(900)
@pytest.mark.parametrize("name", INHERITING)
def test_inherited_cells_agree(name, warmed):
    """Every case this framework stack inherits, run on it in contract mode, agrees with its parser owner's cell
    (tests/conformance/inheritance.py): the inheritance is shown, not assumed."""
    entry = catalog.get(name)
    owner = catalog.parser_owner(entry).name
    problems = []
    own = {case.id for case in grid.selected(entry)}
    for case in cases.CASES:
        if case.id in own:
            continue
        owned = _owner_cell(owner, case.id)
        if owned is None:
            pytest.skip(f"{owner} has no cell for {case.id}: run its grid first")
        cell, race = observe_cell(lambda: warmed(name).port, lambda c: warmed.settle(name, c), entry, case,
                                  cases.CONTRACT)
        if race or grid.racy(catalog.get(owner), case.id):
            continue  # a race of its own: the worst of runs is compared on the owner alone
        why = inheritance.disagreement(owned["answers"], cell["answers"])
        if why:
            problems.append(f"{case.id}: {name} answered {cell['answers']!r}: {why}")
    assert not problems, (f"{name} does not agree with its parser owner {owner} on {len(problems)} inherited cases "
                          "(make them app-sensitive, cases.Case.app, or find what differs):\n" + "\n".join(problems))


def _status_of(port: int, *parts: bytes) -> bytes:
    """The status line answered to a request sent in these parts, 0.2 s apart (each part its own read)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        for i, part in enumerate(parts):
            if i:
                time.sleep(0.2)
            sock.sendall(part)
        return sock.recv(4096).split(b"\r\n", 1)[0]


def test_sanic_chunk_line_race_goes_both_ways(warmed):
    """The race known.py declares for sanic's chunk-ext-64k, made to fall each way: the whole 64 KiB chunk line in
    one read is accepted, its first 1,000 bytes in a read of their own are refused (a declared race must exist)."""
    assert "chunk-ext-64k" in known_racy("sanic")
    head = b"POST /reflect/ HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n"
    line, rest = b"3d;a=" + b"b" * 65536 + b"\r\n", b"x" * 0x3d + b"\r\n0\r\n\r\n"
    port = warmed("sanic").port
    assert _status_of(port, head + line + rest) == b"HTTP/1.1 200 OK"
    assert _status_of(port, head + line[:1000], line[1000:] + rest) == b"HTTP/1.1 400 Bad Request"


def known_racy(name: str) -> set[str]:
    entry = catalog.get(name)
    return {case.id for case in cases.CASES if grid.racy(entry, case.id)}
