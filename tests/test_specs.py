"""A server's or a framework's facts have one home, its spec: the catalog, the entry modules, the
lesson links and the tables of other modules all come from there."""
from __future__ import annotations

import ast
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

from servers.core import catalog, entry_modules
from servers.core.specs import FrameworkSpec, ServerSpec

ROOT = Path(__file__).resolve().parent.parent
SPEC_FILES = sorted(path for folder in ("adapters", "apps") for path in (ROOT / "servers" / folder).glob("*_spec.py"))


def _specs_of(module: str) -> tuple:
    return importlib.import_module(module).SPECS


def test_every_spec_module_on_disk_is_registered_and_beside_its_code():
    registered = set(catalog.SPEC_MODULES)
    for path in SPEC_FILES:
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        assert module in registered, f"{module} is not in catalog.SPEC_MODULES"
        for spec in _specs_of(module):
            code = spec.serve if isinstance(spec, ServerSpec) else spec.factory
            assert code.partition(":")[0] == module.removesuffix("_spec"), (module, spec.name)


def test_every_server_and_app_has_exactly_one_spec_and_every_spec_serves_an_entry():
    servers = [s.name for m in catalog.SPEC_MODULES for s in _specs_of(m) if isinstance(s, ServerSpec)]
    apps = [s.name for m in catalog.SPEC_MODULES for s in _specs_of(m) if isinstance(s, FrameworkSpec)]
    assert len(servers) == len(set(servers)) and len(apps) == len(set(apps))
    assert {e.server for e in catalog.ENTRIES} == set(servers) == set(catalog.SERVERS)
    assert {e.app for e in catalog.ENTRIES} == set(apps) == set(catalog.APPS)


def test_reading_the_catalog_imports_no_server_framework_or_event_loop():
    """Every entry reads the catalog before gevent's adapter monkey-patches: the specs must import nothing."""
    code = "import sys, json; import servers.core.catalog; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    loaded = {name.split(".")[0] for name in json.loads(done.stdout)}
    libraries = {p.split("/")[0].removesuffix(".py") for s in catalog.SERVERS.values() for p in s.code_paths}
    libraries |= {p.split("/")[0] for a in catalog.APPS.values() for p in a.code_paths}
    assert not loaded & (libraries | {"ssl"}), loaded & (libraries | {"ssl"})


def test_entry_modules_are_generated_from_the_specs():
    assert entry_modules.stale() == [], "entry modules are stale: python -m servers.generate"


def test_an_entrys_help_is_its_specs_words(tmp_path):
    entry = catalog.get("flask_granian")
    done = subprocess.run([sys.executable, "-m", entry.module, "--help"], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    help_text = " ".join(done.stdout.split())
    for words in (entry.description, entry.server_spec.details, *entry.caveat_texts):
        assert " ".join(words.split()) in help_text


def test_every_server_says_how_it_speaks_http2_and_the_help_says_it():
    """Http2 is declared once per server: h2 by ALPN only where the server terminates TLS itself, a mode it
    lacks said why, and an entry's --help says what --http2 does there (from the spec, not a table)."""
    from servers.core.specs import HTTP2_MODES

    for spec in catalog.SERVERS.values():
        h2 = spec.http2
        assert h2.speaks == bool(h2.modes) and (h2.library if h2.speaks else h2.cannot), spec.name
        assert not h2.over_tls or spec.tls.terminates, f"{spec.name}: h2 by ALPN without TLS of its own"
        if h2.speaks and set(h2.modes) != set(HTTP2_MODES):
            assert h2.missing, f"{spec.name}: says nothing of the HTTP/2 modes it lacks"
    for name in ("starlette_gunicorn_asgi", "flask_gunicorn"):
        entry = catalog.get(name)
        done = subprocess.run([sys.executable, "-m", entry.module, "--help"], capture_output=True, text=True, cwd=ROOT)
        help_text = " ".join(done.stdout.split())
        words = entry.http2.setting if entry.http2.speaks else entry.http2.cannot
        assert "--http2" in help_text and " ".join(words.split()) in help_text, name


def test_a_default_server_is_one_its_app_runs_on_and_no_alias_shadows_an_entry():
    for app in catalog.APPS.values():
        if app.default_server:
            entry = catalog.get(catalog.entry_name(app, catalog.SERVERS[app.default_server]))
            assert entry.app == app.name and app.framework not in catalog.BY_NAME, app.name


def test_a_caveat_key_means_one_text():
    caveats = [c for s in catalog.SERVERS.values() for c in s.caveats]
    caveats += [c for a in catalog.APPS.values() for c in a.all_caveats()]
    assert len({c.key for c in caveats}) == len(set(caveats)), "two texts under one caveat key"


def test_every_lesson_page_a_spec_names_exists():
    for spec in catalog.SERVERS.values():
        assert (ROOT / "docs" / "servers" / f"{spec.lesson}.md").exists(), spec.name
    for spec in catalog.APPS.values():
        assert not spec.lesson or (ROOT / "docs" / "frameworks" / f"{spec.lesson}.md").exists(), spec.name


def _named_tables(path: Path, names: set[str]):
    """Dict literals of a module with two or more of `names` among their string keys, and tuple, list
    or set literals with three or more (a list of the servers that have some property)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Dict):
            items, least = node.keys, 2
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            items, least = node.elts, 3
        else:
            continue
        keys = {k.value for k in items if isinstance(k, ast.Constant) and isinstance(k.value, str)}
        if len(keys & names) >= least:
            yield node.lineno, sorted(keys & names)


def test_no_module_but_the_specs_keys_a_table_by_server_or_app_name():
    """The tables the specs replaced (SERVER_PACKAGES, SERVER_PAGES, the anatomy's prefixes, ...) must
    not grow back. Names that are also distribution names (flask, sanic; echo and gin, the names
    anatomy/sources.py gives the Go modules) are left out: a table keyed by distribution (the source
    repositories of sources.py) is about the package, not the stack."""
    distributions = {p for s in (*catalog.SERVERS.values(), *catalog.APPS.values()) for p in s.pip_packages}
    names = (set(catalog.SERVERS) | set(catalog.APPS)) - distributions - {"echo", "gin"}
    spec_files = {*SPEC_FILES, ROOT / "servers" / "core" / "go_specs.py"}
    found = {}
    for folder in ("servers", "bench", "anatomy", "backends", "tests", "scripts"):
        for path in (ROOT / folder).rglob("*.py"):
            if path not in spec_files:
                found.update({f"{path.relative_to(ROOT)}:{line}": keys for line, keys in _named_tables(path, names)})
    assert not found, found
