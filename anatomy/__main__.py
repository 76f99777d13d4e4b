"""`python -m anatomy NAME`: how a stack serves a request, measured from outside under load.

Starts the entry (and the local backend its operation needs), loads it with wrk (h2load over HTTP/2) and reports the
process tree with roles, threads, CPU and RSS; client and backend connections per process, the
accept queue and new backend connections per second; CPU by layer (py-spy, or pprof for Go: server,
framework, app, driver, JSON, interpreter, idle), the top functions and a flame graph. The logic is
in the anatomy package; docs/ has a lesson per server and framework.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from anatomy.wiretrace import BOUND_S, RUNS
from harness import protocols
from servers.core import catalog


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m anatomy", description=__doc__.split("\n\n", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("name", nargs="*", help="catalog entries (python -m servers lists them); NAME:OP measures "
                                           "that entry on operation OP instead of --op")
    p.add_argument("--op", default="hello", choices=list(catalog.OPERATIONS), help="operation (default hello)")
    p.add_argument("--protocol", default=protocols.DEFAULT, choices=list(protocols.PROTOCOLS),
                   help="h1 (default); h1-tls: the entry serves HTTPS with the suite's certificate "
                        "(python -m harness.tls) and the profile's tls layer shows what its TLS library takes; h2, "
                        "h2c: HTTP/2 over that TLS or in cleartext (the entry's --http2), loaded by h2load, and the "
                        "h2 layer shows what its HTTP/2 framing takes")
    p.add_argument("--connections", type=int, default=50, help="wrk's (or h2load's) connections (default 50)")
    p.add_argument("--streams", type=int, default=1,
                   help="over HTTP/2: streams each connection keeps in flight (h2load -m; default 1)")
    p.add_argument("--seconds", type=float, default=10.0, help="load duration (default 10; at least 3)")
    p.add_argument("--workers", type=int, default=None, help="the entry's --workers (default: the catalog's)")
    p.add_argument("--no-profile", action="store_true", help="skip the CPU profile (py-spy / pprof)")
    p.add_argument("--mongo-url", default="", help="use this Mongo instead of starting a local one")
    p.add_argument("--redis-url", default="", help="use this Redis instead of starting a local one")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("--html", type=Path, help="also write an HTML page with the flame graphs to this file")
    p.add_argument("--out", type=Path, default=None, help="working directory (default results/anatomy)")
    p.add_argument("--docs", action="store_true",
                   help="regenerate the lesson pages in docs/: source links at the installed versions and each "
                        "page's measured example (run it under the heavy-job lock; NAMEs: only those pages)")
    p.add_argument("--bench-report", type=Path, metavar="OUT",
                   help="write OUT/anatomy.html and OUT/anatomy.json for bench's report.html "
                        "(what ./bench.sh run --anatomy runs)")
    p.add_argument("--trace", action="store_true",
                   help="record a wire trace of each NAME (strace on its process tree: who accepts, reads and "
                        "writes, syscalls per response, idle, header and drain timeouts) into docs/data/traces/; "
                        "without NAMEs, the entries the pages trace. Then run --docs to render them")
    p.add_argument("--jobs", type=int, default=6, help="with --trace: entries traced at once (default 6)")
    p.add_argument("--runs", type=int, default=RUNS,
                   help=f"with --trace: runs of each entry, each a fresh process (default {RUNS}): a fact that varies "
                        "between runs or requests is rendered as what varied and how often")
    p.add_argument("--bound", type=float, default=BOUND_S,
                   help="with --trace: the longest wait for a server to close a connection (default 40 s)")
    p.add_argument("--reanalyze", action="store_true",
                   help="with --trace: re-read the strace logs of the last --trace in results/trace/ instead of "
                        "measuring (after a change to the analysis)")
    p.add_argument("--links-only", action="store_true", help="with --docs: the links only, no measurement")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from anatomy import report, session

    if args.trace:
        from anatomy import docs, tracedata

        names = args.name or docs.traced_entries()
        started = time.monotonic()
        if args.reanalyze:
            written = tracedata.reanalyze(names)
        else:
            written = tracedata.measure_all(names, args.jobs, args.bound, args.runs,
                                            log=lambda line: print(line, file=sys.stderr, flush=True))
        print(f"{len(written)} traces in {time.monotonic() - started:.0f} s: " + " ".join(str(p) for p in written))
        return 0
    if args.docs:
        from anatomy import docs

        problems: list[str] = []
        try:
            changed = docs.regenerate(links_only=args.links_only, only=args.name or None,
                                      log=lambda line: print(line, file=sys.stderr, flush=True))
        except docs.PagesNotRendered as exc:  # the other pages are written; each problem says what to do
            changed, problems = exc.changed, exc.problems
        print(f"{len(changed)} pages changed: " + " ".join(str(p.relative_to(docs.DOCS)) for p in changed))
        for problem in problems:
            print(f"error: {problem}", file=sys.stderr)
        return 1 if problems else 0
    if not args.name:
        print("error: name at least one entry (or --docs)", file=sys.stderr)
        return 2
    stacks = [(name, op or args.op) for name, _, op in (arg.partition(":") for arg in args.name)]
    for name, op in stacks:
        if name not in catalog.BY_NAME:
            print(f"error: no catalog entry {name!r}; `python -m servers` lists them", file=sys.stderr)
            return 2
        if op not in catalog.OPERATIONS:
            print(f"error: no operation {op!r}; choose from {', '.join(catalog.OPERATIONS)}", file=sys.stderr)
            return 2
    if args.seconds < 3:
        print("error: --seconds must be at least 3 (a warm-up second, the window, a last second)", file=sys.stderr)
        return 2
    if args.bench_report:
        from anatomy import bench_report

        bench_report.write_sections(stacks, args.bench_report, args.seconds,
                                    log=lambda line: print(line, file=sys.stderr, flush=True))
        return 0
    results, svgs = [], []
    for name, op in stacks:
        settings = session.Settings(name=name, op=op, connections=args.connections, seconds=args.seconds,
                                    workers=args.workers, profile=not args.no_profile, mongo_url=args.mongo_url,
                                    redis_url=args.redis_url, protocol=args.protocol, streams=args.streams)
        if args.out:
            settings.workdir = args.out
        try:
            result = session.run(settings)
        except ValueError as exc:  # a protocol the entry's server cannot serve
            print(f"error: {exc}", file=sys.stderr)
            return 2
        svg = report.flame_svg(result)
        if svg:
            path = Path(result["workdir"]) / "flame.svg"
            path.write_text(svg, encoding="utf-8")
            result["flame"] = str(path)
        results.append(result)
        svgs.append(svg)
        if not args.json:
            print(report.as_text(result), "\n", flush=True)
    if args.json:
        print("[" + ",\n".join(report.as_json(r) for r in results) + "]")
    if args.html:
        args.html.write_text(report.as_html_page(results, svgs), encoding="utf-8")
        print(f"wrote {args.html}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
