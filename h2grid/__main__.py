"""`python -m h2grid`: the HTTP/2 grid by hand. Without a command it lists the endpoints and the attacks;
`run ENDPOINT` runs h2spec and/or attack probes on one endpoint and prints what they found (it records
nothing: the records are written by `H2GRID_RECORD=1 ./test.sh -m h2grid`); `probe KEY --port P` runs one probe
with its legitimate client against any loopback server and prints the verdict and what it saw as JSON;
`docs` writes docs/http2-grid.md from the records.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter

from h2grid import attacks, docs, endpoints, runner
from h2grid.controls import results
from h2grid.h2spec import FAILED, H2specError
from h2grid.judge import summary


def _list() -> int:
    for endpoint in endpoints.endpoints():
        why = endpoints.available(endpoint)
        flags = f" (started with {' '.join(endpoint.flags)})" if endpoint.flags else ""
        print(f"{endpoint.id:30} {endpoint.server:17} {endpoint.mode.title}{flags}" + (f"  [not here: {why}]" if why else ""))
    print("\nattacks: " + ", ".join(attacks.KEYS))
    return 0


def _run(args) -> int:
    try:
        endpoint = endpoints.get(args.endpoint)
    except KeyError as exc:
        print(f"error: {exc.args[0]}", file=sys.stderr)
        return 2
    keys = args.attack or ([] if args.h2spec else list(attacks.KEYS))
    if args.h2spec or not args.attack:
        print(f"{endpoint.id}: h2spec ...", flush=True)
        try:
            (cases,) = runner.h2spec_runs(endpoint)
        except H2specError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        counts = Counter(case.result for case in cases.values())
        print(f"  {dict(counts)}")
        for case in cases.values():
            if case.result == FAILED:
                print(f"  {case.id}: {case.description}\n      {case.message}")
    for key in keys:
        print(f"{endpoint.id}: {key} ({args.seconds or attacks.get(key).seconds:g} s) ...", flush=True)
        result = runner.probe(endpoint, key, args.seconds)
        unproved = results.why_not(key)
        print(f"  {summary(result.judgement)}" + (f"\n  (out of the grid: {unproved})" if unproved else "")
              + f"\n  the attacker: {result.sent['connections']} connections, "
              f"{result.sent['bytes']:,} bytes; {result.sent['endings']}; GOAWAY {result.sent['goaway'] or 'none'}")
    return 0


def _probe(args) -> int:
    """One probe at any loopback server, judged as the grid judges: the verdict and what it saw, as JSON."""
    ca = args.ca
    if args.tls and not ca:
        from harness.tls import ensure

        ca = str(ensure().ca)  # the suite's CA (its entries' certificate); --ca for another
    try:
        judgement, sent = runner.probe_port(args.port, args.tls, args.attack, args.seconds, ca, args.pid or 0)
    except (ValueError, runner.ProbeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    found = {"attack": args.attack, "port": args.port, "tls": args.tls, "outcome": judgement.outcome,
             "reasons": judgement.reasons, "proved_by_controls": results.why_not(args.attack) or "yes",
             "server": judgement.server, "phases": judgement.as_dict()["phases"],
             "rss_growth_mib": judgement.rss_growth_mib if args.pid else None,
             "sent": {k: v for k, v in sent.items() if k not in ("started", "ended")}}
    print(json.dumps(found, indent=2))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m h2grid", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command")
    run = commands.add_parser("run", help="h2spec and/or attacks on one endpoint (python -m h2grid lists them)")
    run.add_argument("endpoint", help="ENTRY-MODE, e.g. bare_asgi_hypercorn-h2c")
    run.add_argument("--h2spec", action="store_true", help="run h2spec (alone, unless --attack is given too)")
    run.add_argument("--attack", action="append", choices=attacks.KEYS, help="this attack (repeat for more); "
                                                                             "default: h2spec and every attack")
    run.add_argument("--seconds", type=float, help="how long each attack sends (default: the attack's own)")
    one = commands.add_parser("probe", help="one probe with its legitimate client against any loopback server, "
                                             "the verdict and what it saw as JSON")
    one.add_argument("attack", choices=attacks.KEYS, metavar="KEY", help=", ".join(attacks.KEYS))
    one.add_argument("--port", type=int, required=True, help="the server's port on 127.0.0.1")
    one.add_argument("--tls", action="store_true", help="h2 over TLS by ALPN (default: h2c by prior knowledge)")
    one.add_argument("--ca", default="", help="the CA to trust over TLS (default: the suite's, python -m harness.tls)")
    one.add_argument("--pid", type=int, help="the server's process: its tree's CPU and RSS are judged too (without it "
                                             "they are not measured)")
    one.add_argument("--seconds", type=float, help="how long the attack sends (default: the attack's own)")
    page = commands.add_parser("docs", help=f"write {docs.PAGE.relative_to(docs.ROOT)} from the records")
    page.add_argument("--check", action="store_true", help="only say whether the page is current (exit 1 if not)")
    args = parser.parse_args(argv)
    if args.command == "run":
        return _run(args)
    if args.command == "probe":
        return _probe(args)
    if args.command == "docs":
        current = docs.PAGE.exists() and docs.PAGE.read_text() == docs.render()
        if args.check:
            print(f"{docs.PAGE.relative_to(docs.ROOT)} is {'current' if current else 'stale: python -m h2grid docs'}")
            return 0 if current else 1
        docs.PAGE.write_text(docs.render())
        print(f"wrote {docs.PAGE.relative_to(docs.ROOT)}")
        return 0
    return _list()


if __name__ == "__main__":
    sys.exit(main())
