"""`python -m anatomy`: real stacks under a short real wrk load, observed from outside."""
from __future__ import annotations

import json
import shutil
from types import SimpleNamespace
from xml.etree import ElementTree

import psutil
import pytest

from anatomy import docs, layers, pprof, pyspy, report, session, sources
from bench.run import anatomy_run
from servers.core import lessons
from backends.pools import MAX_POOL_SIZE
from servers.core import catalog
from serverproc import ServerProcess
from processes.ports import free_port

SECONDS = 4.0
IDLE_WORKER_CPU_S = 0.02  # an idle gunicorn sync worker over SECONDS spends far less (its heartbeat)
needs_wrk = pytest.mark.skipif(shutil.which("wrk") is None, reason="wrk is not installed (apt-get install wrk)")


def run(tmp_path, name: str, seconds: float = SECONDS, **kw) -> dict:
    return session.run(session.Settings(name=name, seconds=seconds, connections=16, workdir=tmp_path, **kw))


def test_every_stacks_layer_rules_are_its_specs_code_paths():
    for entry in catalog.ENTRIES:
        assert entry.server_spec.code_paths, f"{entry.server}: no code paths for the anatomy's server layer"
        rules = dict(layers.rules_for(entry.server, entry.app).prefixes)
        for path in entry.server_spec.code_paths:  # the server's, unless the framework's own file
            assert rules[path] == layers.SERVER or path in entry.app_spec.code_paths, (entry.name, path)
        for path in entry.app_spec.code_paths:
            assert rules[path] == layers.FRAMEWORK or path in entry.server_spec.code_paths, (entry.name, path)
        assert layers.rules_for(entry.server, entry.app).server == entry.server
        assert layers.rules_for(entry.server, entry.app).framework == entry.framework


def test_the_most_specific_rule_wins():
    flask_dev = layers.rules_for("werkzeug", "flask")
    assert layers.layer_of_frame("run_simple (werkzeug/serving.py:1100)", flask_dev) == layers.SERVER
    assert layers.layer_of_frame("Map.bind (werkzeug/routing/map.py:200)", flask_dev) == layers.FRAMEWORK
    tornado = layers.rules_for("tornado", "tornado")
    assert layers.layer_of_frame("RequestHandler.finish (tornado/web.py:1200)", tornado) == layers.FRAMEWORK
    assert layers.layer_of_frame("IOStream.write (tornado/iostream.py:500)", tornado) == layers.SERVER
    # a stdlib leaf belongs to its nearest owned caller; a stack owned by nobody to the interpreter
    assert layers.layer_of_stack(["Worker.run (gunicorn/workers/sync.py:1)", "socket.send (socket.py:2)"],
                                 layers.rules_for("gunicorn-sync", "flask")) == layers.SERVER
    assert layers.layer_of_stack(["<module> (threading.py:1)"], tornado) == layers.INTERPRETER


def test_the_template_layer_is_the_engine_its_escaping_and_the_compiled_template():
    flask = layers.rules_for("gunicorn-gthread", "flask")
    template = "root (/work/x/servers/apps/templates/fortunes.html:7)"  # Jinja2's code carries the file's path
    assert layers.layer_of_frame(template, flask) == layers.TEMPLATE
    assert layers.layer_of_frame("fortunes_page (/work/x/servers/apps/flask_app.py:80)", flask) == layers.APP
    assert layers.layer_of_frame("escape (site-packages/markupsafe/__init__.py:24)", flask) == layers.TEMPLATE
    tornado = layers.rules_for("tornado", "tornado")
    # one function of tornado/escape.py is the template's; the file's others stay the framework's
    assert layers.layer_of_frame("xhtml_escape (site-packages/tornado/escape.py:40)", tornado) == layers.TEMPLATE
    assert layers.layer_of_frame("utf8 (site-packages/tornado/escape.py:200)", tornado) == layers.FRAMEWORK
    assert layers.layer_of_frame("_tt_execute (fortunes_html.generated.py:5)", tornado) == layers.TEMPLATE
    django = layers.rules_for("gunicorn-gthread", "django")
    assert layers.layer_of_frame("Template.render (site-packages/django/template/base.py:1)", django) == layers.TEMPLATE
    assert layers.layer_of_frame("WSGIHandler.__call__ (site-packages/django/core/handlers/wsgi.py:1)",
                                 django) == layers.FRAMEWORK
    go = layers.rules_for("net/http", "nethttp")
    assert layers.layer_of_frame("html/template.htmlEscaper", go) == layers.TEMPLATE
    assert layers.layer_of_frame("text/template.(*state).walk", go) == layers.TEMPLATE
    for entry in catalog.ENTRIES:
        if "fortunes" in entry.ops:
            assert entry.app_spec.template_paths or entry.app == "stdlib", f"{entry.name}: no template layer"


