"""docs/http2-grid.md, rendered from the records' http2 sections (`python -m h2grid docs`; a default test fails when
it is stale): per server and mode, h2spec's passed and failed cases, each attack's outcome with its numbers
and the upstream fixes of the server's HTTP/2 libraries beside it, and what to put in front of which server.
The page computes nothing the records do not hold; the advice is derived from the outcomes.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path

from h2grid import attacks, defects, h2spec, judge, record
from h2grid.attacks.base import SECONDS, Attack
from h2grid.client import INTERVAL_S, REQUEST_TIMEOUT_S
from h2grid.endpoints import LIBRARIES, SPEAKS_H2, Endpoint, endpoints, libraries_of
from h2grid.runner import AFTER_S, BASELINE_S
from servers.core import catalog

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "http2-grid.md"


def _recorded() -> list[tuple[Endpoint, dict]]:
    return [(e, record.pinned_mode(e)) for e in endpoints() if record.pinned_mode(e)]


def _ids(ids: list[str]) -> str:
    return ", ".join(f"`{i}`" for i in ids) or "none"


def _caveats_of(server: str) -> list[str]:
    return [c.key for c in catalog.SERVERS[server].caveats if c.h2spec]


def _h2spec_section(rows: list[tuple[Endpoint, dict]]) -> str:
    lines = ["| endpoint | server | passed | failed | varies between runs | caveat |", "|---|---|---|---|---|---|"]
    details = []
    for endpoint, mode in rows:
        cases = mode.get("h2spec", {}).get("cases")
        if not cases:
            continue
        counts = Counter(pin["result"] for pin in cases.values())
        failed = [i for i, p in cases.items() if p["result"] == h2spec.FAILED]
        varies = [i for i, p in cases.items() if p["result"] == record.VARIES]
        caveats = ", ".join(f"[{k}](caveats.md#{k})" for k in _caveats_of(endpoint.server)) or "-"
        lines.append(f"| `{endpoint.id}` | {endpoint.server} | {counts[h2spec.PASSED]} of {len(cases)} | "
                     f"{_ids(failed)} | {_ids(varies)} | {caveats} |")
        for case_id in failed + varies:
            pin = cases[case_id]
            runs = f" (failed {pin['failed_runs']} runs)" if pin.get("failed_runs") else ""
            details.append(f"- `{endpoint.id}` `{case_id}`{runs}: {pin.get('description', '')}. "
                           f"h2spec: {pin.get('message', '')}")
    return "\n".join(lines) + ("\n\nEach failure, as h2spec put it (`h2spec -p PORT CASE` runs one case):\n\n"
                               + "\n".join(details) if details else "")


def _fixes(attack: Attack, endpoint: Endpoint, versions: dict[str, str]) -> str:
    own = [f for f in attack.fixes if f.library in libraries_of(endpoint.server)]
    if not own:
        return "no upstream fix named"
    return "; ".join(f"{f.library} {f.version or '(none)'}" + (f", installed {versions[f.library]}" if f.library in versions else "")
                     for f in own)


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
            "| endpoint | outcome | client during | client after | server CPU during (before) | RSS | the attacker's connections | upstream fix |\n"
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
        lines.append(f"| `{endpoint.id}` | {outcome}{why} | {_client(during)} | {_client(after)} | "
                     f"{_number(during['cpu_cores'])} ({_number(before['cpu_cores'])}) cores | "
                     f"{'+' if j['rss_growth_mib'] >= 0 else ''}{j['rss_growth_mib']:g} MiB | {_attacker(result['sent'])} | "
                     f"{_fixes(attack, endpoint, mode.get('versions', {}))} |")
    fixes = "\n".join(f"- {LIBRARIES[f.library][0]}: {f.version or 'no fix'}: {f.what}." for f in attack.fixes)
    return "\n".join(lines) + (f"\n\nUpstream:\n\n{fixes}" if fixes else "")


def _advice(rows: list[tuple[Endpoint, dict]]) -> str:
    by_server: dict[str, dict[str, list[str]]] = {}
    for endpoint, mode in rows:
        found = by_server.setdefault(endpoint.server, {judge.DOWN: [], judge.DEGRADED: [], "h2spec": []})
        for key, result in mode.get("attacks", {}).items():
            if result["outcome"] in (judge.DOWN, judge.DEGRADED):
                found[result["outcome"]].append(f"{attacks.get(key).title} ({endpoint.mode.name})")
        found["h2spec"] += record.failing(mode.get("h2spec", {}).get("cases", {}))
    lines = []
    for server, found in by_server.items():
        down, degraded = found[judge.DOWN], found[judge.DEGRADED]
        failures = len(set(found["h2spec"]))
        if down:
            advice = ("do not let it terminate HTTP/2 from untrusted clients: put a proxy that terminates HTTP/2 in "
                      "front and have it speak HTTP/1.1 (or h2c on loopback) to the server; here it went down under "
                      + ", ".join(down) + (f", and degraded under {', '.join(degraded)}" if degraded else ""))
        elif degraded:
            advice = ("a proxy that terminates HTTP/2 in front takes what slowed it here: " + ", ".join(degraded)
                      + "; alone, it stays up but answers past the contract's 2 s while attacked")
        else:
            advice = ("held every probe here: its HTTP/2 may face clients; a front is still where limits across "
                      "connections live (each probe used one connection at a time)")
        lines.append(f"- **{server}**: {advice}. h2spec: {failures} case(s) failing or varying.")
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
    dates = sorted({m["recorded"]["date"] + " at `" + m["recorded"]["commit"][:12] + "`" for _, m in rows if m.get("recorded")})
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
        "python -m h2grid run bare_asgi_hypercorn-h2c --attack rapid-reset   # one probe by hand, recording nothing\n```",
        "## What to put in front of which server",
        _advice(rows) or "No record yet.",
        "The fronts' own HTTP/2 has these fixes: nghttp2 1.57.0 (Rapid Reset; 1.61.0 CONTINUATION), HAProxy "
        "declared itself unaffected by Rapid Reset, nginx mitigates it with its defaults `keepalive_requests 1000` "
        "and `http2_max_concurrent_streams 128` (F5's advisory). A front that terminates HTTP/2 and speaks HTTP/1.1 "
        "to the server leaves none of these frames to reach it: each probe here is an HTTP/2 framing attack.",
        "## h2spec",
        f"{record.RECORD_RUNS} runs of every case per record (a case whose result differed between them is pinned "
        f"as varying: h2spec races a server that answers a request before it reads the frame after it), "
        f"{h2spec.CASE_TIMEOUT_S} s per case, TLS unverified (h2spec takes no CA). A failure that is the server "
        "library's is a catalog caveat listing the case ids ([caveats](caveats.md)).",
        _h2spec_section(rows),
        "## The attacks",
        f"Each probe sends for {SECONDS:g} s (bounded also in bytes and connections, loopback only), on one "
        f"connection after another (it reconnects when the server closes one; the buffering probe leaves each open "
        f"and opens the next), at a fresh server with one worker, "
        f"while a legitimate HTTP/2 client requests `GET /` every {INTERVAL_S * 1000:g} ms on its own connection, "
        f"each latency counted from when the request was due ({BASELINE_S:g} s before the attack as the baseline, "
        f"{AFTER_S:g} s after it). Judged (`h2grid/judge.py`): **held**: every answer during and after within the "
        f"contract's {judge.LATENCY_BOUND_S:g} s, the server's RSS grown by less than {judge.MEMORY_LIMIT_MIB:g} MiB; "
        f"**degraded**: every request answered, but slower than {judge.LATENCY_BOUND_S:g} s or the RSS grown past "
        f"{judge.MEMORY_LIMIT_MIB:g} MiB, and served within the bound again in the last {judge.RECOVERY_TAIL_S:g} s; "
        f"**down**: a request failed (an error, a reset, no answer within {REQUEST_TIMEOUT_S:g} s), no recovery, or a "
        f"process of the server died. A run holds each outcome to its pin, held and degraded by a slowest answer at "
        f"most {judge.MARGINAL:g} times the bound counting as the same (they traded places between runs here). "
        "Numbers: the client's requests, median and slowest latency during and after "
        "the attack, the server tree's CPU (cores) during it and before, its RSS growth, and what the server did with "
        "the attacker's connections.",
        *(_attack_section(attacks.get(key), rows) for key in attacks.KEYS),
        "## Defects found (reportable upstream)",
        _defects_section(),
        "## The libraries",
        "\n".join(f"- **{server}**: " + ", ".join(LIBRARIES[lib][0] for lib in speaks.libraries)
                  for server, speaks in SPEAKS_H2.items()),
    ]
    return "\n\n".join(parts) + "\n"
