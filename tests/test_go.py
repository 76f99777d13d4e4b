"""The Go module's own checks, run from the suite so one command tests everything: vet and test."""
from __future__ import annotations

import shutil
import subprocess

import pytest

from servers.core.command import GO_MODULE

pytestmark = pytest.mark.skipif(shutil.which("go") is None, reason="go not installed: see setup.sh")


# ./setup.sh compiles both (the Go build cache keeps them), so here they mostly run; on a machine whose cache
# is cold the compile happens here, and the limit is the compile's, not the suite's 120 s per test.
GO_LIMIT_S = 900


@pytest.mark.timeout(GO_LIMIT_S + 30)
@pytest.mark.parametrize("command", [["go", "vet", "./..."], ["go", "test", "-count=1", "./..."]],
                         ids=["vet", "test"])
def test_go_module(command):
    done = subprocess.run(command, cwd=GO_MODULE, capture_output=True, text=True, timeout=GO_LIMIT_S)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
