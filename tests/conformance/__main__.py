"""`python -m tests.conformance`: write docs/conformance.md from the records' conformance sections.

The records (records/<entry>.json, servers/core/records.py) are written by the conformance run with
CONFORMANCE_RECORD=1 (tests/reliability/test_reliability_conformance.py; tests/conformance/pinning.py);
`--run` runs it first, over every stack or those named with `-k`. A stack whose record (or whose parser
owner's) is missing, stale, incomplete or from a run with changed cells is shown unverified, with why.
`--failing ENTRY` prints the stack's cells that do not pass, by effect, and which caveat of the stack covers
each: what a new server's caveats are written from (docs/contributing.md, step 5); given a server's name (or its
entries' suffix) it prints its parser owner's. `--owner SERVER` prints the name of the server's parser owner (a
WSGI server's is bare_NAME, an ASGI one's bare_asgi_NAME, an RSGI one's bare_rsgi_NAME), for pytest's -k.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from servers.core import catalog, records

from . import grid, report, verdict

ROOT = Path(__file__).resolve().parents[2]
TEST = "tests/reliability/test_reliability_conformance.py"
PAGE = ROOT / "docs" / "conformance.md"


def sections() -> dict[str, dict | None]:
    return {e.name: (records.load(e.name) or {}).get("conformance") for e in catalog.ENTRIES}


def front_versions(found: dict[str, dict | None]) -> dict[str, str]:
    """The fronts' versions the records ran with (one per front; several are listed)."""
    seen: dict[str, set[str]] = {}
    for section in found.values():
        for front, version in ((section or {}).get("run", {}).get("fronts") or {}).items():
            seen.setdefault(front, set()).add(version)
    return {front: ", ".join(sorted(versions)) for front, versions in seen.items()}


def render() -> str:
    found = sections()
    return report.page(found, front_versions(found))


def failing(name: str) -> str:
    """The entry's cells that do not pass, by effect: case, the caveat covering it (or UNCOVERED), the reading."""
    entry = catalog.get(name)
    found = sections()
    cells = grid.cells(name, found)
    if not cells:
        return f"{name}: no conformance cells recorded (write them: {TEST} with CONFORMANCE_RECORD=1 -k {name})"
    lines = [f"{name}: {len(cells)} cells, {sum(1 for c in cells.values() if c.get('effect'))} not passing"]
    for effect in verdict.EFFECTS:
        hit = sorted((case_id, cell) for case_id, cell in cells.items() if cell.get("effect") == effect)
        if hit:
            lines.append(f"\n{effect} ({len(hit)}): {', '.join(repr(case_id) for case_id, _ in hit)}")
        for case_id, cell in hit:
            covering = grid.covering(entry, case_id, effect)
            origin = f" (from {cell['from']})" if cell["from"] != name else ""
            lines.append(f"  {case_id}{origin}: {', '.join(covering) or 'UNCOVERED'}: {cell['answers']}: "
                         f"{cell.get('reading', '')}")
    return "\n".join(lines)


def owner_of(name: str) -> str:
    """The parser owner of a server (its name or its entries' suffix) or of an entry; KeyError naming what exists."""
    if name in catalog.BY_NAME:
        return catalog.parser_owner(catalog.get(name)).name
    servers = [s for s in catalog.SERVERS.values() if s.name == name] or [
        s for s in catalog.SERVERS.values() if s.entry_suffix == name]
    if len(servers) > 1:
        raise KeyError(f"{name!r} is the entries' suffix of servers {', '.join(s.name for s in servers)}: name one")
    entries = [e for e in catalog.ENTRIES if servers and e.server == servers[0].name and not e.free_threaded]
    if not entries:
        raise KeyError(f"no server or entry {name!r}; servers: {', '.join(catalog.SERVERS)} (python -m servers lists "
                       "the entries)")
    return catalog.parser_owner(entries[0]).name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.conformance", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=PAGE, help="default: %(default)s")
    parser.add_argument("--run", action="store_true", help=f"run {TEST} first with CONFORMANCE_RECORD=1 (./test.sh)")
    parser.add_argument("-k", dest="select", default="", help="with --run: only these tests (pytest -k, an entry)")
    parser.add_argument("--failing", metavar="ENTRY", help="print ENTRY's cells that do not pass and the caveats "
                                                            "covering them (nothing is written); a server's name: "
                                                            "its parser owner's")
    parser.add_argument("--owner", metavar="SERVER", help="print the name of SERVER's parser owner (the entry to "
                                                          "record first, pytest's -k), nothing else")
    args = parser.parse_args(argv)
    if args.owner:
        try:
            print(owner_of(args.owner))
        except KeyError as error:
            parser.error(error.args[0])
        return 0
    if args.failing:
        if args.failing not in catalog.BY_NAME:
            try:
                args.failing = owner_of(args.failing)
            except KeyError as error:
                parser.error(error.args[0])
        print(failing(args.failing))
        return 0
    if args.run:
        env = {**os.environ, "CONFORMANCE_RECORD": "1"}
        command = [str(ROOT / "test.sh"), "-q", "-p", "no:cacheprovider", "-m", "reliability", TEST]
        done = subprocess.run(command + (["-k", args.select] if args.select else []), cwd=ROOT, env=env)
        if done.returncode != 0:
            print(f"the conformance tests failed (exit {done.returncode}): the page is not written", file=sys.stderr)
            return done.returncode
    args.out.write_text(render())
    rows = report.rows(sections())
    unverified = [r.name for r in rows if r.unverified]
    print(f"written: {args.out} ({len(rows) - len(unverified)} stacks verified"
          + (f"; unverified: {', '.join(unverified)}" if unverified else "") + ")")
    return 0


if __name__ == "__main__":
    sys.exit(main())
