"""The report model: derived once, rendered alike in Markdown and HTML; and compare, which keeps every row."""
from __future__ import annotations

import html.parser
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("numpy", reason="the bench extra is not installed: pip install -e '.[bench]'")

from bench import schema  # noqa: E402
from bench.report import answers, conditions, matches, model, report_html, results_md, significance
from bench.schema import Result  # noqa: E402

from test_bench_reports import sample  # noqa: E402
from test_bench_significance import session  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def test_rendering_computes_nothing(raw, monkeypatch):
    """Once built, the model renders with every statistic and aggregation out of reach."""
    from test_bench_capacity import bracket

    from bench.capacity import tally

    results = sample(raw) + session() + bracket("a", 1000, 2000) + bracket("b", 900, 1500) + bracket("c", 300, 400)
    report = model.build(results)
    md, page = results_md.render(report), report_html.render(report)
    assert report.pairs and report.failures and report.opened  # every section is there to render
    assert report.answers and report.answers[0].links  # and the answer

    def computing(*args, **kwargs):
        raise AssertionError("a renderer computed a derived value")

    for module, name in ((statistics, "median"), (significance, "ratio_of_medians"), (model, "derive"),
                         (model, "rows"), (model, "ranked_pairs"), (model, "route_pairs"), (model, "failures"),
                         (conditions, "noise"), (conditions, "session"), (model, "build"), (model, "_median"),
                         (answers, "answers"), (answers, "answer"), (answers, "overlap"), (tally, "capacities"),
                         (tally, "common_rate"), (tally, "foreign_load"), (tally.Capacity, "cost_at")):
        monkeypatch.setattr(module, name, computing)
    assert results_md.render(report) == md and report_html.render(report) == page


def test_a_row_carries_its_derived_values(raw):
    row = next(r for r in model.build(session()).closed if r.config.entrypoint == "nethttp")
    assert row.rps_values == (40_000, 42_000, 41_000) and row.rps == 41_000
    assert row.rps_range == (40_000, 42_000) and row.spread_pct == 100 * 2_000 / 41_000
    assert row.noisy == 1 and row.n == 3 and row.failed == 0
    gin = next(r for r in model.build(sample(raw)).closed if r.config.operation == "mongo-pooled")
    assert gin.ceiling_rps == 4 * gin.rps and gin.ceiling_share == 0.25


class Cells(html.parser.HTMLParser):
    """The text of every <td> of every table row of a page, as lists."""

    def __init__(self):
        super().__init__()
        self.rows: list[list[str]] = []
        self.cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag == "td":
            self.cell = []

    def handle_endtag(self, tag):
        if tag == "td":
            self.rows[-1].append("".join(self.cell))
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


def markdown_rows(md: str) -> list[list[str]]:
    """The body rows of every table of a Markdown text, cells with their inline markup removed."""
    out = []
    for line in md.splitlines():
        if line.startswith("| ") and not re.match(r"\|[-:|]+\|$", line):
            cells = [c.strip() for c in re.split(r"(?<!\\) \| ", line.strip("| "))]
            out.append([re.sub(r"<[^>]+>", "", c).replace("`", "").replace("**", "").replace("\\|", "|")
                        for c in cells])
    return out


def test_markdown_and_html_show_the_same_rows(raw):
    report = model.build(sample(raw) + session())
    parser = Cells()
    parser.feed(report_html.render(report))
    md_rows = markdown_rows(results_md.render(report))
    headers = [r for r in md_rows if r[0] in ("stack", "op")]  # the header lines: <th>, not <td>
    assert len(headers) == 4
    assert [r for r in parser.rows if r] == [r for r in md_rows if r not in headers]
    assert len(parser.rows) > len(report.rows)  # the closed, open, significance and failure rows


def wrk_run(threads: int, rps: float) -> Result:
    return Result(entrypoint="nethttp", operation="hello", path="/", tool="wrk", connections=50, threads=threads,
                  requests=int(rps * 3), requests_per_s=rps, workers=2, machine={"cpu_model": "test cpu"})


def test_compare_keeps_rows_that_differ_only_in_threads(tmp_path):
    for name, factor in (("a", 1), ("b", 2)):
        path = tmp_path / name / "results.jsonl"
        for threads, rps in ((1, 1_000.0), (2, 3_000.0)):
            schema.append(path, wrk_run(threads, rps * factor))
    proc = subprocess.run(["./bench.sh", "compare", str(tmp_path / "a" / "results.jsonl"),
                           str(tmp_path / "b" / "results.jsonl")], cwd=ROOT,
                          env={**os.environ, "PYTHON": sys.executable, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "2 configurations: 2 in both, 0 only in A, 0 only in B" in proc.stdout
    one = next(line for line in proc.stdout.splitlines() if "| c=50 t=1 |" in line)
    two = next(line for line in proc.stdout.splitlines() if "| c=50 t=2 |" in line)
    assert "| 1,000 | 2,000 | 2.00x |" in one and "| 3,000 | 6,000 | 2.00x |" in two


def test_compare_pairs_rows_that_share_a_key_and_drops_none():
    # A file that holds two sessions (--out reused) with other labels: both rows of A stay.
    a = [wrk_run(2, 1_000.0), Result(**{**wrk_run(2, 1_500.0).__dict__, "preset": "one-core"})]
    c = matches.compare(a, [wrk_run(2, 2_000.0)])
    assert [(m.a is not None, m.b is not None) for m in c.matches] == [(True, True), (True, False)]
    assert (c.only_a, c.only_b, c.matches[0].rps_ratio) == (1, 0, 2.0)
