"""`bench.sh screenshot`: a run's report.html first screen as a PNG (the README's picture), by headless Chromium
with no network: the picture is the report's answer, drawn, at the window's size; a run without a report is
said, never a traceback."""
from __future__ import annotations

import os

import numpy
import pytest
from PIL import Image

from bench import cli
from bench.report import reports, screenshot
from harness import browser
from test_bench_report_browser import quick_run


@pytest.fixture
def chromium():
    try:
        return browser.find()
    except browser.BrowserMissing as exc:
        if os.environ.get("CI"):
            pytest.fail(str(exc))
        pytest.skip(str(exc))


def test_the_newest_run_is_pictured_at_the_window_size(chromium, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(screenshot, "RESULTS", tmp_path / "results")
    older, newer = tmp_path / "results" / "20260101-000000", tmp_path / "results" / "20260102-000000"
    reports.write(quick_run()[:3], older)  # one stack
    reports.write(quick_run(), newer)
    os.utime(older / "report.html", (1, 1))
    out = tmp_path / "first-screen.png"
    with pytest.raises(SystemExit) as done:
        cli.main(["screenshot", "--out", str(out), "--window", "1280x900"])
    assert done.value.code == 0, capsys.readouterr().err
    assert str(newer / "report.html") in " ".join(capsys.readouterr().err.split())
    picture = Image.open(out).convert("RGB")
    assert picture.size == (1280, 900)
    # drawn, not a blank page: the answer's table and bars cover a good part of the screen in many colours
    pixels = numpy.asarray(picture.resize((128, 90))).reshape(-1, 3).astype(int)
    inked, colours = (pixels.sum(axis=1) < 600).mean(), len({tuple(p) for p in pixels})
    assert inked > 0.05 and colours > 50, (inked, colours)


def test_no_run_and_a_wrong_path_are_said(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(screenshot, "RESULTS", tmp_path / "results")
    for argv, said in ((["screenshot"], "run `./bench.sh --quick` first"),
                       (["screenshot", str(tmp_path / "nothing")], "no such file or directory")):
        with pytest.raises(SystemExit) as done:
            cli.main(argv)
        err = " ".join(capsys.readouterr().err.split())
        assert done.value.code == 2 and said in err and "Traceback" not in err, err
