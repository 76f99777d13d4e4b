"""The interpreter rule of setup.sh, bench.sh and test.sh (scripts/project-python.sh): a Python pip
may install into is used as it is; one that refuses pip (PEP 668) or has none gets the project's
.venv. The full set-up under Debian's python3 is run by .ci/run."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DEBIAN_PYTHON = Path("/usr/bin/python3")


def project_python(python: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", "source scripts/project-python.sh && project_python"], cwd=ROOT,
                          env={**os.environ, "PYTHON": python}, capture_output=True, text=True, timeout=30)


def externally_managed(python: Path) -> bool:
    """PEP 668 as pip reads it: outside a virtualenv, a marker beside the standard library."""
    if not python.exists():
        return False
    code = ("import os, sys, sysconfig; print(sys.prefix == sys.base_prefix and "
            "os.path.exists(os.path.join(sysconfig.get_path('stdlib'), 'EXTERNALLY-MANAGED')))")
    return subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=30).stdout.strip() == "True"


@pytest.mark.skipif(externally_managed(Path(sys.executable)), reason="the tests run on a Python that refuses pip")
def test_a_python_that_takes_pip_is_used_as_it_is():
    # As setup.sh sets it up, the tests run on a Python pip installs into (perhaps .venv's).
    done = project_python(sys.executable)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == sys.executable


@pytest.mark.skipif(not externally_managed(DEBIAN_PYTHON), reason="no externally managed /usr/bin/python3 here")
def test_an_externally_managed_python_gets_the_project_venv():
    done = project_python(str(DEBIAN_PYTHON))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(ROOT / ".venv" / "bin" / "python")


def test_a_python_without_pip_gets_the_project_venv(tmp_path):
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", tmp_path / "nopip"], check=True, timeout=60)
    done = project_python(str(tmp_path / "nopip" / "bin" / "python"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(ROOT / ".venv" / "bin" / "python")


def test_a_missing_python_is_one_clear_line():
    done = project_python("/nonexistent/python3")
    assert done.returncode != 0
    assert done.stderr.strip() == "no Python at '/nonexistent/python3': install python3 (3.11 or newer) or set PYTHON"


def test_test_sh_runs_pytest_on_the_chosen_python_with_its_arguments():
    done = subprocess.run(["./test.sh", "--version"], cwd=ROOT, env={**os.environ, "PYTHON": sys.executable},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "pytest" in done.stdout + done.stderr


def test_debian_packages_include_the_venv_module():
    packages = (ROOT / "apt-packages.txt").read_text().split()
    assert "python3-venv" in packages  # Debian's python3 has no venv (nor ensurepip) without it
