"""bench.sh's own help: --help shows every option a run takes and names the commands once; a bare
./bench.sh starts nothing and prints what `bench.sh run` would run, how long, and how to start it;
options land in their settings, and only the user's own mistakes become a one-line usage error."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from servers.core import catalog

pytest.importorskip("numpy", reason="the bench extra is not installed: pip install -e '.[bench]'")

from bench import cli, defaults  # noqa: E402
from bench.planning import plan, presets
from loadtools import DEFAULT_TOOL  # noqa: E402

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
    full = plan.build(plan.Settings(servers=[e.name for e in catalog.ENTRIES]))
    # bench.sh itself, on this interpreter (PYTHON), as a reader types it.
    proc = subprocess.run(["./bench.sh"], cwd=ROOT, env={**os.environ, "PYTHON": sys.executable},
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert f"{len(full.runs)} runs on {len(catalog.ENTRIES)} stacks with {DEFAULT_TOOL}" in proc.stdout
    assert f"about {plan.format_duration(full.estimate_s())}" in proc.stdout
    assert "Nothing was started" in proc.stdout
    for command in ("./bench.sh run", "./bench.sh --quick", "./bench.sh --help"):
        assert command in proc.stdout
    assert proc.stderr == ""  # no progress, no server was started


def test_options_set_their_settings_and_the_preset_stands_where_none_is_given():
    args = cli.build_parser().parse_args(["run", "--preset", "one-core", "--duration", "2", "--warmup", "0",
                                          "--no-pin", "--noise-threshold", "7", "--users", "30"])
    s, _ = cli.settings_from(args)
    preset = presets.get("one-core").settings()
    assert (s.duration_s, s.warmup_s, s.pin, s.noise_threshold_pct, s.users) == (2, 0, False, 7, 30)
    assert (s.servers, s.connections, s.workers, s.server_cores, s.repeat) == (
        preset.servers, preset.connections, preset.workers, preset.server_cores, preset.repeat)
    bare, _ = cli.settings_from(cli.build_parser().parse_args(["run"]))
    assert (bare.noise_threshold_pct, bare.noise_probe, bare.users) == (
        defaults.NOISE_THRESHOLD_PCT, True, defaults.USERS)


def test_the_users_mistake_is_one_line_and_a_bug_keeps_its_traceback(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(cli.signal, "signal", lambda *args: None)  # main's handlers stay out of pytest
    with pytest.raises(SystemExit) as exit_:
        cli.main(["report", str(tmp_path / "missing.jsonl")])
    assert exit_.value.code == cli.EXIT_USAGE and "No such file" in capsys.readouterr().err

    def bug(args, console):
        return {}["a key no user typed"]

    monkeypatch.setattr(cli, "cmd_presets", bug)
    with pytest.raises(KeyError, match="a key no user typed"):
        cli.main(["presets"])
