"""report.html's capacity charts render in a real browser (Debian's chromium, headless), from the file
alone: plotly.js is embedded, nothing is fetched."""
from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from bench import reports
from bench.capacity import Slo
from bench.schema import Result


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    if os.environ.get("CI"):  # CI installs it from apt-packages.txt: missing there is a failure
        pytest.fail("chromium not found (apt-packages.txt lists it)")
    pytest.skip("chromium not installed (apt-get install chromium)")


def step(entry, rate, p99, held, repeat=0, void=(), op="hello", mode="capacity"):
    return Result(entrypoint=entry, operation=op, tool="vegeta", loop="open", rate=rate, mode=mode,
                  sent_rate=rate, requests_per_s=rate * 0.999, slo_held=held, void_reasons=list(void),
                  latency_ms={"p50": p99 / 4, "p90": p99 / 2, "p99": p99, "p99.9": p99 * 1.5},
                  success_ratio=1.0, cpu_per_request_ms=0.1, server_peak_rss_mb=40.0, repeat=repeat,
                  slo=Slo.parse("p99=25ms").as_dict(), phase="ladder")


def test_capacity_charts_render_offline_in_chromium(tmp_path):
    browser = chromium()
    results = [step("sanic", 1000, 4, True), step("sanic", 2000, 8, True), step("sanic", 4000, 300, False),
               step("flask_gunicorn", 1000, 9, True), step("flask_gunicorn", 2000, 900, False),
               step("nethttp", 1000, 2, True), step("nethttp", 2000, 3, True),
               step("nethttp", 4000, 3, None, void=["load tool saturated: its CPU 97% of its cores"]),
               step("sanic", 1000, 3, True, op="redis-pooled"), step("sanic", 2000, 90, False, op="redis-pooled")]
    _, page, _ = reports.write(results, tmp_path)
    text = page.read_text()
    assert len(re.findall(r"\* plotly\.js v\d", text)) == 1  # the library embedded once, for every chart
    assert not re.search(r'<script[^>]+src="http', text)  # and nothing fetched: the file opens offline
    dom = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=5000",
                          "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120).stdout
    graphs = dom.count('class="plotly-graph-div')
    assert graphs == 4  # capacity bars and curves, for hello and redis-pooled
    # plotly drew into every one: its SVG, the bars of the capacities, the lines of the curves
    assert dom.count('class="main-svg"') >= 2 * graphs
    assert len(re.findall(r'class="trace bars', dom)) == 2
    assert len(re.findall(r'class="trace scatter', dom)) >= 2 * 3 + 1  # p50 and p99 per stack, the void crosses
    assert "nethttp (void)" in dom  # the void capacity is drawn as void, named so
