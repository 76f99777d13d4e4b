"""The command line of bench.sh: run (the default), report, compare, presets, screenshot; bare, an overview."""
from __future__ import annotations

import argparse
import ipaddress
import json
import signal
import sys
from contextlib import contextmanager
from dataclasses import fields
from datetime import datetime
from pathlib import Path
from urllib.parse import urlsplit

from rich.console import Console
from rich.markup import escape

from servers.core import catalog, interpreters
from servers.core.catalog import Entry

from bench import defaults, schema
from bench.capacity import search
from bench.free_threading import comparison, document
from bench.planning import plan, presets, rounds, selection
from bench.report import compare, model, reports, screenshot
from bench.run.anatomy_run import write_anatomy
from bench.run.progress import Progress
from bench.run.runner import Runner
from harness import browser
from harness import protocols
from loadtools import DEFAULT_TOOL, TOOLS, ToolMissing, Unsupported
from processes.bounded import interrupt

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = ("run", "report", "compare", "presets", "capacity", "screenshot", "free-threading")
EXIT_USAGE = 2

# The top-level help is run's help (a run's options are what a reader looks for), with the other
# commands named once, here and in DESCRIPTION.
USAGE = """bench.sh [run] [options]                     (run is the default command)
       bench.sh report|compare|presets|screenshot|free-threading ...   (each has its own --help)
       bench.sh                                     (no arguments: what a run would do, not run)"""

DESCRIPTION = """\
Benchmark any part of the catalog with real load tools (wrk, ab, hey, vegeta, locust) on loopback:
start the entrypoint (and local Mongo/Redis when a route needs them), check the route contract,
warm up, load, record one JSON line per run, then write results.md and report.html.

commands:
  run        benchmark a selection (the default: `bench.sh --quick` is `bench.sh run --quick`)
  report     regenerate results.md and report.html from a results.jsonl
  compare    two results files side by side (Markdown, with ratios)
  presets    list the named benchmarks and their expected run time
  capacity   `run --capacity`: each stack's capacity within the latency bound (--slo)
  screenshot a run's report.html first screen as a PNG (the README's picture, by default)
  free-threading  docs/free-threading.md's measured section from a run of --preset free-threading
"""

EXAMPLES = """\
examples:
  ./bench.sh --quick                               every framework, one Go stack, every route, ~3 s runs
  ./bench.sh --servers 'flask_*,sanic' --ops hello,redis-pooled --connections 50,100
  ./bench.sh --servers dev-only --ops json --tool hey --close   keep-alive and client-close passes
  ./bench.sh capacity --servers sanic,nethttp --ops hello --protocol h1,h1-tls --close
                                                   each stack on HTTP/1.1 and over TLS: capacity, CPU per request
                                                   on kept connections and with a connection (a handshake) each
  ./bench.sh --servers falcon_gunicorn --ops hello --tool vegeta --rate 550
  ./bench.sh --preset one-core --repeat 3
  ./bench.sh --target http://127.0.0.1:8080 --servers gin --ops hello,json   (a server started elsewhere)
  ./bench.sh --servers nethttp --ops hello --tool locust --load-workers 2    locust, a master and 2 workers
  ./bench.sh report results/20260101-120000/results.jsonl
  ./bench.sh compare results/a/results.jsonl results/b/results.jsonl
  ./bench.sh screenshot                            the newest run's report, first screen, into the README's picture
"""


class UsageError(Exception):
    pass


