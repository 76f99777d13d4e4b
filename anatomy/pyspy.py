"""Sampling a Python worker with py-spy: collapsed stacks per thread, for N seconds, two ways.

On-CPU (`--gil --threads`): only the thread holding the GIL is sampled, so a thread parked in C
(SimpleQueue.get, Condition.wait, a recv in a health-check thread), which py-spy's idle detection
takes for running, is never counted; py-spy stops the process for each sample. Wall (`--idle
--threads --nonblocking`, at WALL_RATE, beside the first without stopping the process): every
thread, waiting or not, for the time spent off CPU (held in a lingering close or a backend call,
parked waiting for work). Each line is `thread (TID): name;frame;... count`. py-spy reads another
process's memory through ptrace: root, or CAP_SYS_PTRACE, or kernel.yama.ptrace_scope 0.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

RATE = 100  # on-CPU samples per second
WALL_RATE = 20  # wall samples per second (py-spy reads without stopping the process: keep it light)


def unavailable() -> str:
    """Why py-spy cannot sample here, in one line ("" when it can)."""
    if shutil.which("py-spy") is None:
        return "py-spy is not installed (pip install '.[anatomy]')"
    try:
        scope = Path("/proc/sys/kernel/yama/ptrace_scope").read_text().strip()
    except OSError:
        scope = "0"
    import os

    if os.geteuid() != 0 and scope not in ("0",):
        return f"py-spy needs ptrace: run as root or with CAP_SYS_PTRACE (kernel.yama.ptrace_scope is {scope})"
    return ""


def start(pid: int, seconds: float, out: Path, wall: bool = False) -> subprocess.Popen:
    """Start sampling pid (on-CPU, or wall with wall=True); the caller waits for the process, then reads out."""
    mode = ["--idle", "--nonblocking", "--rate", str(WALL_RATE)] if wall else ["--gil", "--rate", str(RATE)]
    out.parent.mkdir(parents=True, exist_ok=True)
    return subprocess.Popen(
        [shutil.which("py-spy") or "py-spy", "record", "--format", "raw", "--output", str(out), "--pid", str(pid),
         "--duration", str(max(1, round(seconds))), "--threads", *mode],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace", start_new_session=True)


def finish(proc: subprocess.Popen, out: Path, timeout: float) -> tuple[str, str]:
    """(collapsed stacks, "" ) or ("", why it failed, in one line)."""
    try:
        output, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        output, _ = proc.communicate()
        return "", "py-spy did not finish in time"
    if proc.returncode != 0 or not out.exists():
        lines = [l.strip() for l in (output or "").splitlines() if l.strip()]
        return "", "py-spy failed: " + (lines[-1] if lines else f"exit {proc.returncode}")
    return out.read_text(errors="replace"), ""
