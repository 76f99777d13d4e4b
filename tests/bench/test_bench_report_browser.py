"""report.html as a reader sees it, in a real browser (Debian's chromium, headless, a 1,280 x 900 window),
from the file alone: plotly.js is embedded, nothing is fetched. A probe (chart_probe.js, injected into a
copy of the page) reads what plotly drew: each axis's range against the data on it, the legend's box
against the plot's, each table's width and scroll; the first screen is kept as a screenshot
(first-screen.png in the test's tmp dir, printed; pytest keeps the last three runs' dirs)."""
from __future__ import annotations

import html
import json
import math
import os
import re
from pathlib import Path

import pytest

pytest.importorskip("numpy", reason="the bench extra is not installed: pip install -e '.[bench]'")

from bench.capacity.search import Slo  # noqa: E402
from bench.report import reports  # noqa: E402
from bench.schema import Result  # noqa: E402
from harness import browser  # noqa: E402

WINDOW = browser.WINDOW
PROBE = Path(__file__).with_name("chart_probe.js")


def chromium() -> str:
    try:
        return browser.find()
    except browser.BrowserMissing as exc:
        if os.environ.get("CI"):  # CI installs it from apt-packages.txt: missing there is a failure
            pytest.fail(str(exc))
        pytest.skip(str(exc))


def step(entry, rate, p99, held, repeat=0, void=(), op="hello", mode="capacity", caveats=()):
    return Result(entrypoint=entry, operation=op, tool="vegeta", loop="open", rate=rate, mode=mode,
                  sent_rate=rate, requests_per_s=rate * 0.999, slo_held=held, void_reasons=list(void),
                  latency_ms={"p50": p99 / 4, "p90": p99 / 2, "p99": p99, "p99.9": p99 * 1.5},
                  success_ratio=1.0, cpu_per_request_ms=0.1, server_peak_rss_mb=40.0, repeat=repeat,
                  slo=Slo.parse("p99=25ms").as_dict(), phase="ladder", caveats=list(caveats))


def wrk(entry, rps, p99):
    return Result(entrypoint=entry, operation="hello", tool="wrk", connections=50, threads=2, requests=int(rps * 3),
                  requests_per_s=rps, latency_ms={"p50": p99 / 3, "p90": p99 / 2, "p99": p99, "p99.9": p99 * 2,
                                                  "max": p99 * 3})


def quick_run() -> list[Result]:
    """A quick run's shape: nine stacks of long names ramped on hello (one void), one on redis-pooled,
    closed-loop rows beside them."""
    out = [step("sanic", 1000, 4, True), step("sanic", 2000, 8, True), step("sanic", 4000, 300, False),
           step("flask_gunicorn", 1000, 9, True), step("flask_gunicorn", 2000, 900, False),
           step("nethttp", 1000, 2, True), step("nethttp", 2000, 3, True),
           step("nethttp", 4000, 3, None, void=["load tool saturated: its CPU 97% of its cores"]),
           step("sanic", 1000, 3, True, op="redis-pooled"), step("sanic", 2000, 90, False, op="redis-pooled")]
    for i, name in enumerate(("falcon_gunicorn_gthread", "fastapi_uvicorn", "stdlib_threaded", "tornado",
                              "fastapi_granian", "flask_gunicorn_gevent")):
        held = 1500 + 400 * i
        out += [step(name, held / 2, 3 + i, True, caveats=["a known limitation of this stack " * 6]),
                step(name, held, 6 + i, True), step(name, held * 1.4, 700 + 100 * i, False)]
    return out + [wrk("sanic", 12_000, 9.0), wrk("nethttp", 30_000, 4.0), wrk("flask_gunicorn", 2_500, 60.0)]


def axis_problems(chart: dict) -> list[str]:
    """An axis that spans far more than the data drawn on it, or that leaves data out."""
    problems = []
    for axis in chart["axes"]:
        if axis["type"] not in ("linear", "log") or not axis["values"]:
            continue
        values, (low, high) = axis["values"], axis["range"]
        if axis["type"] == "log":
            values = [math.log10(v) for v in values if v > 0]
        lo, hi = min(values), max(values)
        if axis["type"] == "log":
            allowed = (hi - lo) + 1.0  # a decade of margin
        else:
            span = max(hi, 0.0) - min(lo, 0.0)  # a bar's axis starts at zero
            allowed = 1.5 * span if span else 2.0
        what = f"{chart['title']!r} {axis['name']} ({axis['type']}) range {low:.3g}..{high:.3g}"
        if high - low > allowed:
            problems.append(f"{what} spans far more than its data {lo:.3g}..{hi:.3g}")
        slack = 0.02 * (high - low)
        if lo < low - slack or hi > high + slack:
            problems.append(f"{what} leaves out data {lo:.3g}..{hi:.3g}")
    return problems


def overlap_share(a: dict, b: dict) -> float:
    """The share of b's area that a covers."""
    w = max(0.0, min(a["right"], b["right"]) - max(a["left"], b["left"]))
    h = max(0.0, min(a["bottom"], b["bottom"]) - max(a["top"], b["top"]))
    return w * h / (b["width"] * b["height"]) if b["width"] and b["height"] else 1.0


def test_report_reads_right_in_chromium(tmp_path):
    chromium()
    _, page, _ = reports.write(quick_run(), tmp_path)
    text = page.read_text()
    assert len(re.findall(r"\* plotly\.js v\d", text)) == 1  # the library embedded once, for every chart
    assert not re.search(r'<script[^>]+src="http', text)  # and nothing fetched: the file opens offline
    probed = tmp_path / "probed.html"
    probed.write_text(text.replace("</body>", f"<script>{PROBE.read_text()}</script></body>"))
    dom = browser.dom(probed.as_uri(), offline=True)  # offline: the file must need nothing from elsewhere
    found = re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S)
    assert found, "the probe did not run: " + dom[-500:]
    seen = json.loads(html.unescape(found.group(1)))

    charts = seen["charts"]
    assert len(charts) == 4  # capacity bars and curves, for hello and redis-pooled
    assert [c for c in charts if "latency against throughput" in c["title"]]
    problems = [p for chart in charts for p in axis_problems(chart)]
    for chart in charts:
        if chart["legend"] and overlap_share(chart["legend"], chart["plot"]) > 0.05:
            problems.append(f"{chart['title']!r}: the legend covers the plot")
        if chart["plot"]["width"] < 0.5 * chart["chart"]["width"]:
            problems.append(f"{chart['title']!r}: the legend squeezes the plot to {chart['plot']['width']:.0f} px")
    for i, table in enumerate(seen["tables"]):
        if table["width"] > WINDOW[0] and not table["scrolls"]:
            problems.append(f"table {i + 1} is {table['width']:.0f} px wide, without a scroll of its own")
    if seen["page_width"] > WINDOW[0]:
        problems.append(f"the page is {seen['page_width']} px wide in a {WINDOW[0]} px window")
    # the first screen holds the answer: the verdict and the ranked table start on it
    if not (seen["first_verdict"] and seen["first_verdict"]["top"] < WINDOW[1]
            and seen["first_table"]["top"] < WINDOW[1]):
        problems.append(f"the answer is not on the first screen: {seen['first_verdict']}, {seen['first_table']}")
    assert not problems, "\n".join(problems)

    shot = browser.screenshot(page.as_uri(), tmp_path / "first-screen.png")
    assert shot.stat().st_size > 10_000
    print(f"first screen: {shot}")
