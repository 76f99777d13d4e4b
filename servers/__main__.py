"""`python -m servers`: print the catalog, as a table, as JSON, or as the Markdown table of docs/catalog.md.

Writing what derives from the specs is `python -m servers.generate`; `--write-entries`, its old name for
the entry modules alone, says so and runs it."""
from __future__ import annotations

import argparse
import json
import sys

from servers.core import catalog
from servers.core.catalog_table import COLUMNS, markdown_table, rows

# What to do with the catalog once read: the other commands of the package.
EPILOG = """\
the other commands:
  python -m servers.NAME --port 5000          a Python entry (--help: the flags every entry takes)
  python -m servers.run NAME --port 5000      any entry, Python or Go (Go is built on first use)
  python -m servers.generate [--check]        write every file derived from the specs (entry modules,
                                              compose, the docs' catalog, extras, lesson nav and Entries)
  python -m servers.compose [--check|--list]  write compose/docker-compose.yml from the catalog,
                                              check it is current, or list its services and URLs
  python -m anatomy NAME [--op OP]    how a stack serves a request, measured under load
                                              (processes, connections, CPU by layer); docs/ lessons
"""

def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m servers", description="List the suite's catalog of entrypoints.",
                                     epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    form = parser.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="print the catalog as JSON")
    form.add_argument("--markdown", action="store_true", help="print the catalog's Markdown table (docs/catalog.md)")
    form.add_argument("--write-entries", action="store_true", help=argparse.SUPPRESS)  # the old name: see below
    args = parser.parse_args(argv)
    if args.write_entries:
        # One generator command: the entry modules are derived files like the others.
        print("note: `python -m servers --write-entries` is now `python -m servers.generate` "
              "(every derived file, the entry modules included); running it", file=sys.stderr)
        from servers import generate

        generate.main([])
    elif args.json:
        print(json.dumps([e.as_dict() for e in catalog.ENTRIES], indent=2))
    elif args.markdown:
        print(markdown_table())
    else:
        from rich.console import Console
        from rich.table import Table

        table = Table(title=f"{len(catalog.ENTRIES)} entrypoints: python -m servers.<name>, "
                            "or python -m servers.run <name> for any of them")
        shown = COLUMNS[:-1]  # the lessons' paths are for docs/catalog.md (links); --help names them
        for column in shown:
            table.add_column(column, no_wrap=column not in ("description", "limits", "tls", "h2", "ws"))
        for row in rows():
            table.add_row(*(row[c] for c in shown))
        # Piped output gets a wide table rather than rich's 80-column fallback.
        Console(width=None if sys.stdout.isatty() else 200).print(table)


if __name__ == "__main__":
    main()
