"""A wire trace of one stack: which process and thread accepts, reads and writes each request, with how
many syscalls, and when the server closes idle, silent, stalled and draining connections.

`python -m anatomy --trace NAME` starts the entry with one worker, attaches `strace -f -yy` to its
process tree once it has booted (every thread, and every thread or process started later), and drives
it from a client of its own on loopback, one phase after another:
- keep-alive: traceclient.REQUESTS `GET /` on one connection (a new one when the server closes after a response);
- idle: after the last response the connection stays silent until the server closes it (or BOUND_S);
- silent: a new connection that sends nothing; stalled: one that sends a head without its blank line;
- slow client: a head sent in three pieces a second apart, while a second client asks once;
- SIGTERM: with an idle keep-alive connection open, what the client sees and when the tree is gone
(the client of these phases is anatomy.traceclient).
strace prints every socket with its 4-tuple (-yy), so the client's port picks its connection's calls
out of the whole tree's. All of it is done RUNS times, each run a fresh process: a fact is a set of
samples (every request of every run; each run's timeouts and drain), so one that depends on timing shows
as what varied and how often, never as a constant read off one sample. The result is a dict, the
entry's versions and one record per run (stored as docs/data/traces/NAME.json by anatomy.tracedata;
rendered by anatomy.tracerender). A wait the server does not end is reported as not closed within
BOUND_S, never waited out.
"""
from __future__ import annotations

import datetime
import json
import re
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from anatomy.traceclient import PAUSE_S, STALLED, Client, sigterm
from anatomy.census import SUPERVISOR, WORKER, ProcessInfo, assign_roles
from anatomy.session import ROOT, settle
from harness import machine, versions
from harness.entry import EntryProcess
from processes.ports import free_port
from servers.core import catalog

BOUND_S = 40.0  # the longest a phase waits for the server to close a connection
RUNS = 3  # fresh processes traced one after another (what varies between processes, or with timing, shows)
SYSCALLS = ("accept,accept4,read,readv,recvfrom,recvmsg,write,writev,sendto,sendmsg,sendfile,shutdown,close,"
            "clone,clone3,fork,vfork")
KINDS = {"accept": "accept", "accept4": "accept", "read": "read", "readv": "read", "recvfrom": "read",
         "recvmsg": "read", "write": "write", "writev": "write", "sendto": "write", "sendmsg": "write",
         "sendfile": "write", "shutdown": "close", "close": "close"}
_LINE = re.compile(r"^(?P<tid>\d+)\s+(?P<t>\d+\.\d+)\s+(?P<rest>.*)$")
_RESUMED = re.compile(r"^<\.\.\. (?P<call>\w+) resumed>(?P<rest>.*)$")
_CALL = re.compile(r"^(?P<call>\w+)\((?P<rest>.*)$")
_RET = re.compile(r"\)\s+=\s+(?P<ret>-?\d+|\?)(?P<after>.*)$")
_TOOK = re.compile(r"<(?P<s>\d+\.\d+)>$")


@dataclass
class Call:
    tid: int
    start: float
    end: float
    call: str
    text: str  # arguments and return, unfinished and resumed halves joined
    ret: int | None

    @property
    def kind(self) -> str:
        return KINDS.get(self.call, "")

    @property
    def failed(self) -> str:
        """The errno name of a failed call (EAGAIN: a non-blocking read that found nothing)."""
        match = re.search(r"= -1 (E\w+)", self.text)
        return match[1] if match else ""


def parse_strace(text: str) -> list[Call]:
    """The calls of an `strace -f -ttt -yy -o FILE` log, unfinished and resumed halves joined."""
    calls, pending = [], {}
    for line in text.splitlines():
        match = _LINE.match(line)
        if not match:
            continue
        tid, t, rest = int(match["tid"]), float(match["t"]), match["rest"]
        if rest.startswith("+++") or rest.startswith("---"):
            continue
        resumed = _RESUMED.match(rest)
        if resumed:
            start, call, head = pending.pop((tid, resumed["call"]), (t, resumed["call"], ""))
            body = head + resumed["rest"]
        else:
            plain = _CALL.match(rest)
            if not plain:
                continue
            if rest.endswith("<unfinished ...>"):
                pending[(tid, plain["call"])] = (t, plain["call"], plain["rest"][:-len("<unfinished ...>")])
                continue
            start, call, body = t, plain["call"], plain["rest"]
        ret = _RET.search(body)
        value = int(ret["ret"]) if ret and ret["ret"] != "?" else None
        took = _TOOK.search(body)
        calls.append(Call(tid, start, t + float(took["s"]) if took else t, call, body, value))
    return calls


