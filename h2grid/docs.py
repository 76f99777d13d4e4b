"""docs/http2-grid.md, rendered from the records' http2 sections and the controls' recorded verdicts (`python -m
h2grid docs`; a default test fails when it is stale): each probe's control pair and its two verdicts, per server and
mode h2spec's passed and failed cases, each proved probe's outcome with what the server did and its numbers, the
probes left out of the grid and why, and what to put in front of which server. The page computes nothing the
records do not hold; the advice is derived from the outcomes of the proved probes alone.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path

from h2grid import attacks, defects, h2spec, judge, record
from h2grid.controls import pairs, results
from h2grid.attacks.base import SECONDS, Attack
from h2grid.client import INTERVAL_S, REQUEST_TIMEOUT_S
from h2grid.endpoints import LIBRARIES, SPEAKS_H2, Endpoint, endpoints
from h2grid.runner import AFTER_S, BASELINE_S
from servers.core import catalog

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "http2-grid.md"


def _title(key: str) -> str:
    return "h2spec" if key == "h2spec" else attacks.get(key).title


def _recorded() -> list[tuple[Endpoint, dict]]:
    return [(e, record.pinned_mode(e)) for e in endpoints() if record.pinned_mode(e)]


def _ids(ids: list[str]) -> str:
    return ", ".join(f"`{i}`" for i in ids) or "none"


def _caveats_of(server: str) -> list[str]:
    return [c.key for c in catalog.SERVERS[server].caveats if c.h2spec]


def _h2spec_section(rows: list[tuple[Endpoint, dict]]) -> str:
    lines = ["| endpoint | server | passed in every run | failed in every run | failed in some runs | not the server's | caveat |",
             "|---|---|---|---|---|---|---|"]
    details, attributed = [], {}
    for endpoint, mode in rows:
        cases = mode.get("h2spec", {}).get("cases")
        if not cases:
            continue
        counts = Counter(pin["result"] for pin in cases.values())
        mine = record.servers_failures(endpoint, cases)
        always = [i for i in mine if not record.intermittent(cases[i])]
        some = [i for i in mine if record.intermittent(cases[i])]
        others = [i for i in record.failing(cases) if i not in mine]
        caveats = ", ".join(f"[{k}](caveats.md#{k})" for k in _caveats_of(endpoint.server)) or "-"
        lines.append(f"| `{endpoint.id}` | {endpoint.server} | {counts[h2spec.PASSED]} of {len(cases)} | {_ids(always)} | "
                     + (", ".join(f"`{i}` ({'{} of {}'.format(*record.failed_count(cases[i]))})" for i in some) or "none")
                     + f" | {_ids(others)} | {caveats} |")
        for case_id in others:
            attributed.setdefault(record.not_the_servers(endpoint, case_id), []).append(f"`{endpoint.id}`")
        for case_id in always + some:
            pin = cases[case_id]
            failed, runs = record.failed_count(pin)
            details.append(f"- `{endpoint.id}` `{case_id}` (failed {failed} of {runs} runs): {pin.get('description', '')}. "
                           f"h2spec: {pin.get('message', '')}")
    notes = "\n".join(f"- {why} ({', '.join(ids)})." for why, ids in attributed.items())
    return ("\n".join(lines) + ("\n\nNot the server's, and left out of its failures and caveats:\n\n" + notes if notes else "")
            + ("\n\nEach of the server's failures, as h2spec put it (`h2spec -p PORT CASE` runs one case):\n\n"
               + "\n".join(details) if details else ""))


def _number(value, unit: str = "") -> str:
    return "-" if value is None else f"{value:g}{unit}"


def _client(phase: dict) -> str:
    errors = sum(phase["errors"].values())
    text = f"{phase['requests']} req, p50 {_number(phase['p50_ms'], ' ms')}, max {_number(phase['max_ms'], ' ms')}"
    return text + (f", **{errors} failed**" if errors else "")


def _attacker(sent: dict) -> str:
    goaway = ", ".join(f"GOAWAY {code} x{n}" for code, n in sent.get("goaway", {}).items())
    endings = "; ".join(f"{text} x{n}" for text, n in sent.get("endings", {}).items())
    return f"{sent['connections']} conn, {sent['bytes'] / 2**20:.1f} MiB sent; {endings}" + (f" ({goaway})" if goaway else "")


def _attack_section(attack: Attack, rows: list[tuple[Endpoint, dict]]) -> str:
    head = (f"### {attack.title}\n\n{attack.cve}; {attack.rfc}. The probe sends {attack.sends}.\n\n"
            "| endpoint | outcome | what the server did | client during | client after | server CPU during (legitimate traffic alone) | RSS | the attacker's connections |\n"
            "|---|---|---|---|---|---|---|---|")
    lines = [head]
    for endpoint, mode in rows:
        result = mode.get("attacks", {}).get(attack.key)
        if not result:
            continue
        j = result["judgement"]
        before, during, after = (j["phases"][k] for k in ("before", "during", "after"))
        outcome = result["outcome"] if result["outcome"] == judge.HELD else f"**{result['outcome']}**"
        why = "" if result["outcome"] == judge.HELD else f": {'; '.join(j['reasons'])}"
        lines.append(f"| `{endpoint.id}` | {outcome}{why} | {_server(j.get('server', {}))} | {_client(during)} | "
                     f"{_client(after)} | {_number(during['cpu_cores'])} ({_number(before['cpu_cores'])}) cores | "
                     f"{'+' if j['rss_growth_mib'] >= 0 else ''}{j['rss_growth_mib']:g} MiB | {_attacker(result['sent'])} |")
    fixes = "\n".join(f"- {LIBRARIES[f.library][0]}: {f.version or 'no fix'}: {f.what}." for f in attack.fixes)
    return "\n".join(lines) + (f"\n\nWhat upstream says it fixed (the probe confirms a fix only where a control of it "
                               f"ran, above):\n\n{fixes}" if fixes else "")


def _server(server: dict) -> str:
    if not server:
        return "-"
    goaway = ", ".join(f"GOAWAY {code.split(' ')[0]} x{n}" for code, n in server.get("goaway", {}).items())
    resets = sum(server.get("resets", {}).values())
    return (f"ended {server['ended_by_server']} of {server['connections']} conn" + (f"; {goaway}" if goaway else "")
            + (f"; {resets:,} RST_STREAM" if resets else "") + f"; at most {server['most_on_one_mib']:g} MiB on one")


def _controls_section() -> str:
    recorded = results.load()
    lines = ["| probe | mode | known vulnerable | its verdict | known fixed | its verdict | in the grid |",
             "|---|---|---|---|---|---|---|"]
    changes = []
    for pair in pairs.PAIRS:
        modes = recorded.get(pair.attack, {}).get("modes", {})
        for name, found in sorted(modes.items()):
            v, f = found["vulnerable"], found["fixed"]
            versions = lambda side: ", ".join(f"{k} {val}" for k, val in side["versions"].items())
            lines.append(f"| {attacks.get(pair.attack).title} | {name} | {versions(v)} | **{v['outcome']}**: "
                         f"{'; '.join(v['judgement']['reasons'])} | {versions(f)} | **{f['outcome']}**: "
                         f"{'; '.join(f['judgement']['reasons'])} | "
                         f"{'yes' if results.separates(v['outcome'], f['outcome']) else 'no'} |")
        changes.append(f"- {attacks.get(pair.attack).title}: {pair.change}.")
    dates = sorted({r["recorded"]["date"] for r in recorded.values() if r.get("recorded")})
    return "\n".join(lines) + "\n\nWhat each pair differs in:\n\n" + "\n".join(changes) + (
        f"\n\nRecorded {', '.join(dates)}." if dates else "")


def _out_of_grid() -> str:
    return "\n".join(f"- **{attacks.get(key).title}** ({attacks.get(key).cve}): {results.why_not(key)}. It sends "
                      f"{attacks.get(key).sends}." for key in attacks.KEYS if key not in results.GRID_KEYS)


def _advice(rows: list[tuple[Endpoint, dict]]) -> str:
    """Per server, from the proved probes' outcomes alone: what harmed it, on which endpoint (with the judge's first
    reason), what it held and what the probe could not exercise on it; a front is advised only for what harmed it."""
    by_server: dict[str, dict] = {}
    for endpoint, mode in rows:
        found = by_server.setdefault(endpoint.server, {"endpoints": [], "harmed": {judge.DOWN: [], judge.DEGRADED: []},
                                                       judge.HELD: {}, judge.NOT_EXERCISED: {}, "h2spec": []})
        found["endpoints"].append(endpoint.id)
        for key in results.GRID_KEYS:
            result = mode.get("attacks", {}).get(key)
            if result is None:
                continue
            title, outcome = attacks.get(key).title, result["outcome"]
            if outcome in (judge.DOWN, judge.DEGRADED):
                found["harmed"][outcome].append(f"{title} on `{endpoint.id}`: {result['judgement']['reasons'][0]}")
            else:
                found[outcome].setdefault(title, []).append(endpoint.id)
        found["h2spec"] += record.servers_failures(endpoint, mode.get("h2spec", {}).get("cases", {}))
    lines = []
    for server, found in by_server.items():
        down, degraded = found["harmed"][judge.DOWN], found["harmed"][judge.DEGRADED]

        def where(ids: list[str]) -> str:
            return "every endpoint" if sorted(ids) == sorted(found["endpoints"]) else ", ".join(f"`{i}`" for i in ids)

        parts = []
        if down:
            parts.append("do not let it terminate HTTP/2 from untrusted clients: put a proxy that terminates HTTP/2 in "
                         "front and have it speak HTTP/1.1 (or h2c on loopback) to the server; here it went down under "
                         + "; ".join(down))
        if degraded:
            parts.append(("a proxy that terminates HTTP/2 in front takes" if not down else "and it was degraded by")
                         + " what harmed it here: " + "; ".join(degraded))
        if found[judge.HELD]:
            parts.append("it held " + ", ".join(f"{t} ({where(ids)})" for t, ids in found[judge.HELD].items()))
        if found[judge.NOT_EXERCISED]:
            parts.append("not exercised on it (the probe never reached its path, so nothing is said): "
                         + ", ".join(f"{t} ({where(ids)})" for t, ids in found[judge.NOT_EXERCISED].items()))
        failures = len(set(found["h2spec"]))
        lines.append(f"- **{server}**: " + "; ".join(parts) + f". h2spec: {failures} case(s) of its own failing in "
                     "some run or all.")
    return "\n".join(lines)


def _defects_section() -> str:
    out = []
    for d in defects.DEFECTS:
        where = f"against `{d.endpoint}`" if d.endpoint else "on the library alone"
        out.append(f"### {d.title}\n\n{LIBRARIES[d.library][0]}: {d.found_on}; {d.rfc}. {d.what}\n\n"
                   f"Reproduction ({where}; `h2grid/defects.py` checks it still shows):\n\n```\n{d.reproduction}\n```")
    return "\n\n".join(out)


def render() -> str:
    rows = _recorded()
    took: dict[str, set[str]] = {}  # each run (date and commit) and the pins it wrote
    for _, m in rows:
        for run in m.get("runs", []):
            took.setdefault(run["date"] + " at `" + run["commit"][:12] + "`", set()).update(run["took"])
    every = {"h2spec", *(key for _, m in rows for key in m.get("attacks", {}))}
    dates = [f"{when} ({'every pin' if keys >= every else ', '.join(_title(k) for k in sorted(keys))})"
             for when, keys in sorted(took.items())]
    servers = ", ".join(sorted({e.server for e in endpoints()}))
    flagged = ", ".join(f"`{e.id}`" for e in endpoints() if e.flags)
    parts = [
        "# The HTTP/2 grid: h2spec and the known attacks, per server",
        "<!-- Generated by `python -m h2grid docs` from records/<entry>.json (their http2 sections): do not edit. -->",
        "Every server that speaks HTTP/2 (" + servers + "), on its parser owner (HTTP/2 framing, HPACK and "
        "the stream states are the server's, never the app's), in each mode it serves: **h2** (TLS with "
        "the suite's certificate, ALPN h2) and **h2c** (cleartext, prior knowledge); `h2grid/endpoints.py` says "
        "which. A server is started as its docs serve the mode: with no flag where HTTP/2 is its default, with the "
        f"entries' `--http2` where a setting of its own turns it on ({flagged}). Each is held against "
        "[h2spec](https://github.com/summerwind/h2spec) and against the known HTTP/2 "
        "attacks, each as a bounded probe (`h2grid/attacks/`). Every result is pinned in the server's record: "
        "`./test.sh -m h2grid` fails when one changes; [HTTP/2](http2.md) measures their capacity and CPU.",
        "Runs: " + ("; ".join(dates) or "none yet") + f". On a 2-core machine shared with other work: the server "
        "pinned to one core, the attacker to the other; timing is noisy, and a CPU-bound probe's outcome depends "
        "on how much of its core the server got. Rerun (one endpoint: `-k ENTRY-MODE`) and regenerate:",
        "```sh\nH2GRID_RECORD=1 ./test.sh -m h2grid    # the records' http2 sections\npython -m h2grid docs                  # this page\n"
        "python -m h2grid run bare_asgi_hypercorn-h2c --attack ping-flood   # one probe by hand, recording nothing\n"
        "python -m h2grid probe ping-flood --port 8000 --pid 1234   # one probe at any loopback server, JSON\n```",
        "## How a verdict proves itself: the controls",
        "Each attack probe is first run, with the same legitimate client and judge, against a build known vulnerable to "
        "the attack and one known fixed (`h2grid/controls/`: a Go server of the suite's served by `golang.org/x/net/http2` "
        "itself, pinned per build to the x/net release before and after the upstream fix, built with the toolchain here; "
        "where no vulnerable release runs with today's libraries, a small server of the suite's on python-hyper's h2 "
        "with one deliberate fault, and without it). "
        "A probe is in the grid only when the judge called the vulnerable build down or degraded and the fixed one held, "
        "in every mode; any other probe's outcome on a server would say nothing, and is not shown. "
        "`H2GRID_RECORD=1 ./test.sh -m h2grid -k control` records them; `./test.sh -m h2grid -k control` fails when a "
        "pair stops separating (or starts).",
        _controls_section(),
        "## What to put in front of which server",
        "Derived from the proved probes' outcomes below, nothing else: a server that held them is not thereby safe "
        "against the attacks left out of the grid, of which nothing is measured here.",
        _advice(rows) or "No record yet.",
        "The fronts' own HTTP/2 has these fixes: nghttp2 1.57.0 (Rapid Reset; 1.61.0 CONTINUATION), HAProxy "
        "declared itself unaffected by Rapid Reset, nginx mitigates it with its defaults `keepalive_requests 1000` "
        "and `http2_max_concurrent_streams 128` (F5's advisory). A front that terminates HTTP/2 and speaks HTTP/1.1 "
        "to the server leaves none of these frames to reach it: each probe here is an HTTP/2 framing attack.",
        "## h2spec",
        f"{record.RECORD_RUNS} runs of every case per record, a failure pinned with the number of runs it failed in "
        f"(h2spec races a server that answers a request before it reads the frame after it, so some fail in some runs "
        f"only: a later run takes such a case either way, and holds one failing, or passing, in every run to it), "
        f"{h2spec.CASE_TIMEOUT_S} s per case, TLS unverified (h2spec takes no CA). A failure that is the server "
        "library's is a catalog caveat listing the case ids ([caveats](caveats.md)).",
        _h2spec_section(rows),
        "## The attacks",
        f"Each probe sends for {SECONDS:g} s" + "".join(
            f" ({attacks.get(k).title.lower()}: {attacks.get(k).seconds:g} s)" for k in results.GRID_KEYS
            if attacks.get(k).seconds != SECONDS) + " (bounded also in bytes and connections, loopback only), on as many "
        f"connections at once as the attack says, reconnecting when the server ends one and no longer writing into a "
        f"connection the server has ended, at a fresh server with one worker, "
        f"while a legitimate HTTP/2 client requests `GET /` every {INTERVAL_S * 1000:g} ms on its own connection, "
        f"each latency counted from when the request was due ({BASELINE_S:g} s of legitimate traffic alone before the "
        f"attack, the run's own control; {AFTER_S:g} s after it). Judged (`h2grid/judge.py`): **not exercised**: the "
        f"probe did not see what it must to have reached the path it attacks; **down**: a request failed (an error, a "
        f"reset, no answer within {REQUEST_TIMEOUT_S:g} s), no recovery, or a process of the server died; **degraded**: "
        f"an answer slower than the contract's {judge.LATENCY_BOUND_S:g} s, or the RSS grown past "
        f"{judge.MEMORY_LIMIT_MIB:g} MiB over the legitimate traffic's (past {judge.UNBOUNDED_GROWTH_MIB:g} MiB when the "
        f"server ended none of the attacker's connections), or more than the attack's bound read on one connection the "
        f"server never ended while its CPU rose {judge.CPU_FINDING_CORES:g} cores over the legitimate traffic's (harm in "
        f"CPU alone); **held**: none of these. A run holds each outcome to its pin, held and degraded by a slowest "
        f"answer at most {judge.MARGINAL:g} times the bound or an RSS growth at most {judge.RSS_MARGINAL:g} times the limit counting as the same. What the server did: how many of the "
        "attacker's connections it ended, its GOAWAY codes and resets, the most one connection carried.",
        *(_attack_section(attacks.get(key), rows) for key in results.GRID_KEYS),
        "### Out of the grid",
        "These probes exist (`python -m h2grid probe KEY` runs one) but no control proved them, so the grid does not "
        "run them and says nothing of any server under these attacks:",
        _out_of_grid(),
        "## Defects found (reportable upstream)",
        _defects_section(),
        "## The libraries",
        "\n".join(f"- **{server}**: " + ", ".join(LIBRARIES[lib][0] for lib in speaks.libraries)
                  for server, speaks in SPEAKS_H2.items()),
    ]
    return "\n\n".join(parts) + "\n"
