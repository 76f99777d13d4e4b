"""The result schema, the Markdown and HTML reports and compare, on results made from captured outputs."""
from __future__ import annotations

import re

from servers.core import catalog

import pytest

pytest.importorskip("numpy", reason="the bench extra is not installed: pip install -e '.[bench]'")

from bench import schema  # noqa: E402
from bench.report import compare, model, report_html, results_md
from bench.schema import Result  # noqa: E402
from loadtools import ab, hey, vegeta, wrk  # noqa: E402


def result(entry: str, op: str, m, tool: str = "wrk", repeat: int = 0, repeats: int = 1, **kw) -> Result:
    e = catalog.get(entry)
    r = Result(entrypoint=e.name, language=e.language, framework=e.framework, server=e.server, model=e.model,
               tags=list(e.tags), dev_only=e.dev_only, dev_only_reason=e.dev_only_reason,
               caveats=list(e.caveat_texts), workers=1,
               operation=op, path=catalog.OPERATIONS[op], tool=tool, connections=10, repeat=repeat,
               repeats=repeats, machine={"cpu_model": "test cpu", "cores": 2, "usable_cores": 2},
               pinning={"enabled": True, "server_cpus": [0], "tool_cpus": [1]}, timestamp="2026-01-01T00:00:00+00:00",
               server_cpu_s=1.0, server_peak_rss_mb=40.0, **kw)
    r.apply(m)
    r.cpu_per_request_ms = 1000.0 / r.requests if r.requests else None
    return r


def sample(raw) -> list[Result]:
    ok = wrk.parse(raw("wrk", "ok")["stdout"])
    errs = wrk.parse(raw("wrk", "errors")["stdout"])
    out = [result("nethttp", "json", ok, repeat=i, repeats=3) for i in range(3)]
    out[1].requests_per_s *= 0.9
    out.append(result("stdlib_threaded", "hello", errs))
    out.append(result("gin", "mongo-pooled", wrk.parse(raw("wrk", "ids")["stdout"])))
    out[-1].backend_ceiling = {"backend": "mongo", "concurrency": 10, "requests_per_s": out[-1].requests_per_s * 4}
    out.append(result("gin", "mongo-per-request", wrk.parse(raw("wrk", "backlog")["stdout"])))
    a = raw("ab", "close")
    out.append(result("flask_dev", "hello", ab.parse(a["stdout"], a["csv"]), tool="ab", keepalive=False))
    out.append(result("falcon_dev", "hello", hey.parse(raw("hey", "errors")["stdout"]), tool="hey"))
    out.append(result("flask_gunicorn_gevent", "hello", ok))
    v = raw("vegeta", "errors")
    out.append(result("flask_wsgiref", "hello", vegeta.parse(v["report"], v["encoded"]), tool="vegeta",
                      loop="open", rate=550.0))
    failed = Result(entrypoint="flask_gevent", operation="redis-pooled", tool="wrk", connections=10,
                    status="failed", failure="contract: GET /redis/pooled: status 503 | expected 200")
    return out + [failed]


def test_schema_round_trip(tmp_path, raw):
    results = sample(raw)
    path = tmp_path / "results.jsonl"
    for r in results:
        schema.append(path, r)
    back = schema.read(path)
    assert back == results
    first = back[0]
    for key in ("p50", "p90", "p99", "p99.9", "max", "mean"):
        assert key in first.latency_ms
    assert set(first.errors) == {"connect", "read", "write", "timeout", "other"}
    assert back[3].dev_only and "dev-only" in back[3].tags


def test_aggregate_median_and_spread(raw):
    rows = model.rows(sample(raw))
    row = rows[0]
    assert row.n == 3 and row.rps == sorted(r.requests_per_s for r in row.results)[1]
    assert row.spread_pct > 0
    assert any(r.failed for r in rows)