@needs_wrk
@pytest.mark.alone  # the profiler's sampling of two busy workers: on a machine busy with other tests it sees too little
def test_two_gunicorn_workers_share_the_load_under_one_supervisor(tmp_path):
    result = run(tmp_path, "flask_gunicorn", workers=2)
    roles = sorted(p["role"] for p in result["processes"])
    assert roles == ["supervisor", "worker", "worker"], result["processes"]
    workers = [p for p in result["processes"] if p["role"] == "worker"]
    # Both take requests: each worker's CPU over the load is well above an idle sync worker's (its heartbeat,
    # microseconds a second); how the kernel splits the accepts between them varies with the machine's load,
    # so no share is asserted.
    assert all(p["cpu_s"] > IDLE_WORKER_CPU_S for p in workers), workers
    assert "shared by 3 processes" in result["connections"]["listen"]  # one accept queue, inherited
    cpu = result["cpu"]
    if cpu["why"]:
        pytest.skip(f"CPU layers not measured: {cpu['why']}")
    assert sum(cpu["layers"].values()) == pytest.approx(100, abs=0.5)
    busiest = [k for k in sorted(cpu["layers"], key=cpu["layers"].get, reverse=True) if k != layers.IDLE][:3]
    assert layers.SERVER in busiest and layers.FRAMEWORK in busiest, cpu["layers"]
    assert "server (gunicorn-sync)" in cpu["shares"] and "framework (flask)" in cpu["shares"]
    assert any("gunicorn/" in t["function"] for t in cpu["top"])
    svg = ElementTree.fromstring(report.flame_svg(result))  # the flame graph is well-formed SVG
    assert len(svg.findall(".//{http://www.w3.org/2000/svg}rect")) > 10


@needs_wrk
def test_bench_anatomy_runs_the_anatomy_command_for_each_stack_that_ran(tmp_path):
    """`bench.sh run --anatomy`: bench names the stacks and runs `python -m anatomy --bench-report`."""
    results = [SimpleNamespace(ok=False, entrypoint="nethttp", operation="hello"),
               SimpleNamespace(ok=True, entrypoint="stdlib", operation="json"),
               SimpleNamespace(ok=True, entrypoint="stdlib", operation="hello")]
    assert anatomy_run.stacks(results) == ["stdlib:json"]
    assert anatomy_run.write_anatomy(results, tmp_path, seconds=3.0) == 0
    measured = json.loads((tmp_path / "anatomy.json").read_text())
    assert [(m["entry"], m["op"]) for m in measured] == [("stdlib", "json")]
    assert measured[0]["load"]["requests"] > 0
    assert 'id="anatomy"' in (tmp_path / "anatomy.html").read_text()