def on_connection(calls: list[Call], client_port: int) -> list[Call]:
    """The calls on the server's socket of the connection whose client end is client_port."""
    mark = f":{client_port}]>"
    return [c for c in calls if c.kind and mark in c.text]


@dataclass
class Threads:
    """Who each traced tid is: its process (pid, role) and a readable label."""

    root: int
    process_of: dict[int, int] = field(default_factory=dict)  # tid -> pid
    comm: dict[int, str] = field(default_factory=dict)
    roles: dict[int, str] = field(default_factory=dict)
    order: dict[int, int] = field(default_factory=dict)  # pid -> how many non-main threads named so far
    numbers: dict[int, int] = field(default_factory=dict)
    commands: dict[int, str] = field(default_factory=dict)  # pid -> command line, for the roles
    go: bool = False

    def snapshot(self) -> None:
        try:
            procs = [psutil.Process(self.root), *psutil.Process(self.root).children(recursive=True)]
        except psutil.NoSuchProcess:
            return
        for proc in procs:
            try:
                for thread in proc.threads():
                    self.process_of.setdefault(thread.id, proc.pid)
                    if thread.id not in self.comm:
                        self.comm[thread.id] = _comm(proc.pid, thread.id)
            except psutil.Error:
                continue

    def learn_clones(self, calls: list[Call]) -> None:
        """Threads and processes started while traced: a clone with CLONE_THREAD is a thread of its caller's process."""
        for c in calls:
            if c.call in ("clone", "clone3", "fork", "vfork") and c.ret and c.ret > 0:
                parent = self.process_of.get(c.tid, c.tid)
                self.process_of.setdefault(c.ret, parent if "CLONE_THREAD" in c.text else c.ret)

    def assign_roles(self, serving: set[int]) -> None:
        infos = []
        for pid in sorted(set(self.process_of.values())):
            infos.append(ProcessInfo(pid, 0, "", self.commands.get(pid, "")))
        assign_roles(infos, self.root, serving)
        self.roles = {i.pid: i.role for i in infos}

    def process_label(self, pid: int) -> str:
        role = self.roles.get(pid, WORKER)
        if pid == self.root and role == WORKER:
            return "the process"
        return {SUPERVISOR: "the supervisor"}.get(role, f"the {role}")

    def label(self, tid: int) -> str:
        pid = self.process_of.get(tid, tid)
        if self.go:  # goroutines move between the runtime's threads: a thread is no role of its own
            if tid not in self.numbers:
                self.order[pid] = self.order.get(pid, 0) + 1
                self.numbers[tid] = self.order[pid]
            return f"Go runtime thread {self.numbers[tid]}"
        if tid == pid:
            return f"{self.process_label(pid)}'s main thread"
        if tid not in self.numbers:
            self.order[pid] = self.order.get(pid, 0) + 1
            self.numbers[tid] = self.order[pid]
        name = self.comm.get(tid, "")
        main_name = self.comm.get(pid, "")
        named = f" ({name})" if name and name != main_name else ""
        return f"{self.process_label(pid)}'s thread {self.numbers[tid]}{named}"


def _comm(pid: int, tid: int) -> str:
    try:
        return Path(f"/proc/{pid}/task/{tid}/comm").read_text().strip()
    except OSError:
        return ""


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def summarize(calls: list[Call], threads: Threads, start: float, end: float) -> dict:
    """Calls of one connection within [start, end): counts per kind and call, the threads, write sizes."""
    inside = [c for c in calls if start <= c.start < end]
    out: dict = {}
    for kind in ("accept", "read", "write", "close"):
        mine = [c for c in inside if c.kind == kind]
        if not mine:
            continue
        calls_by_name: dict[str, int] = {}
        for c in mine:
            key = c.call + (f" ({c.failed})" if c.failed else "")
            calls_by_name[key] = calls_by_name.get(key, 0) + 1
        entry = {"count": len([c for c in mine if not c.failed]), "calls": calls_by_name,
                 "threads": sorted({threads.label(c.tid) for c in mine})}
        if kind == "write":
            entry["bytes"] = [c.ret for c in mine if c.ret is not None and c.ret >= 0]
        if kind == "read":
            entry["empty"] = sum(1 for c in mine if c.failed == "EAGAIN")
        out[kind] = entry
    return out


