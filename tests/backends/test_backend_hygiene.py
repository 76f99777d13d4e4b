"""Importing backends opens nothing, and backends/ imports nothing from servers/."""

import ast
import subprocess
import sys
from pathlib import Path

from backends.local import REPO_ROOT

BACKENDS = REPO_ROOT / "backends"
MODULES = sorted(p.stem for p in BACKENDS.glob("*.py") if p.stem != "__main__")


def test_import_creates_no_client_thread_or_socket() -> None:
    code = (
        "import threading, psutil\n"
        + "".join(f"import backends.{m}\n" for m in MODULES)
        + "assert threading.active_count() == 1, threading.enumerate()\n"
        "assert psutil.Process().net_connections() == [], psutil.Process().net_connections()\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


def imported_names(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_no_import_from_servers() -> None:
    for path in BACKENDS.glob("*.py"):
        bad = [n for n in imported_names(path) if n == "servers" or n.startswith("servers.")]
        assert not bad, f"{path.name} imports {bad}"
