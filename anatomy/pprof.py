"""A Go server's CPU profile from its loopback-only pprof debug listener, as collapsed stacks.

The Go servers start that listener only when REFSUITE_PPROF_PORT is set (servers/go/internal/cli,
pprof.go), on 127.0.0.1 only. /debug/pprof/profile?seconds=N records N seconds of CPU samples;
`go tool pprof -traces` prints each sampled stack (leaf first) with its CPU time, turned here into
`root;...;leaf milliseconds` lines, the same collapsed form as py-spy's.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import urllib.request
from pathlib import Path

ENV = "REFSUITE_PPROF_PORT"
_VALUE = re.compile(r"^\s*(?P<value>[\d.]+)(?P<unit>ns|us|µs|ms|s)\s+(?P<frame>\S.*)$")
_UNIT_MS = {"ns": 1e-6, "us": 1e-3, "µs": 1e-3, "ms": 1.0, "s": 1000.0}


def unavailable() -> str:
    return "" if shutil.which("go") else "go is not installed: `go tool pprof` reads the profile"


def fetch(port: int, seconds: float, out: Path) -> str:
    """Record the profile into out; "" or why not, in one line."""
    url = f"http://127.0.0.1:{port}/debug/pprof/profile?seconds={max(1, round(seconds))}"
    try:
        with urllib.request.urlopen(url, timeout=seconds + 15) as response:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(response.read())
    except OSError as exc:
        return f"pprof listener at 127.0.0.1:{port} did not answer: {exc}"
    return ""


def traces(profile: Path) -> tuple[str, str]:
    """(collapsed stacks in ms, "") or ("", why not)."""
    try:
        done = subprocess.run(["go", "tool", "pprof", "-traces", str(profile)], capture_output=True, text=True,
                              timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return "", f"go tool pprof failed: {exc}"
    if done.returncode != 0:
        return "", f"go tool pprof failed: {done.stderr.strip().splitlines()[-1:] or done.returncode}"
    return collapse(done.stdout), ""


def collapse(text: str) -> str:
    """`go tool pprof -traces` output -> collapsed stacks, root first, values in milliseconds."""
    lines, value, frames = [], 0.0, []

    def flush() -> None:
        if frames and value:
            lines.append(";".join(reversed(frames)) + f" {value:g}")

    for raw in text.splitlines():
        if raw.startswith("-----------+"):
            flush()
            value, frames = 0.0, []
            continue
        match = _VALUE.match(raw)
        if match:
            value = float(match["value"]) * _UNIT_MS[match["unit"]]
            frames = [match["frame"].strip()]
        elif frames and raw.strip() and raw.startswith(" "):
            frames.append(raw.strip())
    flush()
    return "\n".join(lines) + ("\n" if lines else "")
