"""`python -m servers.compose`: write compose/docker-compose.yml and its override for machines
without registry access, compose/docker-compose.local.yml, from the catalog (`--check`: are they stale?).

The model and its YAML live in servers/core/compose_model.py.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from servers.core import ports
from servers.core.compose_model import (DEFAULT_OUTPUT, app_services, local_output, port_variable, render,
                                        render_local)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m servers.compose",
        description="Write compose/docker-compose.yml and docker-compose.local.yml from the catalog, "
                    "or check that they are current.")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT,
                        help="compose file to write or check (default compose/docker-compose.yml); "
                             "its override NAME.local.yml goes beside it")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="exit 1 if the file differs from the catalog's")
    mode.add_argument("--list", action="store_true", help="print every app service and its default URL")
    args = parser.parse_args(argv)
    if args.list:
        for name, _, _, port in app_services():
            print(f"{name:32} http://127.0.0.1:{port}  (move with {port_variable(name)})")
        return
    files = {args.output: render(args.output), local_output(args.output): render_local(args.output)}
    if args.check:
        stale = False
        for path, text in files.items():
            current = path.read_text() if path.exists() else None
            if current != text:
                state = "is missing" if current is None else "is stale (differs from the catalog)"
                print(f"error: {path} {state}: regenerate it with `python -m servers.compose`", file=sys.stderr)
                stale = True
            else:
                print(f"{path} is up to date")
        if stale:
            sys.exit(1)
        return
    args.output.parent.mkdir(parents=True, exist_ok=True)
    for path, text in files.items():
        path.write_text(text)
    if args.output == DEFAULT_OUTPUT:  # the ports it gave new services are theirs from now on
        ports.REGISTRY.write_text(ports.render({name: port for name, _, _, port in app_services()}))
    print(f"wrote {args.output} ({len(app_services())} app services) and {local_output(args.output).name}")


if __name__ == "__main__":
    main()
