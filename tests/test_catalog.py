"""The catalog is the only list: modules on disk, Go commands, adapters and docs/catalog.md agree with it."""
from __future__ import annotations

import importlib.util
from importlib import metadata
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from backends import drivers
from conformance import known
from servers.core import catalog
from servers.__main__ import markdown_table

ROOT = Path(__file__).resolve().parent.parent
CATALOG_PAGE = ROOT / "docs" / "catalog.md"


def is_command_module(source: str) -> bool:
    """`python -m servers.X` of a command (run, compose): a main() and a docstring that names it."""
    return "\ndef main(" in source and source.startswith('"""`python -m servers.')


def test_python_modules_on_disk_are_the_catalogs_entries_or_commands():
    """servers/ holds entry modules and command modules only; the rest lives in servers/core."""
    modules = {p.stem: p.read_text() for p in (ROOT / "servers").glob("*.py") if not p.stem.startswith("__")}
    entries = {name for name, source in modules.items() if not is_command_module(source)}
    assert entries == {e.name for e in catalog.python_entries()}
    assert set(modules) - entries >= {"run", "compose"}


def test_each_entrypoint_module_launches_its_own_name():
    for entry in catalog.python_entries():
        source = (ROOT / "servers" / f"{entry.name}.py").read_text()
        assert f'launch("{entry.name}")' in source
        assert source.startswith('"""'), f"{entry.name}: a docstring saying how the stack serves a request"


