"""`python -m servers.generate`: write every file derived from the specs (`--check`: name the stale ones).

The entry modules, compose (with its ports registry), docs/catalog.md's table and docs/caveats.md's list,
pyproject.toml's extras, mkdocs.yml's lesson nav, docs/README.md's lesson index, each lesson page's
"Entries" line and docs/free-threading.md's package table: servers/core/derived.py says what each is.
After adding or changing a spec, run this once (docs/contributing.md).
"""
from __future__ import annotations

import argparse
import sys

from servers.core import derived


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m servers.generate",
                                     description="Write every file derived from the specs, or check that they are current.")
    parser.add_argument("--check", action="store_true", help="exit 1 naming each stale file, write nothing")
    args = parser.parse_args(argv)
    root = derived.ROOT
    if args.check:
        stale = derived.stale()
        for path in stale:
            print(f"error: {path.relative_to(root)} is stale: regenerate with `{derived.COMMAND}`", file=sys.stderr)
        if stale:
            sys.exit(1)
        print(f"{len(derived.derived())} derived files are current")
        return
    written = derived.write()
    print(f"wrote {len(written)} file(s): {' '.join(str(p.relative_to(root)) for p in written)}" if written
          else "every derived file is current")


if __name__ == "__main__":
    main()
