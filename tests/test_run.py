"""`python -m servers.run NAME` starts any entry, Python or Go, with the shared flags."""
from __future__ import annotations

import subprocess
import sys

import pytest

from serverproc import ROOT, ServerProcess


class RunServer(ServerProcess):
    def command(self) -> list[str]:
        return [sys.executable, "-m", "servers.run", self.name, *self.args]


@pytest.mark.parametrize("name", ["echo", "stdlib_threaded"])
def test_run_starts_any_entry(name):
    server = RunServer(name).start()
    try:
        response, body = server.request("/")
        assert (response.status, body) == (200, b"Hello, World!")
        code, elapsed, survivors = server.terminate()
        assert code == 0 and not survivors
    finally:
        server.stop()


def test_run_rejects_an_unknown_name():
    done = subprocess.run([sys.executable, "-m", "servers.run", "nope"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 2 and "no catalog entry 'nope'" in done.stderr
