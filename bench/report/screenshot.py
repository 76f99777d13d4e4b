"""`bench.sh screenshot [RUN]`: a run's report.html as a reader first sees it, rendered to a PNG by headless
Chromium (harness/browser.py) with no network: the picture the README shows (docs/assets/), refreshed
from a real run with `./bench.sh --quick && ./bench.sh screenshot`.
"""
from __future__ import annotations

from pathlib import Path

from harness import browser

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "results"
PICTURE = ROOT / "docs" / "assets" / "report-first-screen.png"


class NoReport(LookupError):
    """No report.html where the user pointed, or no run at all."""


def report_of(run: Path | None) -> Path:
    """The report.html of a run given as its directory, its results.jsonl or the report itself;
    without one, the newest run's under results/."""
    if run is None:
        reports = sorted(RESULTS.glob("*/report.html"), key=lambda p: p.stat().st_mtime)
        if not reports:
            raise NoReport(f"no run in {RESULTS} has a report.html: run `./bench.sh --quick` first")
        return reports[-1]
    if not run.exists():
        raise NoReport(f"{run}: no such file or directory (give a run's directory, its results.jsonl or its report.html)")
    report = run if run.suffix == ".html" else (run if run.is_dir() else run.parent) / "report.html"
    if not report.is_file():
        raise NoReport(f"{report} does not exist: give a run's directory, its results.jsonl or its report.html "
                       f"(`./bench.sh report RESULTS.jsonl` writes a missing one)")
    return report


def take(run: Path | None, out: Path = PICTURE, window: tuple[int, int] = browser.WINDOW) -> tuple[Path, Path]:
    """(the report pictured, the PNG written)."""
    report = report_of(run)
    return report, browser.screenshot(report.resolve().as_uri(), out, window=window, offline=True)
