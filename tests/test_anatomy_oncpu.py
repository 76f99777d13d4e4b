"""CPU by layer counts on-CPU time only: a parked pool adds nothing, and Flask costs the same on any server."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from anatomy import layers, pyspy, session
from servers.core import catalog

PARKED = textwrap.dedent("""
    import socket, threading, time
    from concurrent.futures import ThreadPoolExecutor
    from werkzeug.http import parse_options_header  # werkzeug is Flask's layer by the rules

    def spin():
        while True:
            parse_options_header('text/html; charset="utf-8"; q=0.5')

    pool = ThreadPoolExecutor(8)
    for _ in range(8):
        pool.submit(lambda: None)  # 8 pool threads now parked in SimpleQueue.get
    a, b = socket.socketpair()
    threading.Thread(target=a.recv, args=(10,), daemon=True).start()  # parked in a recv
    threading.Thread(target=spin, daemon=True).start()
    print("ready", flush=True)
    time.sleep(60)
""")


@pytest.fixture
def parked_process():
    if pyspy.unavailable():
        pytest.skip(pyspy.unavailable())
    proc = subprocess.Popen([sys.executable, "-c", PARKED], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"
    yield proc
    proc.kill()
    proc.wait()


def test_a_parked_pool_adds_no_cpu_and_shows_as_held_time(parked_process, tmp_path):
    entry = catalog.get("flask_gunicorn_gthread")  # its rules: concurrent/futures is the server's pool
    profiler = session.Profiler(entry, tmp_path, None)
    profiler._run([parked_process.pid], 2)
    cpu = session.cpu_section(entry, profiler, [])
    assert not cpu["why"], cpu["why"]
    assert cpu["layers"].get(layers.FRAMEWORK, 0) > 80, cpu["layers"]  # the one busy thread is the CPU
    assert not any("_worker" in t["function"] or "recv" in t["function"] for t in cpu["top"]), cpu["top"]
    held = {h["function"]: h["seconds"] for h in cpu["top_held"]}
    assert any("_worker (concurrent/futures/thread.py)" in f for f in held), held  # 8 threads x 2 s waiting


def test_recompiled_sanic_methods_are_placed_in_their_real_files():
    rules = layers.rules_for("sanic", "sanic")
    assert layers.layer_of_stack(["send (send:13)"], rules) == layers.INTERPRETER  # as py-spy names it
    stack = [layers.recompiled.real_frame(f) for f in ["handle_request (handle_request:132)", "send (send:13)"]]
    assert stack[-1] == "send (sanic/server/protocols/http_protocol.py:13)"
    assert layers.layer_of_stack(stack, rules) == layers.SERVER  # Sanic's protocol, not its framework
    assert layers.layer_of_stack(stack[:1], rules) == layers.FRAMEWORK  # Sanic.handle_request


def test_gevent_stacks_without_a_thread_name_are_still_weighed_by_their_thread():
    part = layers.attribute_threads([(["thread (7)", "f (flask/app.py:1)"], 10)],
                                    layers.rules_for("gevent", "flask"), {7: 0.2}, 0.2)
    assert part.shares() == {layers.FRAMEWORK: pytest.approx(100)}


def test_each_thread_weighs_its_samples_by_its_own_cpu():
    # the loop thread sampled as often as the pool thread but used a quarter of its CPU
    stacks = [(["thread (1): loop", "select (gunicorn/workers/gthread.py:1)"], 50),
              (["thread (2): pool", "f (flask/app.py:1)"], 50)]
    part = layers.attribute_threads(stacks, layers.rules_for("gunicorn-gthread", "flask"), {1: 0.1, 2: 0.4}, 0.5)
    assert part.shares() == {layers.SERVER: pytest.approx(20), layers.FRAMEWORK: pytest.approx(80)}


def test_native_threads_are_native_not_idle():
    # a thread with CPU time and no Python stack (granian's Rust workers, a C library's thread)
    part = layers.attribute_threads([(["thread (1): MainThread", "f (flask/app.py:1)"], 10)],
                                    layers.rules_for("granian-wsgi", "flask"), {1: 0.1, 2: 0.3}, 0.4,
                                    {1: "MainThread", 2: "tokio-runtime-w"})
    assert part.shares() == {layers.FRAMEWORK: pytest.approx(25), layers.NATIVE: pytest.approx(75)}
    assert ("thread tokio-runtime-w", layers.NATIVE) in part.by_function


def test_a_worker_forked_by_uwsgi_is_sampled_under_its_parents_thread_id():
    # py-spy reports the master's thread id (100) for the worker's (200) only Python thread
    stacks = [(["thread (100): uWSGIWorker1Core0", "f (flask/app.py:1)"], 10)]
    part = layers.attribute_threads(stacks, layers.rules_for("uwsgi", "flask"), {200: 0.3}, 0.3, {200: "uwsgi"},
                                    main_tid=200)
    assert part.shares() == {layers.FRAMEWORK: pytest.approx(100)}