def csv_ints(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma list of integers: {text!r}") from None
    if not values or any(v < 1 for v in values):
        raise argparse.ArgumentTypeError(f"expected positive integers: {text!r}")
    return values


def csv_floats(text: str) -> list[float]:
    try:
        values = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma list of numbers: {text!r}") from None
    if not values or any(v <= 0 for v in values):
        raise argparse.ArgumentTypeError(f"expected positive numbers: {text!r}")
    return values


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def positive_float(text: str) -> float:
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError("must be positive")
    return value


def protocol_list(text: str) -> list[str]:
    """--protocol: a comma list of harness.protocols' names, each once, in the order given."""
    names = list(dict.fromkeys(v.strip() for v in text.split(",") if v.strip()))
    unknown = [n for n in names if n not in protocols.PROTOCOLS]
    if not names or unknown:
        raise argparse.ArgumentTypeError(f"{', '.join(unknown) or repr(text)}: expected a comma list of "
                                         f"{', '.join(protocols.PROTOCOLS)}")
    return names


def interpreter_list(text: str) -> list[str]:
    """--interpreter: a comma list of the interpreters with the GIL (servers/core/interpreters.py), each once."""
    names = list(dict.fromkeys(v.strip() for v in text.split(",") if v.strip()))
    unknown = [n for n in names if n not in interpreters.GIL_INTERPRETERS]
    if not names or unknown:
        raise argparse.ArgumentTypeError(f"{', '.join(unknown) or repr(text)}: expected a comma list of "
                                         f"{', '.join(interpreters.GIL_INTERPRETERS)} (the free-threaded stacks are "
                                         f"the _ft entries)")
    return names


def slo_text(text: str) -> str:
    """--slo: checked here (a bad bound is a usage error), kept as given (bench/capacity/search.py parses it)."""
    try:
        search.Slo.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def add_run_arguments(p: argparse.ArgumentParser) -> None:
    sel = p.add_argument_group("what to benchmark")
    sel.add_argument("--servers", metavar="SPEC",
                     help="comma list of catalog names, fnmatch globs or tags: 'flask_*,sanic', dev-only, "
                          "production, python, go, a framework (falcon), server or model; kind:value "
                          "(framework:sanic) forces one reading, !item removes. Default: every entry "
                          "(with --quick: one stack per framework and one Go stack)")
    sel.add_argument("--ops", metavar="OPS",
                     help=f"comma list of operations ({', '.join(catalog.OPERATIONS)}; WebSocket: "
                          f"{', '.join(catalog.WS_OPERATIONS)}, loaded by wsload whatever --tool says, over h1; "
                          "ws-broadcast on one worker and closed-loop only), families (mongo, redis, ws) or all (the "
                          "HTTP operations; default: all; with --target: hello,json). An entry runs only the "
                          "operations it supports")
    sel.add_argument("--preset", metavar="NAME", choices=list(presets.PRESETS),
                     help=f"a named benchmark: {', '.join(presets.PRESETS)} (see `bench.sh presets`); "
                          "options given as well override it")
    sel.add_argument("--quick", action="store_true",
                     help="a small matrix in a few minutes: 3 s runs (5000 requests for ab); alone, one "
                          "stack of every framework, one Go stack and every route; capacity ramps of "
                          f"{', '.join(plan.QUICK_CAPACITY_OPS)} with short steps")
    sel.add_argument("--capacity", action="store_true",
                     help="only capacity ramps: per stack and operation, open-loop steps at constant rates "
                          "(vegeta, latency from each request's intended send time), a geometric ladder then "
                          "bisection, to the highest rate that holds --slo; the load tool's own limit is "
                          "measured first against Go net/http")
    sel.add_argument("--slo", metavar="BOUNDS", type=slo_text,
                     help=f"the capacity's latency bound: p50/p90/p99/p99.9 in ms, s or us, comma "
                          f"separated, and >= {100 * search.MIN_SUCCESS:g}%% of requests succeed (default "
                          f"{search.DEFAULT_SLO}: the suite's routes answer in a few ms on a stack that "
                          f"holds its rate, seconds past it)")
    load = p.add_argument_group("the load")
    load.add_argument("--tool", choices=list(TOOLS), help=f"load tool (default {DEFAULT_TOOL})")
    load.add_argument("--connections", "-c", type=csv_ints, metavar="N[,N...]",
                      help="concurrent connections, a list runs each (default 50)")
    load.add_argument("--streams", "-m", type=positive_int, metavar="N",
                      help="h2load: HTTP/2 streams each connection keeps in flight (h2load -m; default 1), so "
                           "connections x N requests at once; for --protocol h2 and h2c")
    load.add_argument("--threads", "-t", type=positive_int, metavar="N",
                      help="wrk threads (default: 2, at most the connections); hey: -cpus")
    load.add_argument("--duration", "-d", dest="duration_s", type=positive_float, metavar="S",
                      help=f"seconds per run (default {defaults.DURATION_S:g})")
    load.add_argument("--requests", "-n", type=positive_int, metavar="N",
                      help="ab/hey: stop after N requests (still bounded by --duration for ab, default 10 s)")
    load.add_argument("--rate", dest="rates", type=csv_floats, metavar="R[,R...]",
                      help="vegeta: constant rate in requests/s (open loop); a list runs each")
    load.add_argument("--close", action="store_true",
                      help="add a pass where the CLIENT closes every connection (ab without -k, hey "
                           "-disable-keepalive, vegeta -keepalive=false; wrk cannot), apart from the keep-alive one")
    load.add_argument("--close-only", action="store_true", help="only the client-close pass")
    load.add_argument("--protocol", dest="protocols", type=protocol_list, metavar="P[,P...]",
                      help="what the stacks serve and the tool speaks, a list runs each, side by side: "
                           + "; ".join(f"{p.name} {p.title}" for p in protocols.PROTOCOLS.values())
                           + f" (default {protocols.DEFAULT}). Over TLS each server terminates it itself with the "
                           "suite's local certificate (python -m harness.tls; stacks whose server cannot are left "
                           "out, with the reason); the load tool's own limit is measured on each protocol. With "
                           "--capacity and --close the cost pass also measures a connection per request, so the "
                           "report gives TLS's cost per request on a kept connection and per new connection"),
    load.add_argument("--repeat", type=positive_int, metavar="N",
                      help="run each configuration N times; reports show the median and the spread")
    load.add_argument("--warmup", dest="warmup_s", type=float, metavar="S",
                      help=f"seconds of the same load before each measured configuration (default "
                           f"{defaults.WARMUP_S:g}; 0: none)")
    load.add_argument("--timeout", dest="timeout_s", type=positive_float, metavar="S",
                      help=f"per-request timeout of the tool (default {defaults.TIMEOUT_S:g} s)")
    add_load_host_arguments(p)
    add_noise_arguments(p)
    srv = p.add_argument_group("the servers")
    srv.add_argument("--workers", type=positive_int, metavar="N",
                     help="override the catalog's worker count (clamped for one-process stacks)")
    srv.add_argument("--equal-cores", action=argparse.BooleanOptionalAction,
                     help="workers at equal cores, for threads against processes: on the GIL one worker process "
                          "per server core; on free-threaded 3.13t one process whose threads use every core "
                          "(granian, whose workers are threads there anyway: one per core). --workers wins")
    srv.add_argument("--interpreter", dest="interpreters", type=interpreter_list, metavar="I[,I...]",
                     help="the interpreters with the GIL that entries with the GIL run on, a list runs each, side "
                          "by side: " + "; ".join(f"{i.key} ({i.label}): {i.title}" for i in
                                                  (interpreters.get(k) for k in interpreters.GIL_INTERPRETERS))
                          + f" (default {interpreters.GIL}). An _ft entry runs on {interpreters.FREE_THREADED} "
                          "whatever this says; each result records what its server's process said it runs on")
    srv.add_argument("--users", type=positive_int, metavar="N",
                     help=f"seed users 1..N and draw ids over that range (default {defaults.USERS})")
    srv.add_argument("--pin", action=argparse.BooleanOptionalAction,
                     help="taskset: server on cpu 0 (the first half of the cores), load tool on the rest "
                          "(default on where there are 2+ cores)")
    srv.add_argument("--server-cores", type=csv_ints, metavar="N[,N...]",
                     help="with --pin: cores for the server; a list runs each stack on each count, ranked within "
                          "a count (the cores axis); every usable core: unpinned, the load tool shares them")
    srv.add_argument("--target", metavar="URL",
                     help="benchmark a server started elsewhere (e.g. by compose) on loopback: no start or "
                          "stop, the contract is still checked; --servers NAME labels it")
    srv.add_argument("--mongo-url", metavar="URL", help="use (and seed) this Mongo instead of a local one")
    srv.add_argument("--redis-url", metavar="URL", help="use (and seed) this Redis instead of a local one")
    out = p.add_argument_group("output")
    out.add_argument("--out", type=Path, metavar="DIR",
                     help="results directory (default results/<timestamp>/): results.jsonl, results.md, "
                          "report.html, raw/ tool outputs, logs/ server stderr")
    out.add_argument("--dry-run", action="store_true", help="print the plan and its expected time, run nothing")
    out.add_argument("--anatomy", action="store_true",
                     help="after the runs, add each stack's anatomy (python -m anatomy: processes, "
                          "connections, CPU by layer, flame graph; about 8 s a stack) to report.html")
    out.add_argument("--plain", action="store_true", help="no live progress bar, only the lines")


def add_load_host_arguments(p: argparse.ArgumentParser) -> None:
    """locust's distributed mode (loadtools/locust.py) and the hosts of the three-host layout."""
    g = p.add_argument_group("load from several processes or hosts (--tool locust)")
    g.add_argument("--load-workers", type=int, metavar="N",
                   help="locust: a master and N local worker processes (each pinned to a core of the load "
                        "tool's); 0 (default): one locust process")
    g.add_argument("--locust-master-bind", dest="master_bind", metavar="HOST[:PORT]",
                   help="locust: the address the master listens on for its workers (default 127.0.0.1, a free "
                        "port; with remote workers port 5557)")
    g.add_argument("--locust-remote-workers", dest="remote_workers", type=int, metavar="M",
                   help="locust: also wait for M workers on other load hosts (the command to run there is "
                        "printed at the start)")
    g.add_argument("--remote-target", action="store_true",
                   help="allow a --target beyond loopback: your own app host in the three-host layout (docs/compose.md)")


def add_noise_arguments(p: argparse.ArgumentParser) -> None:
    """How repeats are ordered and how the machine's noise is watched (bench/planning/rounds.py, bench/noise.py)."""
    g = p.add_argument_group("repeats and noise")
    g.add_argument("--rounds-order", choices=rounds.ORDERS,
                   help="with --repeat: interleaved (default) runs every configuration once per round, rounds "
                        "in alternating order, servers restarted each round; sequential runs a stack's "
                        "repeats back to back on one server")
    g.add_argument("--probe", dest="noise_probe", action=argparse.BooleanOptionalAction,
                   help="time a fixed CPU loop and loopback request loop (~0.2 s) before and after each run "
                        "and flag runs during which it moved (default on)")
    g.add_argument("--noise-threshold", dest="noise_threshold_pct", type=positive_float, metavar="PCT",
                   help=f"flag a run as noisy when the probe moved more than PCT %% "
                        f"(default {defaults.NOISE_THRESHOLD_PCT:g})")
    g.add_argument("--rerun-noisy", type=int, nargs="?", const=2, metavar="N",
                   help="measure a noisy run again, at most N times (default N 2); the last measurement "
                        "counts, the noisy ones stay in results.jsonl marked superseded")


def build_parser() -> argparse.ArgumentParser:
    # Its help is never shown (main() hands -h/--help to run), its usage only with an error.
    parser = argparse.ArgumentParser(prog="bench.sh")
    sub = parser.add_subparsers(dest="command", metavar="{run,report,compare,presets,screenshot,free-threading}")
    parser.usage = USAGE  # after add_subparsers, which makes the commands' usage ("bench.sh report") of it
    run = sub.add_parser("run", help="benchmark a selection (default)", usage=USAGE,
                         description=DESCRIPTION, epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_run_arguments(run)
    rep = sub.add_parser("report", help="regenerate results.md and report.html from a results.jsonl")
    rep.add_argument("results", type=Path, help="a results.jsonl")
    rep.add_argument("--out", type=Path, metavar="DIR", help="where to write (default: beside the file)")
    rep.add_argument("--title", default="Benchmark results")
    cmp = sub.add_parser("compare", help="two results files (or two stacks of one) side by side, with ratios")
    cmp.add_argument("a", type=Path, help="results.jsonl A (the baseline)")
    cmp.add_argument("b", type=Path, nargs="?", help="results.jsonl B (omit it with --stacks)")
    cmp.add_argument("--stacks", metavar="A,B",
                     help="compare two stacks of one results file: B/A ratios of stack B against stack A")
    cmp.add_argument("--out", type=Path, metavar="FILE", help="also write the Markdown to FILE")
    pre = sub.add_parser("presets", help="list the named benchmarks")
    pre.add_argument("--json", action="store_true", help="as JSON")
    shot = sub.add_parser("screenshot", help="a run's report.html first screen as a PNG (headless Chromium, offline)",
                          description=screenshot.__doc__)
    shot.add_argument("run", type=Path, nargs="?",
                      help="a run's directory, its results.jsonl or its report.html (default: the newest run in results/)")
    shot.add_argument("--out", type=Path, default=screenshot.PICTURE, metavar="PNG",
                      help=f"where to write it (default {screenshot.PICTURE.relative_to(ROOT)}, the README's picture)")
    shot.add_argument("--window", default="1280x900", metavar="WxH", help="the screen's size in px (default 1280x900)")
    ft = sub.add_parser("free-threading", help="docs/free-threading.md's measured section from a free-threading run",
                        description=document.__doc__)
    ft.add_argument("results", type=Path, nargs="?",
                    help="a results.jsonl of `bench.sh --preset free-threading` (default: the newest such run in results/)")
    ft.add_argument("--page", type=Path, default=document.PAGE, metavar="MD",
                    help=f"the page whose section it writes (default {document.PAGE.relative_to(ROOT)})")
    return parser


# -- run -----------------------------------------------------------------------------------------
def check_loopback(url: str, remote: bool = False) -> str:
    parts = urlsplit(url)
    if parts.scheme != "http" or not parts.hostname:
        raise UsageError(f"--target {url!r}: expected http://HOST:PORT")
    host = parts.hostname
    if host != "localhost" and not remote:
        try:
            if not ipaddress.ip_address(host).is_loopback:
                raise ValueError
        except ValueError:
            raise UsageError(f"--target {url!r}: load goes to loopback addresses only (127.0.0.0/8, ::1, "
                             f"localhost); publish the server's port on 127.0.0.1, or give "
                             f"--remote-target for an app host of your own") from None
    return f"http://{parts.netloc}"


def target_entry(name: str | None, url: str) -> Entry:
    if name:
        return catalog.get(name)
    return Entry(name="target", language="?", framework="?", server="?", model="?", workers=None, app="?",
                 description=f"a server at {url}", tags=())


# What settings_from works out itself; every other Settings field is a run option of the same dest,
# taken as given (None: not given, so the preset's or Settings' own default stands).
WORKED_OUT = {"servers", "ops", "target", "preset", "quick", "keepalive", "capacity_ops", "capacity_only", "ramp"}
OPTION_SETTINGS = [f.name for f in fields(plan.Settings) if f.name not in WORKED_OUT]


@contextmanager
def users_input():
    """A name or file the user gave that is not there or not right: a usage error, not a traceback."""
    try:
        yield
    except (KeyError, ValueError, OSError) as exc:
        raise UsageError(exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)) from None


def settings_from(args: argparse.Namespace) -> tuple[plan.Settings, list[Entry] | None]:
    """Settings from the preset (if any), then the explicit options; and target entries if --target."""
    s = presets.get(args.preset).settings() if args.preset else plan.Settings()
    if args.quick:  # first, so that an explicit --duration or --requests still wins
        s = s.scaled_quick()
    for name in OPTION_SETTINGS:
        if getattr(args, name) is not None:
            setattr(s, name, getattr(args, name))
    if args.rates and not args.tool and not args.preset:
        s.tool = "vegeta"
    if args.close_only:
        s.keepalive = [False]
    elif args.close:
        s.keepalive = [True, False]
    target_entries = None
    with users_input():
        if args.target:
            s.target = check_loopback(args.target, args.remote_target)
            names = [e.name for e in selection.select_entries(args.servers)] if args.servers else []
            if len(names) > 1:
                raise UsageError("--target benchmarks one server: give --servers one name (or none)")
            target_entries = [target_entry(names[0] if names else None, s.target)]
            s.servers = [target_entries[0].name]
            s.ops = selection.select_ops(args.ops or "hello,json")
        else:
            if args.servers:
                s.servers = [e.name for e in selection.select_entries(args.servers)]
            elif not args.preset:
                s.servers = list(plan.QUICK_SERVERS) if args.quick else [e.name for e in catalog.ENTRIES]
            if args.ops:
                s.ops = selection.select_ops(args.ops)
    if args.capacity:
        s.capacity_only, s.capacity_ops = True, list(s.ops)
    elif args.quick and not args.preset:
        s.capacity_ops = [op for op in plan.QUICK_CAPACITY_OPS if op in s.ops]
    check_settings(s, args)
    return s, target_entries


def check_settings(s: plan.Settings, args: argparse.Namespace) -> None:
    """What no single option's type can check: combinations."""
    if s.rerun_noisy < 0:
        raise UsageError("--rerun-noisy must be 0 or more")
    if s.rerun_noisy and not s.noise_probe:
        raise UsageError("--rerun-noisy needs the noise probe (drop --no-probe)")
    if s.load_workers < 0 or s.remote_workers < 0:
        raise UsageError("--load-workers and --locust-remote-workers must be 0 or more")
    if (s.load_workers or s.remote_workers or s.master_bind) and s.tool != "locust":
        raise UsageError("--load-workers and --locust-* are for --tool locust (its distributed mode)")
    if args.remote_target and not args.target:
        raise UsageError("--remote-target goes with --target URL")
    if args.target and any(protocols.get(p).tls for p in s.protocols):
        raise UsageError("--target serves what it was started with: give its http:// URL and no TLS --protocol "
                         "(over TLS the suite starts each server itself, with its own certificate)")
    if not args.target and not args.capacity:
        tool = TOOLS[s.tool]
        missing = [p for p in s.protocols if p not in tool.protocols]
        if missing:
            speaking = [name for name, t in TOOLS.items() if set(s.protocols) <= set(t.protocols)]
            raise UsageError(f"--tool {s.tool} does not speak {', '.join(missing)}; use --tool "
                             f"{' or '.join(speaking) or '(none speaks them all)'}")
    if s.streams > 1 and (not TOOLS[s.tool].supports_streams
                          or not all(protocols.get(p).http2 for p in s.protocols)):
        raise UsageError("--streams is HTTP/2's: give --tool h2load and --protocol h2 and/or h2c only")
    missing = [interpreters.get(key) for key in s.interpreters if not interpreters.available(key)]
    if missing and not args.target:
        raise UsageError("; ".join(f"{i.key} is not set up here ({i.python} is missing): run {i.setup_hint}"
                                   for i in missing))
    if args.requests and s.tool not in ("ab", "hey"):
        raise UsageError(f"--requests is for ab and hey; {s.tool} runs for --duration seconds")
    if not s.servers:
        raise UsageError("--servers selects nothing")


def default_out() -> Path:
    base = ROOT / "results" / datetime.now().strftime("%Y%m%d-%H%M%S")
    out, n = base, 1
    while out.exists():
        n += 1
        out = base.with_name(f"{base.name}-{n}")
    return out


def print_plan(console: Console, p: plan.Plan) -> None:
    s = p.settings
    console.print(f"[bold]plan[/bold]: {len(p.runs)} runs, {len(p.entries)} stacks, tool {s.tool}, "
                  f"about {plan.format_duration(p.estimate_s())}"
                  + (f" (preset {s.preset})" if s.preset else "") + (" --quick" if s.quick else ""))
    for group in p.entries:
        ops = list(dict.fromkeys(r.operation for r in group.runs))
        console.print(escape(f"  {group.stack}{' [dev-only]' if group.entry.dev_only else ''}: "
                             f"{', '.join(ops)} ({len(group.runs)} runs)"))
        for note in group.notes:
            console.print(escape(f"    note: {note}"))
    if s.repeat > 1:
        console.print(escape(f"  repeats: {rounds.describe(s.rounds_order, s.repeat)}"))
    if p.backends():
        console.print(f"  backends: {', '.join(p.backends())} (local, seeded with users 1..{s.users})")
    if p.skipped:
        console.print(f"  skipped {len(p.skipped)} entry/operation pairs the catalog does not list")
    for unserved in p.unserved:
        console.print(escape(f"  left out: {unserved}"))
    for note in p.not_isolated:
        console.print(escape(f"  not isolated: {note}"), style="yellow")


def cmd_run(args: argparse.Namespace, console: Console) -> int:
    s, target_entries = settings_from(args)
    p = plan.build(s, target_entries)
    if not p.runs:
        raise UsageError("nothing to run: no selected entry supports the selected operations")
    out = args.out if args.out else default_out()
    out = out if out.is_absolute() else Path.cwd() / out
    progress = Progress(console, live=False if args.plain else None)
    runner = Runner(p, out, progress)
    try:
        runner.validate()
    except (ToolMissing, Unsupported) as exc:
        raise UsageError(str(exc)) from None
    print_plan(console, p)
    if args.dry_run:
        return 0
    console.print(f"  results: {out}")
    interrupted = False
    try:
        runner.execute()
    except KeyboardInterrupt:
        interrupted = True
        console.print("[yellow]interrupted: servers, tools and backends stopped; writing what was measured[/yellow]")
    results_file = out / "results.jsonl"
    results = schema.read(results_file) if results_file.exists() else []
    if results and getattr(args, "anatomy", False) and not interrupted and not args.target:
        write_anatomy(results, out)
    if results:
        title = f"Benchmark results: {s.preset}" if s.preset else "Benchmark results"
        md_path, html_path, md = reports.write(results, out, title)
        print(md)
        console.print(f"wrote {results_file}, {md_path.name}, {html_path.name}")
    failed = sum(1 for r in results if not r.ok)
    if failed:
        console.print(f"[yellow]{failed} of {len(results)} runs failed (see 'Failed runs')[/yellow]")
    if interrupted:
        return 130
    return 1 if results and failed == len(results) else 0


def print_overview() -> int:
    """A bare `bench.sh`: what `bench.sh run` would run and how long it takes, and how to start it or less."""
    parser = build_parser()
    full = plan.build(settings_from(parser.parse_args(["run"]))[0])
    quick = plan.build(settings_from(parser.parse_args(["run", "--quick"]))[0])

    def summary(p: plan.Plan) -> str:
        return (f"{len(p.runs)} runs on {len(p.entries)} stacks with {p.settings.tool}, "
                f"about {plan.format_duration(p.estimate_s())}")

    print(f"bench.sh run would benchmark every entry of the catalog on every route it serves: {summary(full)}.\n"
          f"Nothing was started. To start:\n"
          f"  ./bench.sh run              that whole matrix\n"
          f"  ./bench.sh --quick          one stack per framework and a Go stack, short runs: {summary(quick)}\n"
          f"  ./bench.sh presets          the named comparisons and their run time\n"
          f"  ./bench.sh [run] OPTIONS --dry-run    any selection's plan and expected time, run nothing\n"
          f"  ./bench.sh --help           every option")
    return 0


# -- report, compare, presets ---------------------------------------------------------------------
def cmd_report(args: argparse.Namespace, console: Console) -> int:
    with users_input():
        results = schema.read(args.results)
    out = args.out or args.results.parent
    md_path, html_path, md = reports.write(results, out, args.title)
    print(md)
    console.print(f"wrote {md_path} and {html_path}")
    return 0


def cmd_compare(args: argparse.Namespace, console: Console) -> int:
    if args.stacks:
        stacks = [s.strip() for s in args.stacks.split(",") if s.strip()]
        if args.b is not None or len(stacks) != 2:
            raise UsageError("--stacks A,B compares two stacks of ONE results file: give one file and two names")
        with users_input():
            md = compare.render_stacks(schema.read(args.a), *stacks, name=str(args.a))
    elif args.b is None:
        raise UsageError("compare needs two results files, or one with --stacks A,B")
    else:
        with users_input():
            a, b = schema.read(args.a), schema.read(args.b)
        md = compare.render(a, b, name_a=str(args.a.parent.name or args.a), name_b=str(args.b.parent.name or args.b))
    print(md)
    if args.out:
        args.out.write_text(md, encoding="utf-8")
        console.print(f"wrote {args.out}")
    return 0


def cmd_free_threading(args: argparse.Namespace, console: Console) -> int:
    path = args.results or comparison.newest_run(ROOT / "results")
    if path is None:
        raise UsageError("no free-threading run in results/: run `./bench.sh --preset free-threading` first "
                         "(after ./setup.sh --gil-twin), or give its results.jsonl")
    with users_input():
        results = schema.read(path)
    view = comparison.build(model.build(results))
    shown = path.resolve().relative_to(ROOT) if path.resolve().is_relative_to(ROOT) else path
    page = document.write(view, str(shown), args.page)
    print(document.section(view, str(shown)))
    if view.conclusive:
        console.print(f"wrote {page}: what to pick, from {shown}")
    else:
        console.print(f"[yellow]wrote {page} without a conclusion: {escape('; '.join(view.refusals))}[/yellow]")
    return 0


def cmd_screenshot(args: argparse.Namespace, console: Console) -> int:
    try:
        window = tuple(int(n) for n in args.window.lower().split("x"))
        if len(window) != 2 or min(window) < 200:
            raise ValueError
    except ValueError:
        raise UsageError(f"--window {args.window!r}: expected WIDTHxHEIGHT in px, e.g. 1280x900") from None
    try:
        report, png = screenshot.take(args.run, args.out, window)
    except (screenshot.NoReport, browser.BrowserMissing, browser.BrowserFailed) as exc:
        raise UsageError(str(exc)) from None
    console.print(f"wrote {png} ({png.stat().st_size:,} bytes): the first {window[0]}x{window[1]} px of {report}")
    return 0


def cmd_presets(args: argparse.Namespace, console: Console) -> int:
    items = []
    for p in presets.PRESETS.values():
        items.append({"name": p.name, "summary": p.summary, "options": p.command_line(),
                      "expected": p.expected(), "expected_quick": p.expected(quick=True), "notes": list(p.notes),
                      "repeats": p.repeats, "repeats_quick": min(p.repeats, plan.QUICK_REPEAT)})
    if args.json:
        print(json.dumps(items, indent=2))
        return 0
    for item in items:
        print(f"{item['name']}\n  {item['summary']}\n  {item['options']}\n"
              f"  expected: {item['expected']}; with --quick: {item['expected_quick']}\n"
              f"  repeats its comparison needs: {item['repeats']} (interleaved rounds; --quick: "
              f"{item['repeats_quick']})")
        for note in item["notes"]:
            print(f"  note: {note}")
        print()
    print("run one: ./bench.sh --preset NAME [--quick] [--repeat N]")
    return 0


_interrupted = False


def _raise_interrupt(signum, frame):  # noqa: ARG001
    """The first SIGINT/SIGTERM/SIGHUP stops the benchmark; later ones do not cut the clean-up short."""
    global _interrupted
    if _interrupted:
        return
    _interrupted = True
    interrupt()


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:
        sys.exit(print_overview())
    if argv[0] not in COMMANDS:  # options alone, --help included, are run's
        argv.insert(0, "run")
    if argv[0] == "capacity":  # `bench.sh capacity ...` is `bench.sh run --capacity ...`
        argv[:1] = ["run", "--capacity"]
    args = build_parser().parse_args(argv)
    console = Console(stderr=True, highlight=False, soft_wrap=True)
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _raise_interrupt)
    handlers = {"run": cmd_run, "report": cmd_report, "compare": cmd_compare, "presets": cmd_presets,
                "screenshot": cmd_screenshot, "free-threading": cmd_free_threading}
    try:
        code = handlers[args.command](args, console)
    except UsageError as exc:  # the user's; any other exception is a bug and shows its traceback
        console.print(f"[red]error:[/red] {escape(str(exc))}")
        code = EXIT_USAGE
    except KeyboardInterrupt:
        code = 130
    sys.exit(code)
