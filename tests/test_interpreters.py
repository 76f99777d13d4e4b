"""The interpreter axis: every entry started on the interpreter asked (servers/core/command.py), its launcher checking
it runs there and saying so (servers/core/launch.py), and the GIL twin holding .venv-ft's packages at the same
versions (./setup.sh --gil-twin: scripts/gil-twin-setup.sh)."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from harness import versions
from harness.entry import ROOT, EntryProcess
from processes.ports import free_port
from serverproc import ServerProcess
from servers.core import command, interpreters

TWIN, FT = interpreters.GIL_TWIN, interpreters.FREE_THREADED
# CI does not build the twin (another 6-8 minutes of CPython build on 2 cores): no test of the default suite needs
# it, so these skip there too, saying so.
needs_twin = pytest.mark.skipif(
    not interpreters.available(TWIN),
    reason=f"the GIL twin is not set up here ({interpreters.get(TWIN).setup_hint}; CI does not build it)")
needs_ft = pytest.mark.skipif(not interpreters.available(FT) and not os.environ.get("CI"),
                              reason=f"free-threaded CPython 3.13t is not set up ({interpreters.SETUP_HINT})")


def test_an_entry_is_started_by_the_python_of_the_interpreter_asked():
    assert command.command("stdlib_threaded", ["--port", "1"]) == [sys.executable, "-m", "servers.stdlib_threaded",
                                                                    "--port", "1"]
    assert command.environment("stdlib_threaded", TWIN) == {interpreters.ENV: TWIN}
    assert command.environment("stdlib_threaded_ft") == {interpreters.ENV: FT}
    assert command.environment("nethttp") == {}  # a Go entry has no interpreter to check
    if interpreters.available(TWIN):
        argv = command.command("stdlib_threaded", [], TWIN)
        assert argv[0] == str(interpreters.python(TWIN)) and argv[1:] == ["-m", "servers.stdlib_threaded"]
    else:
        with pytest.raises(command.InterpreterMissing, match=r"\./setup\.sh --gil-twin"):
            command.command("stdlib_threaded", [], TWIN)
    # an _ft entry is the free-threaded stack: it runs on 3.13t only, and a base entry never runs there
    with pytest.raises(ValueError, match="stdlib_threaded_ft runs on cpython-3.13t only"):
        command.interpreter_of("stdlib_threaded_ft", TWIN)
    with pytest.raises(ValueError, match="the free-threaded stack is stdlib_threaded_ft"):
        command.interpreter_of("stdlib_threaded", FT)
    with pytest.raises(KeyError, match="no interpreter 'cpython-2.7'"):
        command.interpreter_of("stdlib_threaded", "cpython-2.7")


def test_a_process_started_for_another_interpreter_refuses_to_serve():
    """The launcher checks the interpreter it was started for: the project's Python is not the GIL twin."""
    if sys.version_info[:2] == (3, 13):
        pytest.skip("the suite runs on a 3.13: the mismatch needs another release")
    done = subprocess.run([sys.executable, "-m", "servers.stdlib", "--port", str(free_port())], cwd=ROOT,
                          env={**os.environ, interpreters.ENV: TWIN}, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (f"error: stdlib was started for {TWIN} on {sys.executable}, which is not it ({TWIN} is "
                           f"CPython 3.13.x; this is {sys.version.split()[0]}): run ./setup.sh --gil-twin\n")


def test_a_process_says_what_it_runs_on_where_its_starter_asked():
    server = ServerProcess("stdlib_threaded", env={interpreters.ENV: interpreters.GIL}).start()
    try:
        facts = server.interpreter_facts()
        assert facts == {"key": interpreters.GIL, **interpreters.running(), "executable": sys.executable}
        assert server.request("/")[0].status == 200
    finally:
        server.stop()


@needs_twin
def test_an_entry_on_the_twin_runs_on_its_3_13_with_the_gil():
    server = EntryProcess("stdlib_threaded", ["--port", str(free_port())], interpreter=TWIN).start()
    try:
        facts = server.interpreter_facts()
        assert (facts["key"], facts["build"], facts["gil"]) == (TWIN, "gil", "on")
        assert facts["executable"] == str(interpreters.python(TWIN))
        assert versions.venv_versions(TWIN)["python"] == facts["version"]
    finally:
        server.stop()


@needs_twin
@needs_ft
def test_the_twin_is_3_13t_with_the_gil_and_the_same_package_versions():
    """Same CPython release, the GIL on one side only, and every distribution of .venv-ft at the same version in
    .venv-313 (pip, the installer, aside): what the free-threading comparison's control rests on."""
    twin, ft = versions.venv_versions(TWIN), versions.venv_versions(FT)
    assert twin and ft, "both venvs answer"
    assert ft.pop("python") == twin.pop("python") + "t"
    twin.pop("pip", None), ft.pop("pip", None)
    assert twin == ft
    assert twin["granian"] == "2.7.9"  # the last granian with cp313t wheels, on both sides


def test_an_entry_on_the_twin_runs_what_its_free_threaded_variant_runs():
    """The twin holds .venv-ft's distributions and nothing else (no hiredis): a base entry run there takes its
    Redis routes to the client its _ft variant uses, so the two stacks differ by the GIL alone."""
    from servers.core import catalog

    for name in ("flask_granian", "flask_gunicorn_gthread", "falcon_waitress"):
        base, ft = catalog.get(name), catalog.get(name + interpreters.ENTRY_SUFFIX)
        on_twin = catalog.on_interpreter(base, TWIN)
        assert on_twin.redis_client == ft.redis_client != base.redis_client
        assert set(on_twin.packages) >= set(ft.packages)
        assert catalog.on_interpreter(base, interpreters.GIL) is base  # on the project's Python, as it is
