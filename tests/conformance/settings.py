"""Settings as columns: each server's grid again under the settings its users turn on for safety.

A server spec declares its settings (ServerSpec.settings: keep-alive off, another parser); this runs
every conformance case on one representative stack per server (representative(): its plainest hello app),
first as the catalog runs it, then under each setting, and names what each setting closes (a case
failing by default that passes under it) and breaks (the reverse). With capacity, the same run
measures each configuration's hello capacity within the latency bound (bench --capacity --target),
so a setting's cost is read from one run on one machine state.
`python -m tests.conformance.settings` writes docs/data/conformance/settings.json.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import signal
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from harness.entry import EntryFailed, EntryProcess
from processes.ports import free_port
from servers.core import catalog

from . import cases, verdict

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "docs" / "data" / "conformance" / "settings.json"
# One stack per server, its plainest hello: Flask on a WSGI server, Starlette on an ASGI one, else the
# framework's own (sanic), its base entry (no driver variant).
PLAINEST = ("flask", "starlette")


def representative(server: str) -> str:
    spec = catalog.SERVERS[server]
    plain = [e for e in catalog.ENTRIES if e.server == server and e.name == catalog.entry_name(catalog.APPS[e.app], spec)]
    return min(plain, key=lambda e: (PLAINEST.index(e.app) if e.app in PLAINEST else len(PLAINEST), len(e.name))).name


DEFAULT = "default"
# A cell that holds: a pass (and the old judge's "lenient", which the stored runs before issue 37 hold)
GOOD = (verdict.PASS, "lenient")


@dataclass
class Column:
    server: str
    entry: str
    setting: str
    verdicts: dict[str, list[str]] = field(default_factory=dict)  # case -> [verdict, what happened]
    capacity: dict = field(default_factory=dict)  # bench's capacity of hello, or why none


# A directory holding a setting's package that the project's interpreter lacks (gunicorn_h1c installed with
# pip --target), put on the entry's PYTHONPATH for that setting only.
EXTRA_PATH = os.environ.get("SETTINGS_EXTRA_PATH", "")


def runnable(server: str) -> list:
    """The server's settings this machine can run (a setting's package may be missing)."""
    spec = catalog.SERVERS[server]
    return [s for s in spec.settings
            if not s.needs or importlib.util.find_spec(s.needs) or (EXTRA_PATH and (Path(EXTRA_PATH) / s.needs).exists())]


def _grid(port: int) -> dict[str, list[str]]:
    """Every case on a framework stack in contract mode: [pass or the effect, the answers and reading]."""
    found = {}
    for case in cases.CASES:
        judgement, _ = verdict.run(port, verdict.setup(case, cases.CONTRACT))
        found[case.id] = [judgement.effect or verdict.PASS, f"{judgement.answers} ({judgement.reading})"]
    return found


def _capacity(entry: str, port: int, seconds: int) -> dict:
    out = Path(tempfile.mkdtemp(prefix="settings-capacity-"))
    done = subprocess.run([str(ROOT / "bench.sh"), "--target", f"http://127.0.0.1:{port}", "--servers", entry,
                           "--capacity", "--quick", "--ops", "hello", "--out", str(out), "--plain"],
                          cwd=ROOT, capture_output=True, text=True, timeout=seconds)
    steps = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()
             if line.strip()] if (out / "results.jsonl").exists() else []
    steps = [r for r in steps if r.get("mode") == "capacity"]
    held = [r["rate"] for r in steps if r.get("slo_held") and not r.get("void_reasons")]
    if done.returncode != 0 or not held:
        return {"error": (done.stderr or done.stdout)[-400:], "exit": done.returncode}
    missed = [r["rate"] for r in steps if not r.get("slo_held") and r["rate"] > max(held)]
    return {"held_per_s": max(held), "missed_per_s": min(missed) if missed else None,
            "void": any(r.get("void_reasons") for r in steps), "steps": len(steps)}


def start(entry: str, env: dict[str, str] | None = None, tries: int = 3) -> tuple[EntryProcess, int]:
    """The entry with one worker on a free port; another port when a busy machine took that one first."""
    for attempt in range(tries):
        port = free_port()
        try:
            return EntryProcess(entry, ["--port", str(port), "--workers", "1"], env=env).start(), port
        except EntryFailed as exc:
            if "in use" not in str(exc) or attempt == tries - 1:
                raise
    raise AssertionError("unreachable")


def column(server: str, setting=None, capacity_s: int = 0, grid: bool = True) -> Column:
    entry = representative(server)
    env = setting.environment() if setting else {}
    if setting is not None and setting.needs and EXTRA_PATH:
        env["PYTHONPATH"] = os.pathsep.join([EXTRA_PATH, os.environ.get("PYTHONPATH", "")])
    proc, port = start(entry, env)
    try:
        found = Column(server, entry, setting.key if setting else DEFAULT)
        found.verdicts = _grid(port) if grid else {}
        if capacity_s:
            found.capacity = _capacity(entry, port, capacity_s)
        return found
    finally:
        proc.kill()


def compare(default: Column, other: Column) -> dict[str, list[str]]:
    """What a setting closes and breaks, against the same server's default column."""
    closes = [c for c, (v, _) in other.verdicts.items() if v in GOOD and default.verdicts[c][0] not in GOOD]
    breaks = [c for c, (v, _) in other.verdicts.items() if v not in GOOD and default.verdicts[c][0] in GOOD]
    return {"closes": sorted(closes), "breaks": sorted(breaks)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.conformance.settings", description=__doc__.splitlines()[0])
    parser.add_argument("--servers", default=",".join(s for s, spec in catalog.SERVERS.items() if spec.settings))
    parser.add_argument("--capacity-seconds", type=int, default=0,
                        help="bound of each capacity ramp (0: no capacity)")
    parser.add_argument("--out", type=Path, default=DATA)
    parser.add_argument("--resume", action="store_true", help="keep the columns --out already holds")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # a stopped run stops its entries too
    # A run interrupted (a port race, a crash) resumes from the columns its file already holds.
    previous = json.loads(args.out.read_text()) if args.resume and args.out.exists() else {}
    run = previous.get("run") or {"date": time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime()), "servers": args.servers.split(","),
                                  "capacity_seconds": args.capacity_seconds}
    run.update(complete=False, commit=subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True,
                                                      text=True).stdout.strip())
    columns = previous.get("columns", [])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    for server in args.servers.split(","):
        for setting in [None, *runnable(server)]:
            key = setting.key if setting else DEFAULT
            if any(c["server"] == server and c["setting"] == key for c in columns):
                continue
            col = column(server, setting, args.capacity_seconds)
            columns.append(col.__dict__)
            print(server, col.setting, sum(v in GOOD for v, _ in col.verdicts.values()), "good", col.capacity,
                  flush=True)
            args.out.write_text(json.dumps({"run": run, "columns": columns}, indent=1, sort_keys=True) + "\n")
        # the default's capacity again after its settings' (A-B-A): how far the busy machine alone moves it
        default = next(c for c in columns if c["server"] == server and c["setting"] == DEFAULT)
        if args.capacity_seconds and "again" not in default["capacity"]:
            default["capacity"]["again"] = column(server, None, args.capacity_seconds, grid=False).capacity
            print(server, "default again", default["capacity"]["again"], flush=True)
            args.out.write_text(json.dumps({"run": run, "columns": columns}, indent=1, sort_keys=True) + "\n")
    run["complete"] = True
    args.out.write_text(json.dumps({"run": run, "columns": columns}, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
