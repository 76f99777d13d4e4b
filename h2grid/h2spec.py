"""h2spec (github.com/summerwind/h2spec), the HTTP/2 conformance tester: installed at the version pinned in
h2grid/tools/go.mod, run against one endpoint, its JUnit report read into one result per case.

h2spec v2.2.1 predates Go modules (the proxy serves it as v2.2.1+incompatible, with no go.mod of its own),
so `go install ...@v2.2.1+incompatible` would take the newest golang.org/x/net and cobra of the day:
tools/go.mod pins every module it builds with (its `tool` directive), and `go install` from there builds
that. `./setup.sh` installs it into .build/bin; the grid installs it on first use too.

A case's id is h2spec's own (`http2/5.1/8`: the group, then the case's number in it), which
`h2spec -p PORT http2/5.1/8` runs alone. Its JUnit report numbers nothing, so the number is the case's
place in its group (h2spec writes them in order; strict cases, which it skips by default, come last).
"""
from __future__ import annotations

import argparse
import fcntl
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from processes.bounded import run_bounded
from processes.gobuild import GoBuildError, find_go

ROOT = Path(__file__).resolve().parent.parent
TOOLS = Path(__file__).resolve().parent / "tools"
BINARY = ROOT / ".build" / "bin" / "h2spec"
PACKAGE = "github.com/summerwind/h2spec/cmd/h2spec"
MODULE = "github.com/summerwind/h2spec"
CASE_TIMEOUT_S = 2  # h2spec's -o: how long a case waits for the answer it expects (its default)
RUN_TIMEOUT_S = 600.0

PASSED, FAILED, SKIPPED = "passed", "failed", "skipped"
# Characters XML 1.0 forbids, which h2spec writes raw into a report (a PING's opaque data, NULs)
_NOT_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")


# Failures that are not the server's: the harness's (what the endpoint's port must do) or h2spec's own (a case that
# ignores what the server advertised). Checked against h2spec's source (http2/4_2_frame_size.go, spec/util.go).
HARNESS_PREFACE = ("the harness's: the cleartext port serves HTTP/1.1 and h2c alike, so bytes that are not the client "
                   "preface are an HTTP/1.1 request there and a 400 is the right answer; a defect only after ALPN h2")
H2SPEC_FRAME_SIZE = ("h2spec's own: the case sends a HEADERS frame of five 4,000-byte fields (about 20 KB), past the "
                     "default 16 KiB but under the 1 MiB SETTINGS_MAX_FRAME_SIZE Go advertises, and expects "
                     "FRAME_SIZE_ERROR (its DATA case, 4.2/2, reads the advertised size; this one does not)")


def not_the_servers(case_id: str, tls: bool, go: bool) -> str:
    """Why a failing case is not the server's defect ("" when it is): on a cleartext endpoint (not tls), of a Go one."""
    if case_id == "http2/3.5/2" and not tls:
        return HARNESS_PREFACE
    if case_id == "http2/4.2/3" and go:
        return H2SPEC_FRAME_SIZE
    return ""


class H2specError(RuntimeError):
    """h2spec could not be installed or did not finish its run; the message says why and what to do."""


@dataclass(frozen=True)
class Case:
    id: str  # "http2/5.1/8"
    description: str  # h2spec's words for the case
    result: str  # PASSED, FAILED or SKIPPED
    message: str = ""  # what it expected and what it got (a failure)


def pinned_versions() -> dict[str, str]:
    """h2spec's version and the modules it is built with, from tools/go.mod."""
    text = (TOOLS / "go.mod").read_text()
    return dict(re.findall(r"^\s+([\w./-]+)\s+(v[\w.+-]+)", text, re.MULTILINE))


def version() -> str:
    """What a record says it ran: h2spec's version and the x/net framer it parses frames with."""
    modules = pinned_versions()
    return f"h2spec {modules[MODULE]} (golang.org/x/net {modules.get('golang.org/x/net', '?')})"


def _stale() -> bool:
    if not BINARY.exists():
        return True
    built = BINARY.stat().st_mtime
    return any(p.stat().st_mtime > built for p in (TOOLS / "go.mod", TOOLS / "go.sum"))


