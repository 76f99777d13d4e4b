"""`python -m wsgrid`: every attack probe against the probe bed's faulty and correct servers, one at a time, as a
Markdown table (outcome, RSS growth, slowest answer, the close code the probe saw, how its sending ended).

`--port N --pid P` runs them against a server already listening instead (pid: its process, sampled).
`python -m wsgrid grid [--stack NAME] [--record]` runs them against the catalog's framing owners (wsgrid/grid.py);
`python -m wsgrid docs` writes the recorded grid into docs/websockets.md."""
from __future__ import annotations

import argparse

import sys

from servers.core import derived
from wsgrid import grid, probes, runner
from wsgrid.server import MODES

DOCS = derived.ROOT / "docs" / "websockets.md"


HEADER = ("| server | probe | outcome | RSS | slowest answer | close code | sending ended |\n"
          "|---|---|---|---|---|---|---|")


def row(target: str, probe: str, pin: dict) -> str:
    """One probe's line, from its pin (grid.summary: what a record keeps of it)."""
    return (f"| {target} | {probe} | {pin['outcome']} | {pin['rss_growth_mib']:+d} MiB | "
            f"{pin['slowest_answer_s']:.2f} s | {pin['close_code'] or '-'} | {pin['ending']} |")


def run_grid(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m wsgrid grid", description=grid.__doc__.split("\n\n")[0])
    parser.add_argument("--stack", action="append", choices=grid.owners(), help="an owner (default: every one)")
    parser.add_argument("--probe", action="append", choices=sorted(probes.PROBES), help="(default: all)")
    parser.add_argument("--seconds", type=float, default=runner.SECONDS)
    parser.add_argument("--record", action="store_true", help="write each owner's pins into its record")
    args = parser.parse_args(argv)
    print(HEADER)
    for name in args.stack or grid.owners():
        pins = {}
        for probe_name, pin in grid.run_owner(name, args.probe or sorted(probes.PROBES), args.seconds):
            pins[probe_name] = pin
            print(row(name, probe_name, pin), flush=True)
        if args.record:
            print(f"wrote {grid.write(name, pins)}", file=sys.stderr)


def write_docs() -> None:
    text = DOCS.read_text()
    DOCS.write_text(derived.splice(text, grid.DOCS_START, grid.DOCS_END, grid.markdown(), DOCS))
    print(f"wrote {DOCS}")


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["grid"]:
        return run_grid(argv[1:])
    if argv[:1] == ["docs"]:
        return write_docs()
    parser = argparse.ArgumentParser(prog="python -m wsgrid", description=__doc__.split("\n\n")[0])
    parser.add_argument("--probe", action="append", choices=sorted(probes.PROBES), help="(default: all)")
    parser.add_argument("--mode", action="append", choices=MODES, help="the bed's server (default: both)")
    parser.add_argument("--port", type=int, help="probe a server already listening on this port instead")
    parser.add_argument("--pid", type=int, help="... whose process is this one")
    parser.add_argument("--seconds", type=float, default=runner.SECONDS)
    args = parser.parse_args(argv)
    if (args.port is None) != (args.pid is None):
        parser.error("--port and --pid go together")
    print(HEADER)
    for name in args.probe or sorted(probes.PROBES):
        if args.port is not None:
            result = runner.probe(args.port, args.pid, name, args.seconds)
            print(row(f"port {args.port}", name, grid.summary(result)), flush=True)
            continue
        for mode in args.mode or MODES:
            print(row(mode, name, grid.summary(runner.probe_bed(mode, name, args.seconds))), flush=True)


if __name__ == "__main__":
    main()
