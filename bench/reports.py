"""Write the reports of a results file: results.md (also returned, to print) and report.html."""
from __future__ import annotations

from pathlib import Path

from bench import report_html, results_md
from bench.schema import Result


def write(results: list[Result], out_dir: Path, title: str = "Benchmark results") -> tuple[Path, Path, str]:
    out_dir.mkdir(parents=True, exist_ok=True)
    md = results_md.render(results, title)
    md_path, html_path = out_dir / "results.md", out_dir / "report.html"
    md_path.write_text(md, encoding="utf-8")
    page = report_html.render(results, title)
    anatomy = out_dir / "anatomy.html"  # written by `bench.sh run --anatomy` (anatomy.bench_report)
    if anatomy.exists():
        page = page.replace("</body>", anatomy.read_text(encoding="utf-8") + "</body>")
    html_path.write_text(page, encoding="utf-8")
    return md_path, html_path, md
