"""Move the project to the registries' newest versions as one reviewable step (`./setup.sh --upgrade` runs it).

    ./setup.sh --upgrade                       # every step below, then what changed
    python scripts/upgrade.py --skip traces    # leave a step out (--list names them)

The steps, in order, each printed as it starts with its wall time when done:
  lock        scripts/lock.py --upgrade: lock/gil.txt to the newest releases within pyproject.toml's floors
              (uv), lock/debian.txt from dpkg
  install     ./setup.sh installs the new lock; with .venv-ft present, FT_PROBE=1 ./setup.sh --free-threaded
              tries every package on 3.13t again and writes records/interpreters/python3.13t.json and
              lock/cp313t.txt
  generate    python -m servers.generate (the derived files), python -m anatomy --docs --links-only (every
              lesson's source links at the installed versions, every trace rendered again)
  records     CONFORMANCE_RECORD=1 RELIABILITY_RECORD=1 on the reliability suite's short budget: every stack's
              conformance and reliability records
  http2       H2GRID_RECORD=1 ./test.sh -m h2grid: the records' http2 sections
  traces      python -m anatomy --trace: every stack's wire trace (the longest step: about 1.5 min a stack)
  claims      the tests that hold pages, records and lessons to the installed versions (tests/lessons,
              the records and lock tests, TechEmpower's fortunes verifier), run and their failures listed
Then it prints what changed: each package's old and new version, Debian's, and `git diff --stat` of the
records and pages. Nothing is committed: the diff is the review.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import lock

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
RELIABILITY_SHORT = {"RELIABILITY_SECONDS": "3", "RELIABILITY_SCALE": "0.1"}
CLAIM_TESTS = ["tests/lessons", "tests/test_records.py", "tests/test_lock.py", "tests/test_fortunes.py",
               "tests/test_generated.py"]


def _run(command: list[str], env: dict[str, str] | None = None, check: bool = True) -> int:
    print(f"upgrade:   $ {' '.join(command)}", flush=True)
    done = subprocess.run(command, cwd=ROOT, env={**os.environ, **(env or {})})
    if check and done.returncode:
        sys.exit(f"upgrade: `{' '.join(command)}` exited {done.returncode}: fix it, then run the steps left "
                 "(--skip the ones done)")
    return done.returncode


def step_lock() -> None:
    _run([PY, "scripts/lock.py", "--upgrade"])


def step_install() -> None:
    _run(["./setup.sh"])
    if (ROOT / ".venv-ft" / "bin" / "python").exists():
        _run(["./setup.sh", "--free-threaded"], env={"FT_PROBE": "1"})


def step_generate() -> None:
    _run([PY, "-m", "servers.generate"])
    _run([PY, "-m", "anatomy", "--docs", "--links-only"])


def step_records() -> None:
    _run(["./test.sh", "-q", "-p", "no:cacheprovider", "-m", "reliability", "tests/reliability"],
         env={"CONFORMANCE_RECORD": "1", "RELIABILITY_RECORD": "1", **RELIABILITY_SHORT}, check=False)


def step_http2() -> None:
    _run(["./test.sh", "-q", "-p", "no:cacheprovider", "-m", "h2grid"], env={"H2GRID_RECORD": "1"}, check=False)


def step_traces() -> None:
    _run([PY, "-m", "anatomy", "--trace"], check=False)


def step_claims() -> None:
    _run(["./test.sh", "-q", "-p", "no:cacheprovider", "-rf", *CLAIM_TESTS], check=False)


STEPS = {"lock": step_lock, "install": step_install, "generate": step_generate, "records": step_records,
         "http2": step_http2, "traces": step_traces, "claims": step_claims}


def changes(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """One line per package that moved, arrived or left between two locks' pins."""
    lines = []
    for name in sorted(set(before) | set(after)):
        old, new = before.get(name), after.get(name)
        if old != new:
            lines.append(f"{name}: {old or '(none)'} -> {new or '(none)'}")
    return lines


def _debian(path: Path) -> dict[str, str]:
    if not path.exists():
        return {}
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line and not line.startswith("#"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skip", action="append", default=[], choices=sorted(STEPS), metavar="STEP",
                        help="leave a step out (repeatable): " + ", ".join(STEPS))
    parser.add_argument("--list", action="store_true", help="name the steps and exit")
    args = parser.parse_args(argv)
    if args.list:
        print("\n".join(STEPS))
        return 0
    locks = {name: lock.path_for(name) for name in ("gil", "cp313t")}
    before = {name: lock.every_pin(path) if path.exists() else {} for name, path in locks.items()}
    debian_before = _debian(lock.LOCKS / "debian.txt")
    started = time.monotonic()
    for name, run in STEPS.items():
        if name in args.skip:
            print(f"upgrade: {name}: skipped", flush=True)
            continue
        began = time.monotonic()
        print(f"upgrade: {name} ...", flush=True)
        run()
        print(f"upgrade: {name} done in {time.monotonic() - began:.0f} s", flush=True)
    print(f"\nupgrade: done in {(time.monotonic() - started) / 60:.1f} min; what changed:")
    for name, path in locks.items():
        after = lock.every_pin(path) if path.exists() else {}
        moved = changes({k: ",".join(sorted(v)) for k, v in before[name].items()},
                        {k: ",".join(sorted(v)) for k, v in after.items()})
        print(f"  lock/{name}.txt: " + ("nothing moved" if not moved else f"{len(moved)} packages"))
        for line in moved:
            print(f"    {line}")
    moved = changes(debian_before, _debian(lock.LOCKS / "debian.txt"))
    print("  Debian: " + ("nothing moved" if not moved else f"{len(moved)} packages"))
    for line in moved:
        print(f"    {line}")
    subprocess.run(["git", "diff", "--stat", "--", "lock", "records", "docs", "compose", "pyproject.toml"], cwd=ROOT)
    print("upgrade: the claims that now fail are listed by the claims step above (pytest's short summary)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
