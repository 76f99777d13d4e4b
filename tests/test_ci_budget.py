"""CI's budget is a check: .ci/run's steps (scripts/ci-steps.sh) print each step's wall time at the end,
fail the run past 85 minutes of wall time on any machine (CI stops at 90), and warn past 45 reference minutes
(wall time divided by how much slower than the reference machine the speed probe found this one)."""
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
    assert [r.split("|")[1].strip() for r in rows] == ["step", "quick one", "another", "total",
                                                        "total in reference minutes"]
    assert " 0m 01s" in rows[2] or " 0m 02s" in rows[2]
    assert "WARNING" not in done.stdout and "FAILED" not in done.stdout


def test_a_failing_step_stops_the_run_with_its_status_and_still_prints_the_table():
    done = ci('step "fine" true\nstep "broken" bash -c "exit 3"\nstep "never" true')
    assert done.returncode == 3
    assert "| broken" in done.stdout and "never" not in done.stdout and "| total" in done.stdout


def test_past_45_minutes_it_warns():
    done = ci('STARTED=$(( $(date +%s) - 50 * 60 ))\nstep "slow" true')
    assert done.returncode == 0 and "WARNING: 50 reference min is past the 45-minute budget" in done.stdout


def test_a_machine_twice_as_slow_passes_and_warns_only_past_45_reference_minutes():
    done = ci('SPEED_FACTOR=2.00\nSTARTED=$(( $(date +%s) - 70 * 60 ))\nstep "slow" true')
    assert done.returncode == 0, done.stdout
    assert "WARNING" not in done.stdout and "| total in reference minutes" in done.stdout
    assert "35m" in done.stdout.split("| total in reference minutes")[1].splitlines()[0]
    done = ci('SPEED_FACTOR=1.00\nSTARTED=$(( $(date +%s) - 70 * 60 ))\nstep "slow" true')
    assert done.returncode == 0 and "WARNING: 70 reference min is past the 45-minute budget" in done.stdout


def test_past_85_minutes_of_wall_time_the_run_fails_on_any_machine():
    done = ci('SPEED_FACTOR=3.00\nSTARTED=$(( $(date +%s) - 86 * 60 ))\nstep "slow" true')
    assert done.returncode == 1 and "86 min of wall time is past 85 min" in done.stdout


def test_the_speed_probe_keeps_the_fastest_reading():
    """A reading taken while something else ran says the machine is slower than it is: the factor only moves
    down. The probe is the benchmark's own CPU loop (python -m bench.noise)."""
    done = ci('speed_probe python3\nfirst=$SPEED_FACTOR\nSPEED_LINE="cpu_ms=1 factor=1.00"; SPEED_FACTOR=1.00\n'
              'speed_probe python3\necho "first=$first now=$SPEED_FACTOR"')
    assert done.returncode == 0, done.stderr
    said = next(line for line in done.stdout.splitlines() if line.startswith("first="))
    first, now = (part.split("=")[1] for part in said.split())
    assert float(first) >= 1.0 and now == "1.00", done.stdout
