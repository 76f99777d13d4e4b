"""What to say when pytest's -k selects no test: a command of docs/contributing.md given a wrong name would
otherwise run nothing and exit quietly (pytest's exit code 5, "no tests ran")."""
from __future__ import annotations

import re

from servers.core import catalog

NO_TESTS_COLLECTED = 5


def hint(keyword: str) -> str:
    """Why `-k keyword` may have matched nothing, and the names it could have meant."""
    lines = [f"-k {keyword!r} selected no test: test ids hold entry names, <app>_<suffix> (python -m servers lists "
             "them); a server's parser owner is bare_NAME on WSGI, bare_asgi_NAME on ASGI, bare_rsgi_NAME on RSGI: "
             "`python -m tests.conformance --owner SERVER` prints it"]
    for word in re.findall(r"[A-Za-z0-9_.\-/]+", keyword):
        if word in ("and", "or", "not") or word in catalog.BY_NAME:
            continue
        server = word.removeprefix("bare_")
        owners = {catalog.parser_owner(e).name for e in catalog.ENTRIES
                  if server in (e.server, catalog.SERVERS[e.server].entry_suffix) and not e.free_threaded}
        if owners:
            lines.append(f"  {word!r}: the parser owner of server {server!r} is {', '.join(sorted(owners))}")
    return "\n".join(lines)


def report(terminalreporter, exitstatus: int, keyword: str) -> None:
    """conftest's pytest_terminal_summary: a -k that matched no test says so, with the names it could have meant."""
    if exitstatus == NO_TESTS_COLLECTED and keyword:
        terminalreporter.write_line(hint(keyword), red=True, bold=True)
