"""Links to the exact function of the library version installed here, on GitHub at its release tag.

A lesson page links a function as [`Qualified.name`](src:path/in/package.py) (or an already
resolved GitHub blob URL); resolve() finds that function in the installed file (ast for Python, a
`func` line for Go), so the line anchor is the pinned version's and a renamed function fails
loudly instead of pointing at the wrong line. The installed file is the release's file: checked
here for werkzeug 3.1.8, flask 3.1.3 and waitress 3.0.2 against their tags.
"""
from __future__ import annotations

import ast
import functools
import importlib.util
import platform
import re
import subprocess
import sysconfig
from importlib import metadata
from pathlib import Path

from servers.core import catalog

# distribution -> (GitHub repository, tag of version v, folder of the package in the repository): the
# spec modules' SOURCES, and the two languages.
REPOS: dict[str, tuple[str, str, str]] = {
    **catalog.SOURCES,
    "python": ("python/cpython", "v{v}", "Lib/"),
    "go": ("golang/go", "{v}", "src/"),
}
# Go modules of servers/go/go.mod, from the Go frameworks' specs: distribution -> module path (a src:
# path starts with it).
GO_MODULES = {app.name: module for app in catalog.APPS.values() if app.language == "go" for module in app.pip_packages}
_PACKAGE_DIST = {"sanic_routing": "sanic-routing"}
LINK = re.compile(r"\[`(?P<name>[^`]+)`\]\((?P<target>src:[^)\s]+|https://github\.com/[^)\s]+/blob/[^)\s]+)\)")


class SourceError(ValueError):
    """A link that cannot point at the installed source: a package no spec's SOURCES names, one not installed,
    a file or a function the installed version lacks."""


@functools.cache
def go_root() -> Path:
    out = subprocess.run(["go", "env", "GOROOT", "GOVERSION"], capture_output=True, text=True, check=True).stdout
    root, version = out.split()
    _GO_VERSION[0] = version
    return Path(root)


_GO_VERSION = [""]


def dist_of(path: str) -> str:
    """The distribution a package-relative path belongs to (`http/server.py` is the stdlib's)."""
    for dist, module in GO_MODULES.items():
        if path.startswith(module + "/"):
            return dist
    if path.endswith(".go"):
        return "go"
    top = path.split("/", 1)[0].removesuffix(".py")
    dist = _PACKAGE_DIST.get(top, top)
    return dist if dist in REPOS and dist not in ("python", "go") else "python"


def version(dist: str) -> str:
    if dist == "python":
        return platform.python_version()
    if dist == "go":
        go_root()
        return _GO_VERSION[0]
    if dist in GO_MODULES:
        from harness.versions import go_mod_requires

        return go_mod_requires()[GO_MODULES[dist]]
    return metadata.version(dist)


def local_file(path: str) -> Path:
    dist = dist_of(path)
    if dist in GO_MODULES:
        cache = subprocess.run(["go", "env", "GOMODCACHE"], capture_output=True, text=True, check=True).stdout.strip()
        module = GO_MODULES[dist]
        return Path(cache) / f"{module}@{version(dist)}" / path[len(module) + 1:]
    if dist == "go":
        return go_root() / "src" / path
    top = path.split("/", 1)[0].removesuffix(".py")
    if dist == "python":
        found = Path(sysconfig.get_paths()["stdlib"]) / path
        if not found.exists():  # not the stdlib's: a package no spec module's SOURCES names
            raise SourceError(f"src:{path}: no spec module's SOURCES names the package {top!r} (its GitHub "
                              f"repository, tag and folder: see servers/adapters/waitress_server_spec.py)")
        return found
    spec = importlib.util.find_spec(top)
    if spec is None or spec.origin is None:
        raise SourceError(f"src:{path}: {dist} is not installed here (pip install it, or the extra of its spec)")
    return Path(spec.origin).parent.parent / path


_GO_FUNC = re.compile(r"^func (?:\(\w+ \*?(?P<recv>\w+)(?:\[[^\]]*\])?\) )?(?P<name>\w+)[\[(]")


def line_of(path: str, qualname: str) -> int:
    """The line of `def`/`class`/`func` (or class attribute) qualname in the installed file of path."""
    try:
        text = local_file(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SourceError(f"src:{path}: the installed {dist_of(path)} has no such file") from None
    if path.endswith(".go"):
        for number, line in enumerate(text.splitlines(), 1):
            match = _GO_FUNC.match(line)
            if match and ".".join(filter(None, (match["recv"], match["name"]))) == qualname:
                return number
        raise SourceError(f"{path} defines no func {qualname}")
    found = {}

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                found.setdefault(name, child.lineno)
                walk(child, name + ".")
            elif isinstance(child, ast.Assign) and isinstance(node, ast.ClassDef):  # a class attribute
                for target in child.targets:
                    if isinstance(target, ast.Name):
                        found.setdefault(f"{prefix}{target.id}", child.lineno)

    walk(ast.parse(text), "")
    if qualname not in found:
        raise SourceError(f"{path} ({dist_of(path)} {version(dist_of(path))}) defines no {qualname}")
    return found[qualname]


def url(path: str, qualname: str | None = None) -> str:
    dist = dist_of(path)
    repo, tag, folder = REPOS[dist]
    anchor = f"#L{line_of(path, qualname)}" if qualname else ""
    in_repo = path[len(GO_MODULES[dist]) + 1:] if dist in GO_MODULES else path
    return f"https://github.com/{repo}/blob/{tag.format(v=version(dist))}/{folder}{in_repo}{anchor}"


def package_path(target: str) -> str:
    """src:PATH or a GitHub blob URL of a known repository -> the package-relative PATH."""
    if target.startswith("src:"):
        return target[4:].split("#", 1)[0]
    rest = target.split("/blob/", 1)[1].split("#", 1)[0]
    path = rest.split("/", 1)[1]
    for dist, (repo, _, folder) in REPOS.items():
        if target.startswith(f"https://github.com/{repo}/") and path.startswith(folder):
            return (GO_MODULES[dist] + "/" if dist in GO_MODULES else "") + path[len(folder):]
    return path


def resolve(text: str) -> str:
    """Every [`name`](src:... or GitHub blob URL) link of text pointed at the installed version."""
    def fix(match: re.Match) -> str:
        name, target = match["name"], match["target"]
        if target.startswith("https://") and not any(target.startswith(f"https://github.com/{repo}/blob/")
                                                     for repo, _, _ in REPOS.values()):
            return match[0]  # a repository this suite pins nothing of (uWSGI's C, granian's Rust)
        path = package_path(target)
        qualname = name if re.fullmatch(r"[\w.]+", name) and not name.endswith((".py", ".go")) else None
        return f"[`{name}`]({url(path, qualname)})"

    return LINK.sub(fix, text)
