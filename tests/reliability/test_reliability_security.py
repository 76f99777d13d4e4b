"""Security defaults: loopback by default, no debugger or reloader, compose on loopback, no secrets.

- Every entry started without --host listens on 127.0.0.1 only (every LISTEN socket of its process
  tree, checked with psutil) and is not reachable on another local address: 127.0.0.2 (the rest
  of 127/8 is local too), ::1, and each non-loopback address of this machine's interfaces.
- Its startup output shows no debugger or reloader, and werkzeug's debugger does not answer.
- No debug or reloader switch anywhere in servers/ (Python and Go sources).
- Every port published by compose/docker-compose.yml is bound to 127.0.0.1 (unless BIND_ADDRESS is set).
- No private keys, cloud access keys or passwords in URLs in any file git tracks.
(A stack trace in a response is checked on every response of test_reliability_hostile.)
"""
from __future__ import annotations

import ipaddress
import re
import socket
import subprocess
from pathlib import Path

import psutil
import pytest

from reltools import HTTP_ALL, ROOT, get, leaks, listening, warm

pytestmark = pytest.mark.reliability

DEBUG_SWITCHES = [
    re.compile(p) for p in (
        r"\bdebug\s*=\s*True\b", r"\buse_reloader\s*=\s*True\b", r"\buse_debugger\s*=\s*True\b",
        r"\b(auto_?)?reload\s*=\s*True\b", r"\bautoreload\s*=\s*True\b", r"\bDebuggedApplication\b",
        r"\buse_evalex\s*=\s*True\b", r"\bDEBUG\s*=\s*True\b", r"\bdebug\s*=\s*1\b",
        r"--reload(?![\w-])",  # the flag itself, not uWSGI's --reload-mercy (a grace on stop)
        r"\bPYTHONDEVMODE\b", r"gin\.SetMode\(gin\.DebugMode\)", r"\.Debug\s*=\s*true\b",
        r"net/http/pprof", r"\bexpvar\b",
    )
]
STARTUP_DEBUG = re.compile(r"Debugger is active|Debug mode: on|Restarting with (stat|watchdog)|\[GIN-debug\]|"
                           r"reloader|auto-?reload|DEBUG MODE|debugger PIN", re.IGNORECASE)


def other_local_addresses() -> list[str]:
    """Addresses of this machine a server bound to 0.0.0.0 (or ::) would answer on."""
    found = ["127.0.0.2"]
    if socket.has_ipv6:
        found.append("::1")
    for addrs in psutil.net_if_addrs().values():
        for addr in addrs:
            if addr.family not in (socket.AF_INET, socket.AF_INET6):
                continue
            ip = ipaddress.ip_address(addr.address.split("%")[0])
            if not ip.is_loopback and not ip.is_link_local:
                found.append(str(ip))
    return list(dict.fromkeys(found))


def reachable(address: str, port: int) -> bool:
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.settimeout(1.0)
        try:
            sock.connect((address, port))
        except OSError:  # refused, unreachable, no such address: not reachable
            return False
        return True


@pytest.mark.parametrize("name", HTTP_ALL)
def test_loopback_only_and_no_debugger_by_default(name, running):
    server = running(name)  # the stack's shared server: ServerProcess passes --port and backend URLs, never --host
    warm(server)
    sockets = listening(server)
    assert any(port == server.port for _, _, port in sockets), f"nothing listens on {server.port}: {sockets}"
    wide = [s for s in sockets if s[1] != "127.0.0.1"]
    assert not wide, f"{name} listens beyond 127.0.0.1 by default: {wide}"
    exposed = [address for address in other_local_addresses() if reachable(address, server.port)]
    assert not exposed, f"{name} answers on {exposed} (port {server.port})"

    output = "\n".join(server.stdout_lines) + "\n" + server.stderr_text()
    assert not STARTUP_DEBUG.search(output), f"{name} starts with a debugger or reloader:\n{output}"
    # werkzeug's debugger answers these itself, before the app sees them.
    for path in ("/?__debugger__=yes&cmd=resource&f=debugger.js", "/console"):
        status, body = get(server, path)
        assert not leaks(body) and b"debugger" not in body.lower() and b"console.png" not in body, (path, body[:200])
        assert status in (200, 404) and (status == 404 or body == b"Hello, World!"), (path, status, body[:200])
    assert not any("reload" in " ".join(_cmdline(p)).lower() for p in server.tree())


