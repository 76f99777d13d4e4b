"""The conformance grid, rendered: a cell of the reliability summary and its failure list (from a run's
verdicts), and the page docs/conformance.md (from the records' conformance sections, by effect).

A run's verdicts are the reliability summary's rows (results/reliability/summary.json, written by
tests/reliability/reltools.py): row["conformance"][case id] = [verdict, what happened, bytes sent
back (latin-1)], and row["conformance_nginx"] for the same cases through nginx. The records
(records/<entry>.json, tests/conformance/pinning.py) hold each case's answers, verdict and effect.
"""
from __future__ import annotations

import collections
import html

from servers.core import catalog
from servers.core.tables import markdown_table

from . import cases, known

VERDICTS = ("pass", "lenient", "fail")
FAILING = ("fail", "handed")  # the app answering what the server should have refused is no pass


def counts(verdicts: dict, cls: str) -> collections.Counter:
    return collections.Counter("fail" if v[0] in FAILING else v[0] for case_id, v in verdicts.items()
                               if case_id in cases.BY_ID and cases.BY_ID[case_id].cls == cls)


def failed(verdicts: dict, cls: str | None = None) -> list[str]:
    return [case_id for case_id, v in verdicts.items() if v[0] in FAILING and case_id in cases.BY_ID
            and (cls is None or cases.BY_ID[case_id].cls == cls)]


def _triple(counter: collections.Counter) -> str:
    return "/".join(str(counter.get(v, 0)) for v in VERDICTS)


def tally_cell(row: dict) -> str:
    """The reliability summary's cell: pass/lenient/fail per class."""
    verdicts = row.get("conformance")
    if not verdicts:
        return ""
    text = "; ".join(_triple(counts(verdicts, cls)) for cls in cases.CLASSES)
    behind = row.get("conformance_nginx")
    if behind:
        tally = counts(behind, cases.SMUGGLING)
        text += f"; behind nginx: {_triple(tally)}" + (f" (+{tally['refused']} refused)" if tally.get("refused") else "")
    return text


def _cell(verdicts: dict, cls: str) -> str:
    tally = counts(verdicts, cls)
    if not sum(tally.values()):
        return ""
    text = f"{tally.get('pass', 0)} pass, {tally.get('lenient', 0)} lenient"
    refused = [case_id for case_id, v in verdicts.items() if v[0] == "refused"]
    if refused:
        text += f", {len(refused)} refused by the proxy: " + ", ".join(f"`{case_id}`" for case_id in refused)
    bad = failed(verdicts, cls)
    if bad:
        text += f", **{len(bad)} fail**: " + ", ".join(f"`{case_id}`" for case_id in bad)
    return text


def _md(text: str) -> str:
    return html.escape(text, quote=False).replace("|", "\\|").replace("\n", " ")


