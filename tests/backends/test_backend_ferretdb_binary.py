"""The embedded FerretDB binary: checks its flags, says when it is ready, stops on SIGTERM."""

import signal
import subprocess
import time
from pathlib import Path

import pymongo
import pytest

from backends.local import FERRETDB_BIN, build_ferretdb


@pytest.fixture(scope="module")
def binary() -> Path:
    build_ferretdb()
    return FERRETDB_BIN


def test_ready_line_then_clean_exit_on_sigterm(binary: Path, tmp_path: Path, free_port) -> None:
    data = tmp_path / "not-yet" / "data"  # created by the binary
    with subprocess.Popen(
        [
            str(binary),
            "--listen-addr",
            f"127.0.0.1:{free_port}",
            "--sqlite-url",
            f"file:{data}/",
            "--shutdown-timeout",
            "300ms",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as proc:
        try:
            line = proc.stdout.readline()
            assert line.startswith(f"ferretdb listening on mongodb://127.0.0.1:{free_port}/"), proc.stderr.read()
            # The line comes only after a hello was answered: a client works at once.
            client = pymongo.MongoClient(f"mongodb://127.0.0.1:{free_port}/", serverSelectionTimeoutMS=1000)
            assert client.admin.command("ping")["ok"] == 1.0
            assert data.is_dir()
            started = time.monotonic()
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(timeout=10) == 0
            # The connected client delays the exit by --shutdown-timeout at most (FerretDB alone: 3 s).
            assert time.monotonic() - started < 2
            client.close()
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


@pytest.mark.parametrize(
    "url, message",
    [
        ("file:/tmp/no-trailing-slash", "must end with /"),
        ("postgres://localhost/", "expected file: scheme"),
    ],
)
def test_bad_sqlite_url(binary: Path, url: str, message: str) -> None:
    result = subprocess.run(
        [str(binary), "--listen-addr", "127.0.0.1:0", "--sqlite-url", url], capture_output=True, text=True, timeout=10
    )
    assert result.returncode == 2
    assert message in result.stderr
