"""Free-threaded CPython 3.13t as an axis: the set-up's record agrees with the catalog, and the GIL is proven
off in every request (a free-threaded entry whose GIL came back answers 500 and says which module took it)."""
from __future__ import annotations

import os
import subprocess
import sys

import psutil
import pytest

from servers.core import catalog, gil_guard, interpreters
from serverproc import ROOT, ServerProcess

FREE_THREADED = [e for e in catalog.ENTRIES if e.free_threaded]
needs_free_threaded = pytest.mark.skipif(
    not interpreters.available(interpreters.FREE_THREADED) and not os.environ.get("CI"),
    reason=f"free-threaded CPython 3.13t is not set up ({interpreters.SETUP_HINT})")


def test_each_server_that_serves_on_3_13t_has_free_threaded_entries_beside_its_gil_ones():
    thread_servers = {s.name for s in catalog.SERVERS.values() if s.free_threaded}
    assert len(thread_servers) >= 5 and thread_servers == {e.server for e in FREE_THREADED}
    for entry in FREE_THREADED:
        base = catalog.get(entry.name.removesuffix(interpreters.ENTRY_SUFFIX))
        assert (base.app, base.server, base.interpreter) == (entry.app, entry.server, interpreters.GIL)
        assert entry.app_spec.free_threaded and entry.server_spec.free_threaded


@pytest.mark.parametrize("name", [e.name for e in FREE_THREADED])
def test_what_a_free_threaded_entry_runs_installs_there_with_the_gil_off(name):
    """The set-up's record (records/interpreters/python3.13t.json) must say every package of the entry
    installs on 3.13t and keeps the GIL off: a catalog claim the record contradicts fails here."""
    record = interpreters.packages()
    assert record, f"no record of the free-threaded packages: run {interpreters.SETUP_HINT}"
    for package in catalog.get(name).packages:
        found = record.get(package) or {}
        pulled = {p for r in record.values() for p in r.get("pulls", ())}
        assert interpreters.kept_off(package) or package in pulled, \
            f"{name} runs {package}, which the record says does not keep the GIL off on 3.13t: {found}"


def test_the_record_answers_for_the_requirements_pyproject_asks_today():
    """The record is what ./setup.sh installs on 3.13t: one made before a requirement changed (a new extra, a raised
    floor) leaves that package out of .venv-ft or at an old version, silently. FT_PROBE=1 ./setup.sh --free-threaded
    rewrites it."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import free_threaded_packages
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    record = interpreters.record().get("packages", {})
    stale = {name: (wanted, record.get(name, {}).get("requirement"))
             for name, wanted in free_threaded_packages.requirements().items()
             if record.get(name, {}).get("requirement") != wanted}
    assert not stale, ("records/interpreters/python3.13t.json answers for other requirements than pyproject's "
                       f"(now, recorded): {stale}: FT_PROBE=1 ./setup.sh --free-threaded")


def test_a_package_that_takes_the_gil_back_is_recorded_with_its_module():
    """hiredis built from source declares no Py_mod_gil: the set-up's probe names the module."""
    hiredis = interpreters.record().get("from_source", {}).get("hiredis")
    assert hiredis and hiredis["gil"] == "on" and hiredis["module"] == "hiredis.hiredis", hiredis
    assert "hiredis.hiredis" in hiredis["reason"]


def test_a_free_threaded_entry_without_its_interpreter_says_how_to_build_it(tmp_path):
    if sys.version_info >= (3, 13) and not sys._is_gil_enabled():
        pytest.skip("the suite runs on a free-threaded Python")
    missing = tmp_path / "no-venv-ft"
    done = subprocess.run([sys.executable, "-m", "servers.stdlib_threaded_ft", "--port", "1"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, env={**os.environ, "VENV_FT": str(missing)})
    assert done.returncode == 2, done.stderr
    assert done.stderr == (f"error: stdlib_threaded_ft runs on free-threaded CPython 3.13t, and {missing}/bin/python "
                           f"is missing: build it with `./setup.sh --free-threaded` (about 8 minutes the first time), "
                           f"then run this command again\n"), done.stderr


class AsWritten(ServerProcess):
    """An entry started as the README writes it, `python -m servers.NAME`, by the suite's own Python."""

    def command(self) -> list[str]:
        return [sys.executable, "-m", f"servers.{self.name}", *self.args]


@needs_free_threaded
# The stack's id in the test's name: a race its spec declares (granian-ft-sigterm-abort) is judged by that
# caveat here as everywhere (tests/caveats.py), not asserted away.
@pytest.mark.parametrize("name", ["flask_granian_ft"])
def test_a_free_threaded_entry_run_as_written_runs_on_its_interpreter(name):
    """`python -m servers.flask_granian_ft` on the default Python becomes (exec, same pid) the entry on .venv-ft's
    Python: the ready line, the GIL off in every request, and SIGTERM stopping it, as if started there."""
    if sys.version_info >= (3, 13) and not sys._is_gil_enabled():
        pytest.skip("the suite runs on a free-threaded Python")
    server = AsWritten(name).start()
    try:
        assert server.ready.name == name
        response, body = server.request("/json")
        assert response.status == 200 and body == b'{"message":"Hello, World!"}', body  # 500 if the GIL were on
        process = psutil.Process(server.pid)
        assert os.path.samefile(process.exe(), interpreters.python(interpreters.FREE_THREADED)), process.exe()
        assert process.cmdline()[1:] == ["-m", f"servers.{name}", "--port", str(server.port)]
        code, seconds, left = server.terminate()
        assert code == 0 and not left, (code, seconds, left, server.stderr_text())
    finally:
        server.stop()


@needs_free_threaded
@pytest.mark.parametrize("name", ["stdlib_threaded_ft", "flask_gunicorn_gthread_ft"])
def test_the_gil_coming_back_voids_every_request_and_names_why(name):
    """PYTHON_GIL=1 turns the GIL on in a free-threaded build: every request must then say so (500), and
    the server's stderr must carry the line the benchmark voids a cell by."""
    server = ServerProcess(name, env={"PYTHON_GIL": "1"}).start()
    try:
        response, body = server.request("/")
        assert response.status == 500 and b"GIL enabled" in body, body
        assert gil_guard.reenabled(server.stderr_text()), server.stderr_text()
    finally:
        server.stop()
    server = ServerProcess(name).start()
    try:
        response, body = server.request("/")
        assert response.status == 200 and body == b"Hello, World!"
        assert gil_guard.reenabled(server.stderr_text()) is None
    finally:
        server.stop()


def test_an_extra_that_takes_the_gil_back_is_refused_and_the_bare_requirement_recorded():
    """redis[hiredis] on 3.14t: hiredis has a wheel there and takes the GIL back; the probe records redis as installing
    without that extra (what `--installable` then installs), not as keeping the GIL off with it. Read here with this
    interpreter's redis and hiredis installed, and their GIL as 3.14t's probe found it."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import free_threaded_packages as probe
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    installed = {"redis": {"gil": "off", "version": "8.2.0"},
                 "hiredis": {"gil": "on", "version": "3.5.0", "module": "hiredis.hiredis", "reason": "GIL enabled"}}
    entry = probe.record("redis", "redis[hiredis]>=8.2.0", ("redis[hiredis]>=8.2.0", ""), installed)
    assert entry["installs"] and entry["gil"] == "off" and "hiredis" not in entry["pulls"], entry
    assert "hiredis 3.5.0, which takes the GIL back" in entry["as_written"]
