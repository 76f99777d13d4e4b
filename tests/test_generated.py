"""Every file derived from the specs is what `python -m servers.generate` writes; compose's ports are
stable by name; the compose commands of the README and docs/compose.md name the ports and services the
compose file has; adding a server to a copy of the working tree is its spec and page, then that command."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from servers.core import catalog, compose_model, derived, ports

ROOT = Path(__file__).resolve().parent.parent
COMPOSE_FILE = ROOT / "compose" / "docker-compose.yml"


def test_every_derived_file_is_current():
    stale = [str(path.relative_to(ROOT)) for path in derived.stale()]
    assert not stale, f"stale: {', '.join(stale)}: run `python -m servers.generate`"


def test_check_exits_1_naming_the_stale_file_and_the_command(tmp_path, monkeypatch):
    page = ROOT / "docs" / "servers" / "uvicorn.md"
    text = page.read_text()
    # a hand edit of the generated line (an entry dropped, as the pages had before) is stale, and render restores it
    edited = text.replace("`litestar_uvicorn`, ", "")
    assert edited != text
    item = next(d for d in derived.derived() if d.path == page)
    assert item.render(edited) == text
    done = subprocess.run([sys.executable, "-m", "servers.generate", "--check"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_a_file_without_its_markers_is_refused():
    with pytest.raises(derived.MarkersMissing, match="lacks the lines"):
        derived.splice("# uvicorn\n\nEntries: `a`.\n", derived.ENTRIES_START, derived.ENTRIES_END, "x", Path("p.md"))


def test_every_lesson_page_is_a_specs_and_in_the_nav():
    on_disk = {str(p.relative_to(ROOT)) for folder in ("servers", "frameworks") for p in (ROOT / "docs" / folder).glob("*.md")}
    assert set(derived.lesson_pages()) == on_disk, "a lesson page no spec names (its `lesson`), or a spec's page missing"
    nav = (ROOT / "mkdocs.yml").read_text()
    for page in on_disk:
        assert f": {page.removeprefix('docs/')}\n" in nav, page


def test_each_lesson_page_lists_the_entries_it_describes():
    for page, entries in derived.lesson_pages().items():
        text = (ROOT / page).read_text()
        line = next(line for line in text.splitlines() if line.startswith("Entries ("))
        assert re.findall(r"`([^`]+)`", line) == [e.name for e in entries], page


def test_every_extra_of_the_specs_is_in_pyproject_and_in_all():
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for name, requirements in catalog.EXTRAS.items():
        assert extras[name] == list(requirements)
    everything = re.fullmatch(r"refsuite\[(.*)\]", extras["all"][0])[1].split(",")
    assert set(everything) == set(extras) - {"all", "test"}


# -- ports: stable by name -----------------------------------------------------------------------

def published() -> dict[str, int]:
    """service -> its default host port, read from the compose file."""
    services = yaml.safe_load(COMPOSE_FILE.read_text())["services"]
    out = {}
    for name, service in services.items():
        for mapping in service.get("ports", []):
            out[name] = int(re.search(r":-(\d+)\}", mapping)[1])
    return out


def test_published_ports_are_unique_and_the_registrys():
    ports_of = published()
    assert len(set(ports_of.values())) == len(ports_of), "two services publish one port"
    registry = ports.load()
    assert {name: port for name, port in ports_of.items() if name in registry} == registry
    assert set(registry) == {name for name, _, _, _ in compose_model.app_services()}


def test_adding_a_stack_moves_no_other_port():
    before = {name: port for name, _, _, port in compose_model.app_services()}
    # a new server for every ASGI app, whose services sort among the others (as a real one's would)
    new = [f"{app.entry_prefix}_newserver-{family}" for app in catalog.APPS.values() if app.interface == "asgi"
           for family in catalog.FAMILIES]
    services = sorted([*before, *new])
    after = ports.assign(services, ports.load())
    assert {name: after[name] for name in before} == before
    assert len(set(after.values())) == len(after) and min(after[n] for n in new) > max(before.values())
    assert after["sanic-redis"] == before["sanic-redis"] == 8412


# -- the compose commands of the README and of docs/compose.md name what the compose file has -----

# where compose is shown, and the load commands each must keep (a test that checks nothing proves nothing)
COMPOSE_DOCS = {"README.md": 1, "docs/compose.md": 3}


def compose_blocks(page: str) -> list[str]:
    text = (ROOT / page).read_text()
    if page == "README.md":
        text = text.split("## Compose", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.*?)```", text, re.S)


@pytest.mark.parametrize("page", COMPOSE_DOCS)
def test_compose_commands_name_its_services_and_their_ports(page):
    services = yaml.safe_load(COMPOSE_FILE.read_text())["services"]
    ports_of = published()
    by_port = {port: name for name, port in ports_of.items()}
    checked = 0
    for block in compose_blocks(page):
        started = set()
        for line in block.splitlines():
            command = line.split("#", 1)[0]
            if re.search(r"\bup\b", command):
                named = [w for w in command.split(" up ", 1)[1].split() if not w.startswith("-")]
                assert set(named) <= set(services), f"{page} starts a service compose lacks: {line}"
                started |= set(named)
            for variable in re.findall(r"\bPORT_([A-Z0-9_]+)=", command):
                assert any(compose_model.port_variable(name) == f"PORT_{variable}" for name in services), line
            for name in re.findall(r"\bUPSTREAM=(\S+)", command):
                assert name in services, line
            for host, port in re.findall(r"http://(127\.0\.0\.1):(\d+)", command):
                name = by_port.get(int(port))
                assert name in started, f"{page} sends load to port {port}, which is {name}, not a service it started: {line}"
                entry, family = services[name]["labels"]["refsuite.entry"], services[name]["labels"]["refsuite.family"]
                servers = re.search(r"--servers (\S+)", command)
                if servers:
                    assert catalog.get(entry).name == servers[1] or compose_model.ALIASES.get(servers[1]) == entry, line
                for op in re.findall(r"--ops (\S+)|/(redis|mongo)/", command):
                    assert catalog.family_of(op[0]) == family if op[0] else op[1] == family, line
                checked += 1
    assert checked >= COMPOSE_DOCS[page], f"{page}'s compose example lost its load commands"


FAKE_SPEC = '''"""A server added by the test (its adapter is uvicorn's)."""
from servers.core.specs import ASGI, Http2, ServerSpec, Tls, WebSocket

EXTRAS = {"fakeserver": ("uvicorn>=0.54.0",)}

SPECS = (
    ServerSpec(name="fakeserver", interface=ASGI, serve="servers.adapters.uvicorn_server:serve", model="asyncio",
               entry_suffix="fakeserver", description="a server added by a test", details="Added by a test.",
               tls=Tls(cannot="a server added by a test"), http2=Http2(cannot="a server added by a test"),
               websocket=WebSocket(cannot="a server added by a test"),
               pip_packages=("uvicorn",), lesson="fakeserver", code_paths=("uvicorn/",)),
)
'''


def copy_working_tree(root: Path, copy: Path) -> None:
    """The files of root as a contributor has them: tracked ones (as edited) and new ones not yet added
    (a spec module, a lesson page), without what .gitignore leaves out (results, virtualenvs, builds)."""
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=root,
                           capture_output=True, text=True, check=True).stdout
    for name in filter(None, files.split("\0")):
        if (root / name).is_file():  # a tracked file deleted in the working tree is not there
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            (copy / name).write_bytes((root / name).read_bytes())


def test_the_copy_is_the_working_tree_as_a_contributor_has_it(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git = lambda *args: subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)
    git("init", "-q")
    (repo / ".gitignore").write_text("results/\n")
    (repo / "tracked.py").write_text("old\n")
    (repo / "gone.py").write_text("x\n")
    git("add", ".")
    (repo / "tracked.py").write_text("edited\n")
    (repo / "gone.py").unlink()
    (repo / "servers").mkdir()
    (repo / "servers" / "new_spec.py").write_text("SPECS = ()\n")  # not added yet
    (repo / "results").mkdir()
    (repo / "results" / "run.jsonl").write_text("{}\n")
    copy_working_tree(repo, tmp_path / "copy")
    copied = {str(p.relative_to(tmp_path / "copy")) for p in (tmp_path / "copy").rglob("*") if p.is_file()}
    assert copied == {".gitignore", "tracked.py", "servers/new_spec.py"}
    assert (tmp_path / "copy" / "tracked.py").read_text() == "edited\n"


def test_adding_a_server_is_its_spec_and_page_then_one_command(tmp_path):
    """In a copy of the working tree: a new spec module and lesson page, `python -m servers.generate`,
    and every derived file follows; no published port of an existing service moves."""
    copy = tmp_path / "repo"
    copy_working_tree(ROOT, copy)
    (copy / "servers" / "adapters" / "fakeserver_spec.py").write_text(FAKE_SPEC)
    (copy / "docs" / "servers" / "fakeserver.md").write_text(
        f"# A fake server\n\n{derived.ENTRIES_START}\n{derived.ENTRIES_END}\n\nHow it serves a request.\n")
    env = {**__import__("os").environ, "PYTHONPATH": str(copy)}
    done = subprocess.run([sys.executable, "-m", "servers.generate"], cwd=copy, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    written = set(done.stdout.split(": ", 1)[1].split())
    asgi_apps = [a.entry_prefix for a in catalog.APPS.values() if a.interface == "asgi" and not a.servers]
    assert {f"servers/{app}_fakeserver.py" for app in asgi_apps} <= written
    assert {"compose/ports.json", "compose/docker-compose.yml", "docs/catalog.md", "pyproject.toml",
            "mkdocs.yml", "docs/README.md", "docs/servers/fakeserver.md"} <= written
    check = subprocess.run([sys.executable, "-m", "servers.generate", "--check"], cwd=copy, env=env,
                           capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    before = json.loads((ROOT / "compose" / "ports.json").read_text())
    after = json.loads((copy / "compose" / "ports.json").read_text())
    assert {name: after[name] for name in before} == before, "adding a server moved a published port"
    assert len(after) > len(before) and len(set(after.values())) == len(after)
    assert "`starlette_fakeserver`" in (copy / "docs" / "servers" / "fakeserver.md").read_text()
