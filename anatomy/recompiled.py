"""Code a framework recompiles at run time, placed back in the file it came from.

Sanic's TouchUp rewrites the methods a class lists in `__touchup__` at server start and compiles
them under the method's bare name as file name: py-spy shows `send (send:13)`, which no layer rule
owns. The installed package's own declarations say where each came from (read with ast, nothing
imported), so `send (send:13)` is placed in `sanic/server/protocols/http_protocol.py`.
"""
from __future__ import annotations

import ast
import functools
import importlib.util
from pathlib import Path

PACKAGES = ("sanic",)  # packages that recompile their own methods (Sanic's TouchUp)


@functools.cache
def methods() -> dict[str, str]:
    """Recompiled method name -> package-relative path of the file that defines it."""
    found: dict[str, str] = {}
    for package in PACKAGES:
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.origin:
            continue
        root = Path(spec.origin).parent
        for path in root.rglob("*.py"):
            text = path.read_text(encoding="utf-8", errors="replace")
            if "__touchup__" not in text:
                continue
            for node in ast.walk(ast.parse(text)):
                if not isinstance(node, ast.ClassDef):
                    continue
                for item in node.body:
                    if (isinstance(item, ast.Assign) and any(getattr(t, "id", "") == "__touchup__" for t in item.targets)
                            and isinstance(item.value, (ast.Tuple, ast.List))):
                        for element in item.value.elts:
                            if isinstance(element, ast.Constant) and isinstance(element.value, str):
                                found[element.value] = f"{package}/{path.relative_to(root).as_posix()}"
    return found


def real_frame(frame: str) -> str:
    """`send (send:13)` -> `send (sanic/server/protocols/http_protocol.py:13)`; any other frame as it is."""
    if not frame.endswith(")") or " (" not in frame:
        return frame
    name, _, place = frame[:-1].rpartition(" (")
    file, _, line = place.rpartition(":")
    if file != name.rsplit(".", 1)[-1] or file not in methods():
        return frame
    return f"{name} ({methods()[file]}:{line})"