def sequence(calls: list[Call], threads: Threads, start: float, end: float) -> list[dict]:
    """The connection's calls within [start, end) in order, a run of one call on one thread as one step."""
    steps: list[dict] = []
    for c in calls:
        if not start <= c.start < end:
            continue
        call = c.call + (f" ({c.failed})" if c.failed else "")
        thread = threads.label(c.tid)
        if steps and steps[-1]["call"] == call and steps[-1]["thread"] == thread:
            steps[-1]["times"] += 1
        else:
            steps.append({"thread": thread, "kind": c.kind, "call": call, "times": 1, "bytes": []})
        if c.kind == "write" and c.ret is not None and c.ret >= 0:
            steps[-1]["bytes"].append(c.ret)
    return steps


def closer(calls: list[Call], threads: Threads, after: float, until: float) -> dict:
    """Who ended the connection between `after` and `until` (when the client saw it end): the first
    shutdown or close on it."""
    for c in calls:
        if c.kind == "close" and after <= c.start <= until:
            return {"call": c.call, "thread": threads.label(c.tid), "at_s": round(c.start - after, 3)}
    return {}


def run(name: str, bound: float = BOUND_S, workdir: Path | None = None, log=print, runs: int = RUNS) -> dict:
    """Trace the entry `runs` times (measure), then read the traces (analyze)."""
    return analyze(measure(name, bound, workdir, log, runs))


def measure(name: str, bound: float = BOUND_S, workdir: Path | None = None, log=print, runs: int = RUNS) -> Path:
    """Run the phases under strace, `runs` times, each on a fresh process; each run's strace log and the
    client's marks go to run-N/ of the returned folder."""
    workdir = Path(workdir or ROOT / "results" / "trace") / name
    workdir.mkdir(parents=True, exist_ok=True)
    for old in workdir.glob("run-*"):  # a previous measure's runs are not this one's
        shutil.rmtree(old)
    for number in range(1, runs + 1):
        log(f"tracing {name}, run {number} of {runs}")
        _measure_run(name, bound, workdir / f"run-{number}", log)
    return workdir


def run_folders(workdir: Path) -> list[Path]:
    """The run-N folders measure() wrote, in order (a folder of the one-run layout is its own run)."""
    folders = sorted(Path(workdir).glob("run-*"), key=lambda f: int(f.name.split("-")[1]))
    return folders or ([Path(workdir)] if (Path(workdir) / "marks.json").exists() else [])


def _measure_run(name: str, bound: float, folder: Path, log) -> None:
    entry = catalog.get(name)
    folder.mkdir(parents=True, exist_ok=True)
    port = free_port()
    server = EntryProcess(entry.name, ["--port", str(port), "--workers", "1"], folder / "server.log").start()
    tracer = None
    began = time.monotonic()
    try:
        settle(server.pid)
        threads = Threads(server.pid)
        threads.snapshot()
        pids = sorted(set(threads.process_of.values()))
        tracer = subprocess.Popen(["strace", "-f", "-ttt", "-T", "-yy", "-s", "0", "-e", f"trace={SYSCALLS}",
                                   "-o", str(folder / "strace.txt"),
                                   *[a for pid in pids for a in ("-p", str(pid))]],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1.0)  # strace attaches every thread of every process
        client = Client(port, bound)
        sock = client.keep_alive()
        threads.snapshot()
        client.idle(sock)
        time.sleep(PAUSE_S)
        client.silent("silent", b"")
        time.sleep(PAUSE_S)
        client.silent("stalled", STALLED)
        time.sleep(PAUSE_S)
        client.slow()
        threads.snapshot()
        time.sleep(PAUSE_S)
        client.marks["sigterm"] = sigterm(server, client, bound)
    finally:
        server.stop()
        if tracer is not None:
            try:
                tracer.wait(10)
            except subprocess.TimeoutExpired:
                tracer.terminate()
                tracer.wait(10)
    took = round(time.monotonic() - began, 1)
    roles_hint = {}
    for pid in set(threads.process_of.values()):
        try:
            roles_hint[pid] = " ".join(psutil.Process(pid).cmdline())
        except psutil.Error:
            roles_hint[pid] = ""
    (folder / "marks.json").write_text(json.dumps({
        "entry": name, "bound_s": bound, "took_s": took, "marks": client.marks, "root": server.pid,
        "process_of": threads.process_of, "comm": threads.comm, "commands": roles_hint,
        "versions": versions.for_entry(name), "machine": machine.summary(machine.describe()),
        "date": datetime.date.today().isoformat()}, indent=1))
    log(f"traced {name} ({folder.name}) in {took} s")