def failures_markdown(rows: dict) -> str:
    """Each stack's failed cases with what happened: the reliability summary's list."""
    lines = []
    for name in (e.name for e in catalog.ENTRIES):
        for kind, label in (("conformance", ""), ("conformance_nginx", " behind nginx")):
            verdicts = rows.get(name, {}).get(kind) or {}
            for case_id in failed(verdicts):
                lines.append(f"- {name}{label}: `{case_id}` ({cases.BY_ID[case_id].cls}): {_md(verdicts[case_id][1])}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------- the page, from the records

EFFECT_WORDS = {
    "desync": "frames a message otherwise than the RFC: behind a front that frames by the RFC a request can be "
              "smuggled; alone, a client (a browser's pooled connection) can be desynchronised",
    "crash": "a 5xx, or a worker that no longer answers",
    "no-close": "frames right, but keeps a connection the RFC says to close after the message",
    "refuse-shape": "refuses in the wrong shape: after the app answered, with a status that is no refusal, or "
                    "hands an invalid request to the app",
    "over-strict": "refuses a valid request",
}


def record_rows(recs: dict[str, dict]) -> dict[str, dict]:
    """Rows of the summary's shape (kind -> case -> [verdict, what, ""]) from records' conformance sections."""
    rows = {}
    for name, section in recs.items():
        row = {"conformance": {c: [v["verdict"], f"{v['answers']} ({v.get('reading', '')})", ""]
                               for c, v in section["cases"].items()}}
        if section.get("columns", {}).get("nginx"):
            row["conformance_nginx"] = {c: [v["verdict"], f"{v['answers']} ({v.get('reading', '')})", ""]
                                        for c, v in section["columns"]["nginx"].items()}
        rows[name] = row
    return rows


def effects_of(section: dict, col: str = "none") -> dict[str, list[str]]:
    """effect -> the failing cases with it, in one column of a stack's record."""
    found: dict[str, list[str]] = collections.defaultdict(list)
    cases_ = section["cases"] if col == "none" else section.get("columns", {}).get(col, {})
    for case_id, v in sorted(cases_.items()):
        if v["verdict"] in FAILING and v.get("effect"):
            found[v["effect"]].append(case_id)
    return found


def _names(names: list[str]) -> str:
    return ", ".join(f"`{n}`" for n in names) or "none"


def record_page(recs: dict[str, dict], nginx_version: str) -> str:
    """docs/conformance.md from the records' conformance sections (each from a complete run whose tests passed)."""
    names = [e.name for e in catalog.ENTRIES if e.name in recs]
    runs = sorted({(recs[n]["run"]["date"], recs[n]["run"]["commit"][:12]) for n in names})
    effects = {n: effects_of(recs[n]) for n in names}
    behind = {n: effects_of(recs[n], "nginx") for n in names if recs[n].get("columns", {}).get("nginx")}
    production = [n for n in names if not catalog.get(n).dev_only]
    lines = [
        "# HTTP/1.1 conformance per stack",
        "",
        "<!-- Generated by `python -m tests.conformance` from records/<entry>.json (their conformance sections, "
        "each from a complete run whose tests passed): do not edit. -->",
        "",
        f"Each stack's HTTP/1.1 parser against {len(cases.CASES)} cases of our own, written from RFC 9112 and",
        "RFC 9110 (`tests/conformance/cases.py`: raw request bytes, the answers the RFCs require or allow, the",
        "section). A case whose framing matters carries a body that is itself a request (`GET /json`, 200),",
        "then a canary (`GET /nope`, 404): a consumed body answers `405 404`, a body read as the next request",
        "`405 200 404`, an ignored chunked body `405 400`; the judge (`tests/conformance/wire.py`) names which",
        "happened. A refusal is 400, 413, 414, 431, 501 or 505 (then a close where the RFC says close); the",
        "app's own 404 or 405 to a request the server should have refused is **handed to the app**, never a",
        "pass. Every failure is a catalog caveat of its stack and its exact answers are pinned in the stack's",
        "record (`records/<entry>.json`): a change of shape fails the run.",
        "",
        "Run" + ("s" if len(runs) > 1 else "") + ": " + "; ".join(f"{d} at commit `{c}`" for d, c in runs)
        + f", {len(names)} stacks. Rerun (one stack: `-k <entry>`) and regenerate:",
        "",
        "```sh",
        "CONFORMANCE_RECORD=1 ./test.sh -m reliability tests/reliability/test_reliability_conformance.py",
        "python -m tests.conformance            # this page, from records/",
        "```",
        "",
        "## What a deployment must know",
        "",
        "Effects, from the worst: " + "; ".join(f"**{e}**: {w}" for e, w in EFFECT_WORDS.items()) + ".",
        "",
        f"### Behind a proxy (nginx {nginx_version} tried: a private nginx, `proxy_http_version 1.1`, upstream "
        "keep-alive, request buffering on)",
        "",
        "Smuggling needs a front and a server that frame one message two ways. The production stacks that "
        "**desync** on a smuggling-relevant case, and what nginx in front leaves of it:",
        "",
    ]
    for name in production:
        desync = [c for c in effects[name].get("desync", []) if cases.BY_ID[c].cls == cases.SMUGGLING]
        if desync:
            left = behind.get(name, {}).get("desync")
            lines.append(f"- `{name}`: {len(desync)} ({', '.join(desync)}); behind nginx: "
                         + (f"**still {', '.join(left)}**" if left else "closed" if name in behind else "not run"))
    nginx_refuses = sorted({c for n in behind for c, v in recs[n]["columns"]["nginx"].items()
                            if v["verdict"] == "refused" and not cases.BY_ID[c].wants_refusal})
    lines += ["", "Behind nginx, nginx's own answers replace the server's where it refuses or re-frames "
              "(`refused` in the grid): those are nginx's shape, not the server's. nginx itself refuses or "
              "re-frames these requests the RFCs allow: " + (", ".join(f"`{c}`" for c in nginx_refuses) or "none")
              + ".", "",
              "### Exposed alone (no proxy)", "",
              "No front to smuggle through, but a client's pooled connection can be desynchronised by a body the "
              "server frames otherwise (a browser's `fetch` with a body: the desync cases of the class `0.CL`/`CL.0`), "
              "a crash is a denial of service, and the slow-client caveats of the catalog's `limits` column call "
              "for a buffering proxy anyway. Production stacks by effect (number of cases):", ""]
    for effect in EFFECT_WORDS:
        hit = sorted(((len(effects[n][effect]), n) for n in production if effects[n].get(effect)), reverse=True)
        lines.append(f"- **{effect}**: " + (", ".join(f"`{n}` ({k})" for k, n in hit) or "none"))
    clean = [n for n in production if not effects[n]]
    lines += ["", f"- **no failure at all**: {_names(clean)}", "",
              "Server settings (keep-alive off, another parser) change some of these: the grid runs each stack as "
              "the catalog starts it; the settings columns are the columns of the records (`columns`).", "",
              "## The grid", "",
              markdown_table(["stack", "tag", *EFFECT_WORDS, f"behind nginx {nginx_version}: desync"],
                             ([f"`{n}`", ", ".join(catalog.get(n).tags),
                               *(", ".join(f"`{c}`" for c in effects[n].get(e, [])) for e in EFFECT_WORDS),
                               (", ".join(behind[n].get("desync", [])) or "none") if n in behind else ""]
                              for n in names)),
              "", "## Known library defects, with minimal reproductions", "", _record_reproductions(recs),
              "## The cases", "",
              markdown_table(["case", "class", "RFC section", "allowed (pass)", "lenient-allowed", "stacks failing it"],
                             ([f"`{c.id}`", c.cls, c.rfc, _patterns(c.ok), _patterns(c.lenient),
                               ", ".join(n for n in names if recs[n]["cases"].get(c.id, {}).get("verdict") in FAILING)]
                              for c in cases.CASES)), ""]
    return "\n".join(lines)


def _record_reproductions(recs: dict[str, dict]) -> str:
    out = []
    for key, spec in known.KNOWN.items():
        ran = sorted((n for n in spec.stacks() if n in recs),
                     key=lambda n: (catalog.get(n).framework != "stdlib", catalog.get(n).framework != "bare",
                                    len(catalog.get(n).caveats)))
        if not ran:
            continue
        name = ran[0]
        versions = recs[name]["run"].get("versions", {})
        version = ", ".join(f"{p} {v}" for p, v in versions.items() if p in spec.packages) or "?"
        out += [f"### `{key}` ({version})", "", catalog.CAVEATS[key], "",
                "Stacks: " + _names(spec.stacks()) + f". Reproduced on `{name}`:", ""]
        for case_id in spec.cases:
            got = recs[name]["cases"].get(case_id)
            if not got or got["verdict"] not in FAILING:
                continue
            case = cases.BY_ID[case_id]
            about = case.note or "allowed: " + _patterns(case.ok)
            out += [f"- `{case_id}` (RFC {case.rfc}; {got.get('effect')}; {about})", "", "  ```",
                    f"  in:  {case.request[:240]!r}", f"  out: {got['answers']} ({got.get('reading', '')})",
                    "  ```", ""]
    return "\n".join(out) + "\n"


def _patterns(patterns: tuple[str, ...]) -> str:
    return ", ".join("close without answer" if p == "closed" else p for p in patterns)
