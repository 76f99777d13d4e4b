"""bench.sh's own help: --help shows every option a run takes and names the commands once; a bare
./bench.sh starts nothing and prints what `bench.sh run` would run, how long, and how to start it."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from servers.core import catalog

from bench import cli, plan as planning
from bench.tools import DEFAULT_TOOL

ROOT = Path(__file__).resolve().parents[2]


def run_options() -> list[str]:
    """Every option string of `bench.sh run`, read from its parser."""
    run = cli.build_parser()._subparsers._group_actions[0].choices["run"]
    return [flag for action in run._actions for flag in action.option_strings]


def test_help_lists_every_run_option_and_each_command_once(run_bench):
    proc = run_bench("--help", timeout=30)
    assert proc.returncode == 0, proc.stderr
    for flag in run_options():
        assert flag in proc.stdout, f"{flag} missing from bench.sh --help"
    for command in cli.COMMANDS:
        listed = [line for line in proc.stdout.splitlines() if line.strip().startswith(command + " ")]
        assert len(listed) == 1, f"{command}: listed {len(listed)} times:\n{proc.stdout}"
    assert proc.stdout == run_bench("run", "--help", timeout=30).stdout


def test_a_bad_option_names_the_usage_with_the_run_form(run_bench):
    proc = run_bench("--no-such-option", timeout=30)
    assert proc.returncode == 2
    assert "bench.sh [run] [options]" in proc.stderr and "--no-such-option" in proc.stderr


def test_bare_bench_sh_prints_the_default_plan_and_starts_nothing():
    full = planning.build(planning.Settings(servers=[e.name for e in catalog.ENTRIES]))
    # bench.sh itself, on this interpreter (PYTHON), as a reader types it.
    proc = subprocess.run(["./bench.sh"], cwd=ROOT, env={**os.environ, "PYTHON": sys.executable},
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert f"{len(full.runs)} runs on {len(catalog.ENTRIES)} stacks with {DEFAULT_TOOL}" in proc.stdout
    assert f"about {planning.format_duration(full.estimate_s())}" in proc.stdout
    assert "Nothing was started" in proc.stdout
    for command in ("./bench.sh run", "./bench.sh --quick", "./bench.sh --help"):
        assert command in proc.stdout
    assert proc.stderr == ""  # no progress, no server was started
