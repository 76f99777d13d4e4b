"""Headless Chromium (Debian's, from apt-packages.txt) as a reader's browser: a page's first screen as a
PNG, or its DOM once its scripts have run. `offline` blocks every host but 127.0.0.1 (name resolution
fails), so what a page shows is what it has without a network: bench's report picture, the docs site's
diagrams, and the report test use it.
"""
from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

WINDOW = (1280, 900)  # a laptop's first screen
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run")
OFFLINE = "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"
INSTALL = "apt-get install chromium (apt-packages.txt lists it; ./setup.sh installs it)"


class BrowserMissing(RuntimeError):
    """No Chromium on this machine."""


class BrowserFailed(RuntimeError):
    """Chromium ran but did not produce what was asked."""


def find() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if not found:
        raise BrowserMissing(f"chromium not found: {INSTALL}")
    return found


def run(url: str, *args: str, window: tuple[int, int] = WINDOW, offline: bool = False, budget_ms: int = 8000,
        timeout: float = 120) -> subprocess.CompletedProcess:
    """Chromium on url with a fresh profile; budget_ms of virtual time for the page's scripts and timers."""
    with tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile:
        command = [find(), *FLAGS, f"--user-data-dir={profile}", f"--window-size={window[0]},{window[1]}",
                   f"--virtual-time-budget={budget_ms}", *([OFFLINE] if offline else []), *args, url]
        return subprocess.run(command, capture_output=True, text=True, timeout=timeout)


def dom(url: str, offline: bool = False, budget_ms: int = 8000) -> str:
    """The page's DOM, serialized after budget_ms of virtual time."""
    done = run(url, "--dump-dom", offline=offline, budget_ms=budget_ms)
    if done.returncode != 0 or not done.stdout:
        raise BrowserFailed(f"chromium --dump-dom {url} failed (exit {done.returncode}): {done.stderr[-500:]}")
    return done.stdout


def screenshot(url: str, out: Path, window: tuple[int, int] = WINDOW, offline: bool = True,
               budget_ms: int = 8000) -> Path:
    """The page's first screen (window wide and high) as a PNG at out."""
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.unlink(missing_ok=True)
    done = run(url, f"--screenshot={out}", window=window, offline=offline, budget_ms=budget_ms)
    if not out.exists():
        raise BrowserFailed(f"chromium wrote no screenshot of {url} (exit {done.returncode}): {done.stderr[-500:]}")
    return out