def _cmdline(proc: psutil.Process) -> list[str]:
    try:
        return proc.cmdline()
    except psutil.Error:  # gone, or a zombie (werkzeug's forked children)
        return []


# The one debug listener allowed: the anatomy's CPU profile for Go servers, off unless
# REFSUITE_PPROF_PORT is set, bound to 127.0.0.1 whatever --host says (tests/test_anatomy.py runs it).
PPROF_LISTENER = ROOT / "servers" / "go" / "internal" / "cli" / "pprof.go"


def test_no_debug_or_reloader_switch_in_servers():
    hits = []
    for path in sorted((ROOT / "servers").rglob("*")):
        if path.suffix not in (".py", ".go") or "__pycache__" in path.parts:
            continue
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            code = line.split("#", 1)[0] if path.suffix == ".py" else line.split("//", 1)[0]
            for pattern in DEBUG_SWITCHES:
                if pattern.search(code) and not (path == PPROF_LISTENER and pattern.pattern == "net/http/pprof"):
                    hits.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not hits, "debug or reloader switches in servers/:\n" + "\n".join(hits)
    listener = PPROF_LISTENER.read_text()
    assert 'os.Getenv(PprofEnv)' in listener and 'net.JoinHostPort("127.0.0.1"' in listener, \
        "the pprof listener must stay opt-in and on loopback"


def test_compose_publishes_ports_on_loopback_only():
    yaml = pytest.importorskip("yaml")
    document = yaml.safe_load((ROOT / "compose" / "docker-compose.yml").read_text())
    published, wide = 0, []
    for service_name, service in (document.get("services") or {}).items():
        for port in service.get("ports") or []:
            published += 1
            if isinstance(port, dict):  # long syntax
                ok = port.get("host_ip") == "127.0.0.1"
            else:  # by default: ${BIND_ADDRESS:-127.0.0.1} opens a host's own address only when set
                ok = str(port).replace("${BIND_ADDRESS:-127.0.0.1}", "127.0.0.1", 1).startswith("127.0.0.1:")
            if not ok:
                wide.append(f"{service_name}: {port}")
    assert published, "compose publishes no port at all?"
    assert not wide, "ports published beyond loopback:\n" + "\n".join(wide)


# Built from pieces so that this file does not match itself.
_DASHES = "-" * 5
SECRET_PATTERNS = {
    "private key": re.compile(_DASHES + r"BEGIN (?:RSA |EC |DSA |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY" + _DASHES),
    "AWS access key id": re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    "AWS secret key": re.compile(r"aws_secret_access_key\s*[=:]\s*['\"]?[A-Za-z0-9/+=]{40}"),
    "GitHub token": re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,}\b"),
    "Slack token": re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}"),
    "Google API key": re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"),
    "password in URL": re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s/:@'\"<>]+:[^\s/@'\"<>{}$]+@[^\s/'\"<>]+"),
}


def tracked_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=30).stdout
        return [ROOT / name for name in out.decode().split("\0") if name]
    except (OSError, subprocess.CalledProcessError):  # not a git checkout: every file but state
        skip = {".git", ".build", ".state", "results", "__pycache__", ".venv", "venv"}
        return [p for p in ROOT.rglob("*") if p.is_file() and not skip & set(p.relative_to(ROOT).parts)]


def test_no_secrets_in_tracked_files():
    hits, scanned = [], 0
    for path in tracked_files():
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if b"\0" in data[:8192]:
            continue  # binary
        scanned += 1
        text = data.decode(errors="replace")
        for kind, pattern in SECRET_PATTERNS.items():
            for match in pattern.finditer(text):
                line = text.count("\n", 0, match.start()) + 1
                hits.append(f"{path.relative_to(ROOT)}:{line}: {kind}: {match.group(0)[:80]}")
    assert scanned > 10, f"only {scanned} files scanned"
    assert not hits, "secrets in tracked files:\n" + "\n".join(hits)