def test_markdown_report(raw):
    md = results_md.render(model.build(sample(raw)))
    assert "## Closed loop" in md and "## Open loop (constant request rate)" in md and "## Failed runs" in md
    _, _, tables = md.partition("## Closed loop")
    closed, _, rest = tables.partition("## Open loop")
    assert "`flask_wsgiref`" not in closed  # the open-loop run is shown apart
    assert "`flask_wsgiref` **dev-only**" in rest and "550/s" in rest
    assert "`stdlib_threaded` **dev-only**" in closed and "read 23" in closed
    assert "status 503" in md and "\\| expected 200" in md  # a pipe in a reason does not break the table
    assert "close" in closed and "test cpu" in md
    # a caveat sits collapsed by its stack's rows, not in the header before the results
    gevent = next(l for l in closed.splitlines() if l.startswith("| `flask_gunicorn_gevent`"))
    assert re.search(r"<details><summary>\d caveats?</summary>[^|]*" + re.escape(catalog.CAVEATS["connection-bursts"]),
                     gevent)
    assert catalog.CAVEATS["connection-bursts"] not in md.split("## Closed loop")[0]
    header = next(l for l in md.splitlines() if l.startswith("| stack | op | tool"))
    assert "p99.9 ms" in header and "cpu ms/req" in header and "of backend" in header
    gin_pooled = next(l for l in md.splitlines() if l.startswith("| `gin` | mongo-pooled"))
    assert "| 25% of " in gin_pooled  # req/s over the backend's own ceiling


def test_html_report_is_self_contained(raw):
    page = report_html.render(model.build(sample(raw)))
    assert page.startswith("<!doctype html>") and page.rstrip().endswith("</html>")
    images = re.findall(r'<img alt="([^"]+)" src="data:image/png;base64,', page)
    assert {"requests/s", "latency", "pooled vs per-request", "CPU per request", "open-loop success",
            "open-loop latency"} <= set(images)
    assert not re.search(r'(src|href)="(https?:)?//', page) and "<script" not in page and "<link" not in page
    assert "dev-only" in page and "Failed runs" in page


def test_empty_reports():
    assert "No results" in results_md.render(model.build([])) and "No results" in report_html.render(model.build([]))


def test_compare_side_by_side(raw):
    a = sample(raw)
    b = sample(raw)
    for r in b:
        r.requests_per_s *= 2
    b = b[:-2]  # the open-loop and the failed configuration only in A
    md = compare.render(a, b, "before", "after")
    assert "req/s before" in md and "req/s after" in md
    line = next(l for l in md.splitlines() if l.startswith("| `nethttp`"))
    assert "2.00x" in line
    assert "only in A" in md and re.search(r"2 only in A", md)


def test_closed_loop_percentiles_carry_the_coordinated_omission_mark(raw):
    """wrk, ab and hey wait for each answer before the next request: their percentiles are marked (†) in
    the tables and the chart's labels, with the sentence that says why; vegeta's open loop is not."""
    from bench.report import charts
    from bench.report.tables import CO_MARK, CO_NOTE

    report = model.build(sample(raw))
    md = results_md.render(report)
    closed, _, rest = md.partition("## Closed loop")[2].partition("## Open loop")
    assert CO_NOTE in closed
    header = next(line for line in closed.splitlines() if line.startswith("| stack |")).split(" | ")
    p99 = header.index("p99 ms")
    for tool in ("wrk", "ab", "hey"):
        line = next(line for line in closed.splitlines() if f"| {tool} |" in line).split(" | ")
        assert line[p99].endswith(CO_MARK), (tool, line[p99])
    wsgiref = next(line for line in rest.splitlines() if line.startswith("| `flask_wsgiref`"))
    assert CO_MARK not in wsgiref  # open loop: latency from each request's intended send
    labels = {row.config.tool: charts.latency_label(row, True, True) for row in report.rows if row.ok}
    assert all(labels[t].endswith(CO_MARK) for t in ("wrk", "ab", "hey")) and CO_MARK not in labels["vegeta"]


def test_the_report_names_the_unverified_stacks(raw):
    """A stack without a complete record carries the catalog's `unverified` tag into its results."""
    results = sample(raw)
    for r in results:
        r.tags = [t for t in r.tags if t != catalog.UNVERIFIED]
    results[0].tags.append(catalog.UNVERIFIED)
    md = results_md.render(model.build(results))
    assert f"**unverified** stacks ({results[0].entrypoint})" in md
    results[0].tags.remove(catalog.UNVERIFIED)
    assert "**unverified**" not in results_md.render(model.build(results))
