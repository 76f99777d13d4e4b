"""Fronts as a column of the grid: what nginx and HAProxy forward, and whether a server reads it alike.

For each conformance case, capture() sends the case's bytes to a front (nginx.py, haproxy.py) whose
upstream is a Recorder (recorder.py), and keeps what the front answered and the bytes it forwarded.
outcome() names what the front did with the case: "refused" (nothing forwarded), "normalized" (it
re-framed the message: other framing field lines or other body bytes than the client's) or
"unchanged" (the client's framing lines and body bytes went through as they came). differ() then
replays those forwarded bytes straight to a server and compares how many requests the server reads
in them with how many the front sent: a different count is the desync the front lets through to
that server. `python -m tests.conformance.fronts` runs it and writes docs/data/conformance/fronts.json
and docs/conformance-fronts.md.
"""
from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from servers.core import catalog, records

from . import cases, haproxy, nginx, observe, settings, verdict
from .recorder import Recorder, messages

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "docs" / "data" / "conformance" / "fronts.json"
FRONTS = {"nginx": (nginx.Nginx, nginx.version), "haproxy": (haproxy.Haproxy, haproxy.version)}
FRAMING = (b"content-length", b"transfer-encoding")
ALONE = "alone"  # the key of a server's own verdicts (no front) among the fronts' replays
SETTLE_S = 0.2  # after the client's answers: let the front finish its upstream writes


@dataclass
class Forwarding:
    front: str
    case: str
    answers: str  # what the front answered the client: its statuses, then the connection's state
    forwarded: list[str] = field(default_factory=list)  # per upstream connection, latin-1 text of the bytes
    messages: int = 0  # complete requests a strict reader frames in them
    unframed: bool = False  # bytes left that no strict reader can frame
    outcome: str = ""


def valid(case: cases.Case) -> bool:
    """The RFCs have a server answer this request (not refuse it): a front refusing it is over-strict."""
    return verdict.setup(case, cases.CONTRACT).framings.strict.valid


def send(port: int, data: bytes, awaited: int) -> observe.Observation:
    """Write data on a fresh connection, read `awaited` answers, then end our side and read to the close."""
    return observe.observe(port, (data,), awaited, [], None, lambda response: False)


def describe(seen: observe.Observation) -> str:
    return " ".join([str(r.status) for r in seen.responses] + [seen.state]) if not seen.connect_error else (
        f"connect: {seen.connect_error}")


def _framing(head: bytes) -> list[tuple[bytes, bytes]]:
    """The framing field lines as (name, raw value): a name's case is no re-framing (HAProxy sends every
    name in lower case), a space before the colon or any byte of the value is."""
    lines = [line.partition(b":") for line in head.split(b"\r\n")[1:]]
    return [(name.lower(), value) for name, _, value in lines if name.strip().lower() in FRAMING]


def outcome(case: cases.Case, forwarded: list[bytes]) -> str:
    if not forwarded:
        return "refused"
    sent, _ = messages(b"".join(forwarded))
    head, _, rest = case.request(cases.CONTRACT).partition(b"\r\n\r\n")
    if sent and _framing(sent[0].head) == _framing(head) and rest.startswith(sent[0].body):
        return "unchanged"
    if not sent:
        return "unchanged" if b"".join(forwarded).endswith(rest) else "normalized"
    return "normalized"


def capture(front: str, selected: list[cases.Case]) -> list[Forwarding]:
    """What `front` does with each case, forwarded to a recording upstream."""
    recorder = Recorder().start()
    proxy = FRONTS[front][0](recorder.port).start()
    try:
        found = []
        for case in selected:
            recorder.clear()
            answer = send(proxy.port, case.request(cases.CONTRACT), verdict.setup(case, cases.CONTRACT).awaited)
            time.sleep(SETTLE_S)
            sent = recorder.forwarded()
            framed, rest = messages(b"".join(sent))
            # The recorder answers 200 alone: a front that answers the client only with statuses of its own
            # refused the request, even where it had streamed its head on before the body proved invalid.
            statuses = [r.status for r in answer.responses]
            own = statuses and 200 not in statuses
            found.append(Forwarding(front, case.id, describe(answer), [s.decode("latin-1") for s in sent],
                                    len(framed), bool(rest), "refused" if own else outcome(case, sent)))
        return found
    finally:
        proxy.stop()
        recorder.stop()


def differ(port: int, forwarding: Forwarding) -> str:
    """"" if the server at port reads as many requests in the forwarded bytes as the front sent (or
    refuses them), else what it did: "desync: ..." where it answered more, or neither answered nor
    closed (it waits for a body the front thinks ended), "drops: ..." where it answered fewer and closed
    (the front's next request on that connection is lost, nothing is smuggled)."""
    verdicts = []
    for text in forwarding.forwarded:
        data = text.encode("latin-1")
        want = len(messages(data)[0])
        answer = send(port, data, max(want, 1))
        statuses = [r.status for r in answer.responses]
        refused = [s for s in statuses if s in verdict.REFUSALS]
        closed = answer.state == observe.CLOSED
        if len(statuses) == want or (refused and len(statuses) <= want and closed):
            continue
        kind = "drops" if len(statuses) < want and closed and not answer.stalled else "desync"
        verdicts.append(f"{kind}: front sent {want}, server answered {describe(answer)}")
    return "; ".join(verdicts)


def as_dict(found: list[Forwarding]) -> list[dict]:
    return [asdict(f) for f in found]


def replayed(server_entries: dict[str, str], found: list[Forwarding]) -> dict[str, dict[str, dict[str, str]]]:
    """entry -> front -> case -> what the entry read differently from what the front sent ("" where alike),
    for the framing cases each front forwarded; and entry -> ALONE -> case -> the entry's verdict with no front."""
    framing = {c.id for c in cases.CASES if c.cls == cases.SMUGGLING}
    table: dict[str, dict[str, dict[str, str]]] = {}
    for entry in server_entries.values():
        proc, port = settings.start(entry)
        try:
            table[entry] = {ALONE: {c.id: verdict.run(port, verdict.setup(c, cases.CONTRACT))[0].effect or verdict.PASS
                                    for c in cases.CASES if c.id in framing}}
            for f in found:
                if f.case in framing and f.forwarded and f.outcome != "refused":
                    table[entry].setdefault(f.front, {})[f.case] = differ(port, f)
        finally:
            proc.kill()
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.conformance.fronts", description=__doc__.splitlines()[0])
    parser.add_argument("--servers", default=",".join(s for s, spec in catalog.SERVERS.items()
                                                     if spec.serve and not spec.dev_only),
                        help="servers whose representative stack replays (default: every production Python one)")
    parser.add_argument("--out", type=Path, default=DATA)
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # a stopped run stops its entries too
    found = [f for front in FRONTS for f in capture(front, list(cases.CASES))]
    entries = {s: settings.representative(s) for s in args.servers.split(",") if s}
    data = {"run": run_info(), "versions": {front: FRONTS[front][1]() for front in FRONTS},
            "forwarded": as_dict(found), "replayed": replayed(entries, found)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"written: {args.out}")
    return 0


def run_info() -> dict:
    return {**records.stamp(), "complete": True}


if __name__ == "__main__":
    sys.exit(main())