@pytest.mark.parametrize("name", ["sanic", "tornado", "flask_gevent"])
def test_an_entry_run_as_a_file_refuses_rather_than_shadow_its_library(name, tmp_path):
    """`python servers/sanic.py` puts servers/ on sys.path, where sanic.py would pose as the sanic library."""
    done = subprocess.run([sys.executable, str(ROOT / "servers" / f"{name}.py"), "--port", "1"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=30)
    assert done.returncode == 1 and f"python -m servers.{name}" in done.stderr, done.stderr
    shadowed = subprocess.run([sys.executable, "-c", "import sanic"], capture_output=True, text=True,
                              cwd=tmp_path, timeout=30, env={**os.environ, "PYTHONPATH": str(ROOT / "servers")})
    assert shadowed.returncode == 1 and "python -m servers.sanic" in shadowed.stderr, shadowed.stderr


def test_go_commands_are_the_catalog():
    on_disk = {p.name for p in (ROOT / "servers" / "go" / "cmd").iterdir() if p.is_dir()}
    assert on_disk == {e.name for e in catalog.ENTRIES if e.language == "go"} == set(catalog.GO_COMMANDS)
    # Echo and Gin are routers on net/http; fasthttp is a server of its own
    servers = {e.name: e.server for e in catalog.ENTRIES if e.language == "go"}
    assert servers == {**{name: "net/http" for name in ("echo", "gin", "nethttp")}, "fasthttp": "fasthttp"}


def test_every_entry_composes_an_app_and_an_adapter_of_one_interface():
    for entry in catalog.python_entries():
        app, server = catalog.APPS[entry.app], catalog.SERVERS[entry.server]
        assert app.interface == server.interface, entry.name
        for path in (app.factory, server.serve):
            module, _, attr = path.partition(":")
            assert importlib.util.find_spec(module) is not None and attr, path


def test_every_python_entry_records_the_versions_of_installed_packages():
    for entry in catalog.python_entries():
        assert entry.mongo_driver in drivers.MONGO, entry.name
        for package in entry.packages:  # a distribution name, as installed by the project's extras
            assert metadata.version(package), (entry.name, package)


def test_every_operation_has_a_family_and_backend_families_have_a_started_backend():
    for operation in catalog.OPERATIONS:
        family = catalog.family_of(operation)
        assert family in catalog.FAMILIES and catalog.backend_of(operation) == catalog.FAMILY_BACKENDS[family]
    assert {b for b in catalog.FAMILY_BACKENDS.values() if b} == set(catalog.BACKENDS)


def test_names_are_unique_and_ops_known():
    names = [e.name for e in catalog.ENTRIES]
    assert len(names) == len(set(names))
    for entry in catalog.ENTRIES:
        assert set(entry.ops) <= set(catalog.OPERATIONS)
        assert entry.dev_only == bool(entry.dev_only_reason), entry.name
        assert set(entry.caveats) <= set(catalog.CAVEATS), entry.name
        # A parser's HTTP/1.1 conformance caveats (tests/conformance/known.py) hold on any stack it serves.
        limits = set(entry.caveats) - set(known.KNOWN)
        assert not (limits and entry.dev_only), f"{entry.name}: a caveat qualifies a production stack"


def test_the_docs_catalog_table_is_the_catalog():
    text = CATALOG_PAGE.read_text()
    match = re.search(r"<!-- catalog:start [^\n]*-->\n(.*?)\n<!-- catalog:end -->", text, re.S)
    assert match, "docs/catalog.md lacks the catalog markers"
    assert match[1].strip() == markdown_table().strip(), "docs/catalog.md's table is stale: python -m servers.generate"
    rows = re.findall(r"^\| `(\w+)` \|", match[1], re.M)
    assert rows == [e.name for e in catalog.ENTRIES]


def test_every_caveat_the_catalog_names_is_on_the_caveats_page_with_its_stacks():
    page = (ROOT / "docs" / "caveats.md").read_text()
    for key, text in catalog.CAVEATS.items():
        section = page.split(f"\n### {key}\n", 1)[1].split("\n### ", 1)[0]
        assert text in section, key
        stacks = re.search(r"Stacks \(\d+\): (.*)\.", section)[1]
        assert re.findall(r"`(\w+)`", stacks) == [e.name for e in catalog.ENTRIES if key in e.caveats], key


@pytest.mark.parametrize("flag", [[], ["--json"], ["--markdown"]])
def test_python_m_servers_prints_the_catalog(flag):
    done = subprocess.run([sys.executable, "-m", "servers", *flag], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    for entry in catalog.ENTRIES:
        assert entry.name in done.stdout


def test_catalog_json_is_every_entry_with_its_fields():
    done = subprocess.run([sys.executable, "-m", "servers", "--json"], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    entries = json.loads(done.stdout)
    assert [e["name"] for e in entries] == [e.name for e in catalog.ENTRIES]
    for item, entry in zip(entries, catalog.ENTRIES):
        assert item["module"] == entry.module and item["ops"] == list(entry.ops) and item["tags"] == list(entry.tags)
        assert item["workers"] == entry.workers  # null: one per core
        for field in ("language", "framework", "server", "model", "description"):
            assert item[field] == getattr(entry, field) and item[field], (entry.name, field)


def test_python_m_servers_help_names_the_other_commands():
    done = subprocess.run([sys.executable, "-m", "servers", "--help"], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    for command in ("python -m servers.NAME", "python -m servers.run NAME", "python -m servers.compose"):
        assert command in done.stdout


def test_werkzeugs_processes_mode_forks_on_a_one_core_machine(monkeypatch):
    """make_server forks only for processes > 1 (with 1 it is the single-threaded HTTP/1.0 server): one per usable
    core is raised to 2 on one core, and so is an explicit --workers 1, saying why (seen: flask_processes answered
    HTTP/1.0 under `taskset -c 0`)."""
    from servers.core import launch

    monkeypatch.setattr(catalog, "usable_cores", lambda: 1)
    entry = catalog.get("flask_processes")
    assert entry.min_workers == 2 and entry.default_workers() == 2
    assert catalog.get("flask_threaded").default_workers() == 1
    assert launch.parse_options(entry, []).workers == 2
    assert launch.parse_options(entry, ["--workers", "1"]).workers == 2
    with pytest.raises(SystemExit):
        launch.parse_options(entry, ["--workers", "0"])