def analyze(workdir: Path) -> dict:
    """The trace's facts, from a folder measure() wrote: the entry and its versions, and each run's facts."""
    folders = run_folders(Path(workdir))
    if not folders:
        raise FileNotFoundError(f"no trace in {workdir}: run `python -m anatomy --trace NAME` first")
    saved = json.loads((folders[0] / "marks.json").read_text())
    name = saved["entry"]
    entry = catalog.get(name)
    runs = [_analyze_run(folder, entry) for folder in folders]
    return {"entry": name, "server": entry.server, "framework": entry.framework, "model": entry.model,
            "versions": saved["versions"], "machine": saved["machine"], "date": saved["date"],
            "command": f"python -m anatomy --trace {name}", "workers": 1, "bound_s": saved["bound_s"],
            "took_s": round(sum(run["took_s"] for run in runs), 1), "requests_per_run": len(runs[0]["requests"]),
            "runs": runs}


def _analyze_run(folder: Path, entry) -> dict:
    """One run's facts: the processes, each keep-alive request's calls, how the phases' connections ended."""
    saved = json.loads((folder / "marks.json").read_text())
    marks = saved["marks"]
    threads = Threads(saved["root"], {int(k): v for k, v in saved["process_of"].items()},
                      {int(k): v for k, v in saved["comm"].items()},
                      commands={int(k): v for k, v in saved["commands"].items()}, go=entry.language == "go")
    calls = parse_strace((folder / "strace.txt").read_text(errors="replace"))
    threads.learn_clones(calls)
    serving = {threads.process_of.get(c.tid, c.tid) for c in calls if c.kind in ("accept", "read", "write")
               and "TCP:[" in c.text}
    threads.assign_roles(serving)
    result: dict = {"took_s": saved["took_s"]}
    result["processes"] = [{"pid": pid, "role": threads.roles.get(pid, "")}
                           for pid in sorted(set(threads.process_of.values()))]
    result["requests"] = _requests(marks["requests"], calls, threads)
    for phase in ("idle", "silent", "stalled"):
        mark = marks[phase]
        if mark.get("port") is None:
            result[phase] = {"after_s": None, "how": "closed after the response", "closer": {}}
            continue
        conn = on_connection(calls, mark["port"])
        seen = mark["from"] + mark["after_s"] if mark["after_s"] is not None else mark["from"]
        result[phase] = {"after_s": _round(mark["after_s"]), "how": mark["how"],
                         "answer": mark.get("answer", ""), "accepted": any(c.kind == "accept" for c in conn),
                         "closer": closer(conn, threads, mark["from"], seen + 0.05)
                         if mark["after_s"] is not None else {},
                         "reads": summarize(conn, threads, 0, float("inf")).get("read", {})}
    slow = marks["slow"]
    conn = on_connection(calls, slow["port"])
    result["slow"] = {"pieces": slow.get("pieces", 3), "gap_s": slow.get("gap_s", 1.0), "answered_s": slow["answered_s"],
                      "status": slow["status"], "outcome": slow.get("outcome", ""), "ended_s": slow.get("ended_s"),
                      "closer": closer(conn, threads, slow["from"], slow["until"] + 0.05) if slow.get("ended_s")
                      and slow.get("outcome") != "answered" else {},
                      "calls": summarize(conn, threads, 0, float("inf")),
                      "other_latency_s": _round(slow["other"].get("latency_s"))}
    if slow["other"].get("port"):
        result["slow"]["other_calls"] = summarize(on_connection(calls, slow["other"]["port"]), threads, 0,
                                                  float("inf"))
    result["sigterm"] = marks["sigterm"]
    return result


def _requests(marks: list[dict], calls: list[Call], threads: Threads) -> list[dict]:
    out = []
    for i, mark in enumerate(marks):
        start = mark["connected"] or mark["sent"]
        following = marks[i + 1] if i + 1 < len(marks) else None
        if following and following["port"] == mark["port"]:
            end = following["sent"]
        else:  # the connection's last request: its closing calls too
            end = float("inf") if following else mark["done"] + PAUSE_S
        conn = on_connection(calls, mark["port"])
        row = {k: mark[k] for k in ("n", "status", "head_bytes", "body_bytes", "server_closed")}
        row["connection"] = list(dict.fromkeys(m["port"] for m in marks)).index(mark["port"]) + 1
        row["new_connection"] = mark["connected"] is not None
        row.update(summarize(conn, threads, start - 0.001, end))
        row["sequence"] = sequence(conn, threads, start - 0.001, end)
        out.append(row)
    return out
