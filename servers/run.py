"""`python -m servers.run [--interpreter KEY] NAME [flags]`: start any catalog entry, Python or Go, the same way.

Python entries run as `python -m servers.NAME`, on their own interpreter or, with --interpreter, on another
one with the GIL (cpython-3.13: the GIL twin of free-threaded 3.13t, `./setup.sh --gil-twin`), which the
process checks it runs on; Go entries are built first if their binary is missing or older than the Go
sources (into .build/go/, never committed). The flags are passed through unchanged, so every entry takes
the same ones (see `--help` of any entry).
"""
from __future__ import annotations

import os
import sys

from servers.core import catalog
from servers.core.command import GoBuildError, InterpreterMissing, command, environment


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        print("\nentries: " + " ".join(e.name for e in catalog.ENTRIES))
        sys.exit(0 if argv else 2)
    interpreter = None
    if argv[0] == "--interpreter" and len(argv) > 2:
        interpreter, argv = argv[1], argv[2:]
    name, args = argv[0], argv[1:]
    if name not in catalog.BY_NAME:
        print(f"error: no catalog entry {name!r}; `python -m servers` lists them", file=sys.stderr)
        sys.exit(2)
    try:
        cmd = command(name, args, interpreter)
        env = {**os.environ, **(environment(name, interpreter) if interpreter else {})}
    except GoBuildError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(1)
    except (KeyError, ValueError, InterpreterMissing) as exc:
        print(f"error: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        sys.exit(2)
    os.execve(cmd[0], cmd, env)


if __name__ == "__main__":
    main()
