"""CI's budget is a check: .ci/run's steps (scripts/ci-steps.sh) print each step's wall time at the end,
warn past 45 minutes and fail the run past 60, whatever the steps themselves did."""
from __future__ import annotations

import subprocess

from serverproc import ROOT


def ci(script: str) -> subprocess.CompletedProcess:
    """Run a made-up CI script on the real step functions; `started_ago` minutes of run already behind it."""
    return subprocess.run(["bash", "-c", f"set -euo pipefail\nsource scripts/ci-steps.sh\n{script}"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


def test_each_step_is_timed_and_the_table_printed_at_the_end():
    done = ci('step "quick one" true\nstep "another" sleep 1')
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| ")]
    assert [r.split("|")[1].strip() for r in rows] == ["step", "quick one", "another", "total"]
    assert " 0m 01s" in rows[2] or " 0m 02s" in rows[2]
    assert "WARNING" not in done.stdout and "FAILED" not in done.stdout


def test_a_failing_step_stops_the_run_with_its_status_and_still_prints_the_table():
    done = ci('step "fine" true\nstep "broken" bash -c "exit 3"\nstep "never" true')
    assert done.returncode == 3
    assert "| broken" in done.stdout and "never" not in done.stdout and "| total" in done.stdout


def test_past_45_minutes_it_warns():
    done = ci('STARTED=$(( $(date +%s) - 50 * 60 ))\nstep "slow" true')
    assert done.returncode == 0 and "WARNING: 50 min is past the 45-minute budget" in done.stdout


def test_past_60_minutes_the_run_fails_even_when_every_step_passed():
    done = ci('STARTED=$(( $(date +%s) - 61 * 60 ))\nstep "slow" true')
    assert done.returncode == 1 and "FAILED the budget: 61 min is past 60 min" in done.stdout
