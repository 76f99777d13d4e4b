"""Where each conformance cell is observed: verified once, where the fact lives.

A server's parser is the server's: its parser owner (catalog.parser_owner, the bare app that answers the
reflection route) runs every case in reflect mode, and every stack on that server inherits those cells. A
framework decides only whether a body is read, its own 404 and 405, and Host: a framework stack runs the
app-sensitive cases (cases.Case.app) in contract mode and inherits the rest from its owner. A client
variant (another Mongo driver or Redis client on the same app and server) inherits everything from its
base entry. cells() composes a stack's grid from the records; record_hashes() is what a record says it
describes (its server's adapter and spec, its app, the cases it ran, the judge's code) and versions_changed() the
installed versions it ran on, so a stale record is found.
"""
from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
from pathlib import Path

from backends import redis_clients
from servers.core import catalog

from . import cases, known

ROOT = Path(__file__).resolve().parents[2]
OWNER, FRAMEWORK, VARIANT = "owner", "framework", "variant"
RACY_RUNS = 5  # a racy case's runs: its worst is its verdict
# a cell racing behind a front, while recording: a test's five runs are held to the worst of these, so a way of the race
# that comes one time in five must not be missed by the record (0.8**20: about 1 %; five runs missed it in 7 cells)
RACY_RUNS_RECORDED_BEHIND_FRONT = 20
UNDECLARED = "answers differed from run to run while recording; its race is not declared yet (known.py)"


def base_entry(entry: catalog.Entry) -> catalog.Entry:
    """The entry a Mongo driver or Redis client variant is a variant of (itself for any other)."""
    if entry.mongo_driver == entry.app_spec.mongo_driver and entry.redis_client == redis_clients.DEFAULT:
        return entry
    for other in catalog.ENTRIES:
        if (other.app, other.server, other.interpreter) == (entry.app, entry.server, entry.interpreter) and (
                other.mongo_driver == other.app_spec.mongo_driver and other.redis_client == redis_clients.DEFAULT):
            return other
    return entry


def role(entry: catalog.Entry) -> str:
    if base_entry(entry) is not entry:
        return VARIANT
    return OWNER if catalog.parser_owner(entry).name == entry.name else FRAMEWORK


def source(entry: catalog.Entry) -> catalog.Entry | None:
    """Where the cells it does not run come from: its owner, its base entry, or None (an owner)."""
    kind = role(entry)
    return None if kind == OWNER else base_entry(entry) if kind == VARIANT else catalog.parser_owner(entry)


def mode(entry: catalog.Entry) -> str:
    return cases.REFLECT if role(entry) == OWNER else cases.CONTRACT


def selected(entry: catalog.Entry) -> tuple[cases.Case, ...]:
    """The cases it runs itself: an owner every one; a framework stack the app-sensitive ones, those a caveat
    of its app on that server names (its app changes what the server does with them: Flask on granian's
    free-threaded build leaves the connection held after any chunked body it does not read), and those of a
    server caveat that shows where the app leaves a body unread (Known.unread: cheroot parses an unread
    chunked body as the next request; the owner's app reads every body), and on such a server every trailer case."""
    kind = role(entry)
    if kind != FRAMEWORK:
        return cases.CASES if kind == OWNER else ()
    server_keys = {caveat.key for caveat in entry.server_spec.caveats}
    own = {case for key in entry.caveats if key in known.KNOWN and (key not in server_keys or known.KNOWN[key].unread)
           for case in known.KNOWN[key].cases}
    if any(key in known.KNOWN and known.KNOWN[key].unread for key in server_keys):
        # a server that mis-drains an unread body: every trailer case too, where a drain that stops after the last
        # chunk shows (the CRLF it would leave of a body without trailers is skipped as an empty line)
        own |= {case.id for case in cases.CASES if case.id.startswith("trailer-")}
    return tuple(case for case in cases.CASES if case.app or case.id in own)


def entries(kind: str) -> list[catalog.Entry]:
    return [e for e in catalog.ENTRIES if role(e) == kind]


def racy(entry: catalog.Entry, case_id: str) -> str:
    """The race that makes this cell's answer vary ("" : none declared), from its caveats (known.py)."""
    for key in entry.caveats:
        spec = known.KNOWN.get(key)
        if spec is not None and case_id in spec.racy:
            return spec.race
    return ""


def front_racy(entry: catalog.Entry, case_id: str, front: str) -> str:
    """The race that makes this cell vary behind `front` ("" : none declared): a caveat's race on the case, or its
    race behind HAProxy, on any case the front runs there (those failing alone: what the server leaves unread races
    HAProxy's reads whichever case left it; known.py)."""
    race = racy(entry, case_id)
    if race or front != "haproxy":
        return race
    for key in entry.caveats:
        spec = known.KNOWN.get(key)
        if spec is not None and spec.haproxy_race and (
                not spec.haproxy_race_servers or entry.server in spec.haproxy_race_servers):
            return spec.haproxy_race
    return ""


def covering(entry: catalog.Entry, case_id: str, effect: str) -> list[str]:
    """The entry's caveats that stand for this case with this effect (known.py lists the case, the spec the effect)."""
    return [key for key in entry.caveats if key in known.KNOWN and case_id in known.KNOWN[key].cases
            and effect in catalog.CAVEAT_EFFECTS[key]]


