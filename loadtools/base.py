"""What every load tool adapter offers, and the load it is asked to apply (LoadSpec)."""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path

from loadtools import defaults
from loadtools.measurement import Measurement


class ToolMissing(RuntimeError):
    """The tool's binary is not installed; the message says how to install it."""


class Unsupported(ValueError):
    """The tool cannot apply this load (e.g. wrk cannot close connections from the client side)."""


@dataclass
class LoadSpec:
    """One load to apply to base_url + path (a template with {id} for per-user routes)."""

    base_url: str
    path: str
    connections: int = defaults.CONNECTIONS
    # HTTP/2 streams each connection keeps in flight (h2load -m): connections x streams requests at once
    streams: int = 1
    threads: int | None = None
    duration_s: float = defaults.DURATION_S
    requests: int | None = None  # ab (and hey): a request count instead of a duration
    rate: float | None = None  # vegeta: constant request rate (open loop)
    keepalive: bool = True
    # harness.protocols: h1 (plaintext), h1-tls (base_url is https://, the server's certificate signed by ca_file,
    # the suite's local CA, which the tools that verify certificates are given), h2 (HTTP/2 over that TLS, by ALPN)
    # or h2c (HTTP/2 in cleartext, by prior knowledge)
    protocol: str = "h1"
    ca_file: str = ""
    timeout_s: float = defaults.TIMEOUT_S
    users: int = defaults.USERS  # ids are drawn over 1..users
    fixed_id: int = 1  # the id of tools that send one URL only
    workdir: Path = Path(".")
    stem: str = "run"  # file name prefix of scripts, targets and outputs in workdir
    # locust's distributed mode: local worker processes, remote ones to wait for, the master's address
    load_workers: int = 0
    remote_workers: int = 0
    master_bind: str = ""  # HOST or HOST:PORT (default 127.0.0.1, a free port)

    @property
    def has_id(self) -> bool:
        return "{id}" in self.path

    def fixed_url(self) -> str:
        return self.base_url + self.path.replace("{id}", str(self.fixed_id))

    def file(self, suffix: str) -> Path:
        self.workdir.mkdir(parents=True, exist_ok=True)
        return self.workdir / f"{self.stem}{suffix}"


class Tool:
    """A load tool adapter; subclasses set name, binary_name, install and implement the rest."""

    name = ""
    binary_name = ""
    install = ""
    random_ids = False  # True when the tool draws a new id per request
    protocols: tuple[str, ...] = ("h1",)  # the protocols it speaks (harness.protocols)
    # over TLS: how it treats the server's certificate ("verified" against the suite's CA, or why not)
    certificate = ""
    supports_close = True
    supports_rate = False
    supports_closed_loop = True
    supports_streams = False  # it keeps several HTTP/2 streams in flight per connection (--streams)

    def binary(self) -> str:
        found = find_binary(self.binary_name)
        if found:
            return found
        raise ToolMissing(f"{self.binary_name} not found: {self.install}")

    def version(self) -> str:
        raise NotImplementedError

    def check(self, spec: LoadSpec) -> None:
        """Raise Unsupported when this tool cannot apply spec as asked."""
        if not spec.keepalive and not self.supports_close:
            raise Unsupported(f"{self.name} cannot close connections from the client side "
                              f"(a 'Connection: close' header only asks the server to); "
                              f"use --tool ab, hey or vegeta for --close")
        if spec.rate and not self.supports_rate:
            raise Unsupported(f"{self.name} has no constant-rate (open-loop) mode; use --tool vegeta for --rate")
        if not spec.rate and not self.supports_closed_loop:
            raise Unsupported(f"{self.name} needs --rate")
        if spec.connections < 1:
            raise Unsupported("--connections must be at least 1")
        if spec.protocol not in self.protocols:
            raise Unsupported(f"{self.name} does not speak {spec.protocol} here (it speaks {', '.join(self.protocols)})")
        if spec.streams > 1 and not self.supports_streams:
            raise Unsupported(f"{self.name} keeps one request in flight per connection; use --tool h2load for --streams")

    @property
    def verifies_certificate(self) -> bool:
        return self.certificate == "verified"

    def ids(self, spec: LoadSpec) -> str:
        if not spec.has_id:
            return ""
        return f"random 1..{spec.users}" if self.random_ids else f"fixed {spec.fixed_id}"

    def threads(self, spec: LoadSpec) -> int | None:
        """The threads (or CPUs) the tool runs spec with, as recorded with its result (None: not a knob)."""
        return None

    def command(self, spec: LoadSpec) -> list[str]:
        raise NotImplementedError

    def time_limit(self, spec: LoadSpec) -> float:
        """Seconds after which the run is killed (the tool's own bound plus a margin)."""
        return spec.duration_s + spec.timeout_s + 30.0

    def collect(self, spec: LoadSpec, stdout: str, stderr: str) -> dict[str, str]:
        """The raw outputs to keep and parse, by name (most tools: just stdout)."""
        return {"stdout": stdout, "stderr": stderr}

    def parse(self, raw: dict[str, str]) -> Measurement:
        raise NotImplementedError

    def discard(self, spec: LoadSpec) -> None:
        """Drop the output files of a run whose numbers are not wanted (a warm-up)."""

    def load_hosts(self, raw: dict[str, str]) -> tuple[list[str], int | None]:
        """The hosts that sent the load and the number of load processes (None: the tool's own threads)."""
        return [socket.gethostname()], None


def go_bin_dirs() -> list[Path]:
    dirs = []
    if os.environ.get("GOBIN"):
        dirs.append(Path(os.environ["GOBIN"]))
    gopath = os.environ.get("GOPATH")
    if not gopath and shutil.which("go"):
        try:
            gopath = subprocess.run(["go", "env", "GOPATH"], capture_output=True, text=True,
                                    timeout=10).stdout.strip()
        except (OSError, subprocess.TimeoutExpired):
            gopath = ""
    if gopath:
        dirs += [Path(p) / "bin" for p in gopath.split(os.pathsep) if p]
    dirs.append(Path.home() / "go" / "bin")
    return dirs


def find_binary(name: str) -> str | None:
    """`name` on PATH, else in Go's bin directories (where `go install` puts vegeta and hey)."""
    found = shutil.which(name)
    if found:
        return found
    for directory in go_bin_dirs():
        candidate = directory / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def run_version(argv: list[str]) -> str:
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=10,
                              env={**os.environ, "LC_ALL": "C"})
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return (proc.stdout + proc.stderr).strip()
