"""Where a process tree's on-CPU time goes by shared object, sampled with Linux perf: what a Python
profile cannot see, native code running without the GIL (OpenSSL in _ssl, pyOpenSSL's cryptography).

`perf record -p PIDS` samples every thread on a CPU (kernel and user, GIL or not) for the window;
`perf report --sort dso` gives each shared object's share of the samples. The anatomy reads the TLS
library's objects (a server's Tls.native) off it: the share of the workers' CPU the crypto took.
perf needs root or kernel.perf_event_paranoid <= 1 for another process.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

RATE = 499  # samples per second per CPU: not a multiple of the 100 Hz tick


def unavailable() -> str:
    """Why perf cannot sample here, in one line ("" when it can)."""
    if shutil.which("perf") is None:
        return "perf is not installed (apt-get install linux-perf)"
    import os

    try:
        paranoid = int(Path("/proc/sys/kernel/perf_event_paranoid").read_text())
    except (OSError, ValueError):
        paranoid = 2
    if os.geteuid() != 0 and paranoid > 1:
        return f"perf needs root or kernel.perf_event_paranoid <= 1 (it is {paranoid})"
    return ""


def start(pids: list[int], seconds: float, out: Path) -> subprocess.Popen:
    out.parent.mkdir(parents=True, exist_ok=True)
    return subprocess.Popen(
        [shutil.which("perf") or "perf", "record", "-F", str(RATE), "-o", str(out), "-p", ",".join(map(str, pids)),
         "--", "sleep", f"{max(1.0, seconds):g}"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace", start_new_session=True)


def finish(proc: subprocess.Popen, out: Path, timeout: float) -> tuple[dict[str, float], str]:
    """({shared object: percent of the samples}, "") or ({}, why it failed, in one line)."""
    try:
        output, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return {}, "perf did not finish in time"
    if proc.returncode != 0 or not out.exists():
        lines = [line.strip() for line in (output or "").splitlines() if line.strip()]
        return {}, "perf failed: " + (lines[-1] if lines else f"exit {proc.returncode}")
    report = subprocess.run([shutil.which("perf") or "perf", "report", "-i", str(out), "--sort", "dso", "--stdio",
                             "-q"], capture_output=True, text=True, errors="replace", timeout=120).stdout
    return parse(report), ""


def parse(report: str) -> dict[str, float]:
    """`perf report --sort dso --stdio -q` lines (`  12.34%  libcrypto.so.3`) as {dso: percent}."""
    shares: dict[str, float] = {}
    for match in re.finditer(r"^\s*([\d.]+)%\s+(\S.*?)\s*$", report, re.M):
        shares[match.group(2)] = shares.get(match.group(2), 0.0) + float(match.group(1))
    return shares


def share(shares: dict[str, float], prefixes: tuple[str, ...]) -> float:
    """The percent of the samples in the shared objects whose name starts with one of prefixes."""
    return sum(pct for dso, pct in shares.items() if Path(dso).name.startswith(prefixes))