@needs_wrk
@pytest.mark.parametrize("name", ["flask_gunicorn", "flask_gunicorn_gthread", "sanic"])  # sync, threads, asyncio
def test_per_request_redis_opens_one_connection_per_request_and_the_pool_none(tmp_path, name):
    """What docs/backends/connections.md teaches: a per-request client connects once per request, a pool
    about never once it is warm, whatever the concurrency model."""
    per_request = run(tmp_path, name, op="redis-per-request", workers=1, profile=False)
    conns = per_request["connections"]
    assert conns["backend_new_per_request"] == pytest.approx(1.0, rel=0.2), conns  # the whole load: exact counts
    assert "per request" in report.as_text(per_request)
    pooled = run(tmp_path, name, op="redis-pooled", workers=1, profile=False)
    conns = pooled["connections"]
    assert 0 < conns["backend_open_max"] <= MAX_POOL_SIZE
    assert conns["backend_new_whole_load"] <= MAX_POOL_SIZE  # the pool's own connections, opened once
    assert conns["backend_new_per_s"] <= 0.02 * pooled["load"]["requests_per_s"], conns


@needs_wrk
@pytest.mark.parametrize("name", ["gin"])  # a Go name in the test id: conftest builds the Go binaries first
def test_a_go_entry_profile_is_attributed_by_package(tmp_path, name):
    if pprof.unavailable():
        pytest.skip(pprof.unavailable())
    result = run(tmp_path, name)
    cpu = result["cpu"]
    assert not cpu["why"], cpu["why"]
    assert sum(cpu["layers"].values()) == pytest.approx(100, abs=0.5)
    assert cpu["layers"].get(layers.SERVER, 0) > 5, cpu["layers"]  # net/http
    assert "server (net/http)" in cpu["shares"]
    assert any(t["function"].startswith(("net/http.", "internal/", "syscall.", "runtime.")) for t in cpu["top"])


def _listeners(pid: int) -> dict[int, str]:
    """port -> address of each listening socket of pid (Go listens on :: for 0.0.0.0)."""
    return {c.laddr.port: c.laddr.ip for c in psutil.Process(pid).net_connections("tcp")
            if c.status == psutil.CONN_LISTEN}


@pytest.mark.parametrize("name", ["nethttp"])
def test_the_go_debug_listener_is_off_by_default_and_loopback_only(name):
    plain = ServerProcess(name, ["--host", "0.0.0.0"]).start()
    try:
        assert list(_listeners(plain.proc.pid)) == [plain.port]
    finally:
        plain.stop()
    debug_port = free_port()
    debug = ServerProcess(name, ["--host", "0.0.0.0"], env={pprof.ENV: str(debug_port)}).start()
    try:
        listeners = _listeners(debug.proc.pid)
        assert sorted(listeners) == sorted([debug.port, debug_port])
        assert listeners[debug_port] == "127.0.0.1" and listeners[debug.port] != "127.0.0.1"
        response, _ = debug.request("/debug/pprof/")
        assert response.status == 404  # the server's own routes never serve the profiler
    finally:
        debug.stop()


def test_without_py_spy_the_cpu_section_says_why_in_one_line(monkeypatch, tmp_path):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    why = pyspy.unavailable()
    assert why and "\n" not in why and "py-spy" in why


def test_every_entry_has_a_lesson_page_and_every_page_a_measured_example():
    for entry in catalog.ENTRIES:
        assert lessons.pages(entry), f"{entry.name}: no page for server {entry.server}"
    for page in docs.page_files():
        text = page.read_text(encoding="utf-8")
        match = docs.EXAMPLE.search(text)
        table = docs.TABLE.search(text)
        assert match or table, page
        names = [match["name"]] if match else [name for name, _ in docs.table_stacks(table)]
        assert all(name in catalog.BY_NAME for name in names), page


def test_every_lesson_link_names_a_function_of_the_installed_version():
    """Each linked function exists in the installed source (a newer release that renamed one fails
    here); `python -m anatomy --docs --links-only` re-points tags and lines after an upgrade."""
    for page in docs.page_files():
        sources.resolve(page.read_text(encoding="utf-8"))  # raises SourceError naming the link