def cells(name: str, sections: dict[str, dict | None]) -> dict[str, dict]:
    """The stack's whole grid, case -> cell, each with `from`: the entry whose record holds it. sections:
    entry -> its record's conformance section (or None)."""
    entry = catalog.get(name)
    own = (sections.get(name) or {}).get("cases", {})
    found = {case_id: {**cell, "from": name} for case_id, cell in own.items()}
    origin = source(entry)
    if origin is not None:
        for case_id, cell in cells(origin.name, sections).items():
            found.setdefault(case_id, cell)
    return found


# ---------------------------------------------------------------------------- what a record describes

def _file_of(module: str) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise LookupError(f"no module {module}")
    return Path(spec.origin)


def _go_files(*parts: str) -> list[Path]:
    base = ROOT / "servers" / "go"
    return sorted(p for part in parts for p in (base / part).rglob("*") if p.is_file() and "_test" not in p.name)


def _digest(paths: list[Path]) -> str:
    digest = hashlib.sha256()
    for path in paths:
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def server_files(entry: catalog.Entry) -> list[Path]:
    if entry.language == "go":
        return [ROOT / "servers" / "go" / "go.mod", ROOT / "servers" / "go" / "go.sum", *_go_files("internal")]
    return [_file_of(entry.server_spec.serve_module)]


def app_files(entry: catalog.Entry) -> list[Path]:
    app = entry.app_spec
    if entry.language == "go":
        return _go_files(f"cmd/{app.name}")
    files = [_file_of(app.factory.partition(":")[0])]
    if app.parser_owner:  # what its reflections say is written by the shared reflection module
        files.append(_file_of("servers.apps.reflection"))
    return files


# A spec's WebSocket facts: what frames the upgraded connection and how the app's routes are written, which no
# HTTP/1.1 case reaches (the WebSocket grid's records describe them, wsgrid/grid.py); the code that serves the routes
# is in the app's and the adapter's files, which the hashes below do cover
WEBSOCKET_FIELDS = ("websocket", "ws_cannot", "ws_framing")


def _spec(spec) -> str:
    """A spec as it runs the stack: every field but its caveats (what the records found, said in words), what
    decides which of its app's caveats show (ServerSpec.passes), the fewest workers it runs as itself
    (min_workers: like a default of one per core, it is the machine's core count that it floors, and the records
    run on 2 cores or more) and its WebSocket facts (WEBSOCKET_FIELDS)."""
    fields = {f.name: getattr(spec, f.name) for f in dataclasses.fields(spec)
              if f.name not in ("caveats", "combination_caveats", "passes", "min_workers", *WEBSOCKET_FIELDS)}
    return repr(sorted(fields.items()))


def _hash(paths: list[Path], spec) -> str:
    return hashlib.sha256((_digest(paths) + _spec(spec)).encode()).hexdigest()


# The judge's own code: a cell is its verdict on the answers, so a record describes the judge that wrote it
JUDGE_FILES = tuple(ROOT / "tests" / "conformance" / name
                    for name in ("verdict.py", "observe.py", "reference.py", "reflection.py"))


def record_hashes(entry: catalog.Entry) -> dict[str, str]:
    """What an entry's conformance record describes: its server's adapter and spec, its app and its spec (the bare
    app of an owner; a framework stack's cells are its app's), the cases it runs, rendered in its mode, and the
    judge's code. A spec's caveats are left out: they say in words what the records found. The installed versions
    of the server, its parser and the app are held apart (versions_changed), from the record's own `versions`."""
    ran = selected(entry)
    if not ran:
        return {"inherits": base_entry(entry).name}
    return {"server": _hash(server_files(entry), entry.server_spec), "app": _hash(app_files(entry), entry.app_spec),
            "cases": hashlib.sha256((mode(entry) + cases.digest(ran)).encode()).hexdigest(),
            "judge": _digest(list(JUDGE_FILES))}


def versions_changed(entry: catalog.Entry, recorded: dict[str, str]) -> list[str]:
    """The server's and the app's distributions (its parser among them) installed at another version than the record
    ran on: only those known both then and now (an interpreter not set up here says nothing)."""
    from harness import versions

    if not selected(entry):
        return []
    now = versions.for_entry(entry.name)
    names = (*entry.server_spec.pip_packages, *entry.app_spec.pip_packages)
    return [f"{name} {recorded[name]} -> {now[name]}" for name in names
            if recorded.get(name) and now.get(name) and recorded[name] != now[name]]


def stale(entry: catalog.Entry, section: dict | None) -> list[str]:
    """What changed since the record was written ([] : it describes the code as it is)."""
    if not section:
        return ["no conformance record"]
    run = section.get("run", {})
    recorded = run.get("hash") or {}
    now = record_hashes(entry)
    changed = [f"its {part} changed" for part in sorted(set(now) | set(recorded)) if now.get(part) != recorded.get(part)]
    moved = versions_changed(entry, run.get("versions") or {})
    return changed + ([f"its installed versions changed ({', '.join(moved)})"] if moved else [])
