"""Write the reports of a results file: the model built once (bench/report/model.py), rendered as results.md
(also returned, to print) and report.html."""
from __future__ import annotations

from pathlib import Path

from bench.report import model, report_html, results_md
from bench.schema import Result


def write(results: list[Result], out_dir: Path, title: str = "Benchmark results") -> tuple[Path, Path, str]:
    out_dir.mkdir(parents=True, exist_ok=True)
    report = model.build(results)
    md = results_md.render(report, title)
    md_path, html_path = out_dir / "results.md", out_dir / "report.html"
    md_path.write_text(md, encoding="utf-8")
    page = report_html.render(report, title)
    anatomy = out_dir / "anatomy.html"  # written by `bench.sh run --anatomy` (anatomy.bench_report)
    if anatomy.exists():
        page = page.replace("</body>", anatomy.read_text(encoding="utf-8") + "</body>")
    html_path.write_text(page, encoding="utf-8")
    return md_path, html_path, md