def install(force: bool = False) -> Path:
    """The h2spec binary, built first (`go install` in tools/, into .build/bin) when missing or older than tools/go.mod."""
    if not force and not _stale():
        return BINARY
    go = find_go()
    if go is None:
        raise H2specError("go not found: install Go >= 1.24 (h2spec is built from h2grid/tools/go.mod)")
    BINARY.parent.mkdir(parents=True, exist_ok=True)
    with open(BINARY.parent / ".h2spec.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if force or _stale():
            tag = pinned_versions()[MODULE].removeprefix("v").removesuffix("+incompatible")
            done = subprocess.run([go, "install", "-trimpath", "-ldflags", f"-X main.VERSION={tag}", PACKAGE],
                                  cwd=TOOLS, env={**os.environ, "GOBIN": str(BINARY.parent), "CGO_ENABLED": "0"},
                                  capture_output=True, text=True, timeout=600)
            if done.returncode != 0:
                raise H2specError(f"go install {PACKAGE} (in {TOOLS}) failed: {done.stderr.strip()[-2000:]}")
            BINARY.touch()
    return BINARY


def parse_junit(text: str) -> dict[str, Case]:
    """h2spec's JUnit report -> {case id: Case}, in the report's order."""
    try:
        root = ET.fromstring(_NOT_XML.sub("", text))
    except ET.ParseError as exc:
        raise H2specError(f"h2spec's JUnit report does not parse ({exc})") from None
    cases: dict[str, Case] = {}
    for suite in root.iter("testsuite"):
        for number, testcase in enumerate(suite.iter("testcase"), 1):
            case_id = f"{testcase.get('package') or suite.get('package')}/{number}"
            failure = testcase.find("failure")
            if failure is None:
                failure = testcase.find("error")
            if failure is not None:
                result, message = FAILED, " ".join((failure.text or "").split())
            elif testcase.find("skipped") is not None:
                result, message = SKIPPED, ""
            else:
                result, message = PASSED, ""
            cases[case_id] = Case(case_id, testcase.get("classname", ""), result, message)
    if not cases:
        raise H2specError("h2spec's JUnit report holds no test case")
    return cases


def run(port: int, tls: bool, case_ids: tuple[str, ...] = (), host: str = "127.0.0.1",
        timeout_s: int = CASE_TIMEOUT_S) -> dict[str, Case]:
    """Run h2spec (every case, or case_ids) against host:port; TLS without verifying the certificate
    (h2spec takes no CA: the suite's own pair on loopback), else h2c by prior knowledge."""
    binary = install()
    with tempfile.TemporaryDirectory(prefix="h2spec-") as tmp:
        report = Path(tmp) / "junit.xml"
        argv = [str(binary), "-h", host, "-p", str(port), "-o", str(timeout_s), "-j", str(report),
                *(["-t", "-k"] if tls else []), *case_ids]
        done = run_bounded(argv, timeout=RUN_TIMEOUT_S)
        if done.timed_out:
            raise H2specError(f"h2spec did not finish within {RUN_TIMEOUT_S:.0f} s: {' '.join(argv)}")
        if not report.exists():
            # h2spec exits before writing its report when a case cannot connect (the server died or refused)
            said = (done.stdout + done.stderr).strip().splitlines()
            raise H2specError(f"h2spec stopped without a report (exit {done.returncode}): "
                              f"{said[-1] if said else 'no output'}")
        cases = parse_junit(report.read_text(errors="replace"))
    if case_ids:
        wanted = set(case_ids)
        cases = {k: v for k, v in cases.items() if k in wanted} if wanted <= set(cases) else _renumbered(cases, case_ids)
    return cases


def _renumbered(cases: dict[str, Case], case_ids: tuple[str, ...]) -> dict[str, Case]:
    """A run of chosen cases numbers each group's cases from 1 in its report; give them their own ids back.
    Each case runs alone (one id per run) for this to be exact."""
    if len(case_ids) != 1 or len(cases) != 1:
        raise H2specError(f"cannot map h2spec's report of {len(cases)} cases to the {len(case_ids)} asked for: "
                          "run one case at a time")
    (case,) = cases.values()
    return {case_ids[0]: Case(case_ids[0], case.description, case.result, case.message)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m h2grid.h2spec",
                                     description="Install h2spec at the version pinned in h2grid/tools/go.mod "
                                                 f"(into {BINARY.relative_to(ROOT)}), or say where it is.")
    parser.add_argument("--force", action="store_true", help="build it again even if it is current")
    args = parser.parse_args(argv)
    try:
        path = install(force=args.force)
    except (H2specError, GoBuildError, subprocess.TimeoutExpired) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"{version()}: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
