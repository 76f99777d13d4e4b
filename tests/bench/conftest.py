"""Fixtures of the benchmark driver's tests: the captured tool outputs and real bench runs.

tests/bench/data holds real outputs of wrk, ab, hey and vegeta captured on this suite's servers
by capture_data.py (re-run it to refresh them); the end-to-end tests run `python -m bench` as a
process against real servers, backends and load tools on loopback.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from loadtools import ToolMissing, get

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="session")
def data() -> Path:
    return DATA


def read(name: str) -> str:
    path = DATA / name
    return path.read_text() if path.exists() else ""


@pytest.fixture(scope="session")
def raw():
    """raw(tool, case) -> the dict of raw outputs that tool's parse() takes."""

    def load(tool: str, case: str) -> dict[str, str]:
        stem = f"{tool}_{case}"
        if tool == "vegeta":
            return {"report": read(f"{stem}.report.json"), "encoded": read(f"{stem}.encode.jsonl")}
        if tool == "h2load":  # captured with 2 connections x 4 streams (MANIFEST.json)
            return {"stdout": read(f"{stem}.stdout"), "stderr": read(f"{stem}.stderr"), "log": read(f"{stem}.log"),
                    "in_flight": "8"}
        return {"stdout": read(f"{stem}.stdout"), "stderr": read(f"{stem}.stderr"), "csv": read(f"{stem}.csv")}

    return load


@pytest.fixture(scope="session")
def need_tool():
    """need_tool(name) -> the tool's binary, or skip the test saying how to install it."""

    def need(name: str) -> str:
        try:
            return get(name).binary()
        except ToolMissing as exc:
            pytest.skip(str(exc))

    return need


@pytest.fixture
def run_bench(tmp_path):
    """run_bench(*args, timeout=90) -> CompletedProcess of `python -m bench ARGS` in the repo root."""

    def run(*args: str, timeout: float = 90) -> subprocess.CompletedProcess:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        return subprocess.run([sys.executable, "-m", "bench", *args], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=timeout)

    return run
