"""The conformance grid (stack x class: pass, lenient-allowed, fail with what happened), rendered from a
run's verdicts: a cell of the reliability summary, its failure list, and the page docs/conformance.md.

A run's verdicts are the reliability summary's rows (results/reliability/summary.json, written by
tests/reliability/reltools.py): row["conformance"][case id] = [verdict, what happened, bytes sent
back (latin-1)], and row["conformance_nginx"] for the same cases through nginx.
"""
from __future__ import annotations

import collections
import html

from servers.core import catalog
from servers.core.tables import markdown_table

from . import cases, known

VERDICTS = ("pass", "lenient", "fail")


def counts(verdicts: dict, cls: str) -> collections.Counter:
    return collections.Counter(v[0] for case_id, v in verdicts.items()
                               if case_id in cases.BY_ID and cases.BY_ID[case_id].cls == cls)


def failed(verdicts: dict, cls: str | None = None) -> list[str]:
    return [case_id for case_id, v in verdicts.items() if v[0] == "fail" and case_id in cases.BY_ID
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


def safe_to_expose(rows: dict) -> tuple[list[str], list[str], list[str]]:
    """(stacks with no smuggling-relevant failure, stacks whose smuggling failures nginx closes,
    stacks that still fail a smuggling case behind nginx or were not run behind it)."""
    safe, closed, open_ = [], [], []
    for name in (e.name for e in catalog.ENTRIES):
        row = rows.get(name, {})
        if not row.get("conformance"):
            continue
        # A smuggling-relevant caveat counts even where its racy case did not show in this run.
        caveated = any(known.KNOWN[key].smuggling for key in catalog.get(name).caveats if key in known.KNOWN)
        if not failed(row["conformance"], cases.SMUGGLING) and not caveated:
            safe.append(name)
        elif row.get("conformance_nginx") and not failed(row["conformance_nginx"], cases.SMUGGLING):
            closed.append(name)
        else:
            open_.append(name)
    return safe, closed, open_


def page(rows: dict, run: dict, versions: dict[str, dict[str, str]], nginx_version: str) -> str:
    """docs/conformance.md."""
    names = [e.name for e in catalog.ENTRIES if rows.get(e.name, {}).get("conformance")]
    safe, closed, open_ = safe_to_expose(rows)
    grid = markdown_table(
        ["stack", "tag", "smuggling-relevant", "other", f"smuggling-relevant behind nginx {nginx_version}"],
        ([f"`{name}`", ", ".join(catalog.get(name).tags), _cell(rows[name]["conformance"], cases.SMUGGLING),
          _cell(rows[name]["conformance"], cases.OTHER),
          _cell(rows[name].get("conformance_nginx") or {}, cases.SMUGGLING)] for name in names))
    case_table = markdown_table(
        ["case", "class", "RFC section", "allowed (pass)", "lenient-allowed", "stacks failing it"],
        ([f"`{c.id}`", c.cls, c.rfc, _patterns(c.ok), _patterns(c.lenient),
          ", ".join(n for n in names if rows[n]["conformance"].get(c.id, ["pass"])[0] == "fail")]
         for c in cases.CASES))
    return "\n".join([
        "# HTTP/1.1 conformance per stack",
        "",
        "<!-- Generated by `python -m tests.conformance` from a run's results/reliability/summary.json: do not edit. -->",
        "",
        f"Each stack's HTTP/1.1 parser against {len(cases.CASES)} cases of our own, written from RFC 9112 and",
        "RFC 9110 (`tests/conformance/cases.py`: raw request bytes, the answers the RFCs require or allow, the",
        "section). Each case goes alone on a fresh loopback connection; then a fresh `GET /` must still answer",
        "200. **pass**: an answer the RFC requires; **lenient**: one it permits a lenient recipient (a LF",
        "taken as a line terminator, a repeated Content-Length value merged, a connection closed without an",
        "answer); **fail**: anything else: a wrong status, a malformed response, a connection neither answered",
        f"nor closed within 2 s, a server no longer answering. **smuggling-relevant** cases decide where a",
        "message ends (Content-Length, Transfer-Encoding, chunk syntax, line terminators, field syntax that",
        "can hide a framing header): a server that reads one differently from a proxy in front of it lets a",
        "request be smuggled. Every failure below is a catalog caveat of its stack, a strict expected failure",
        "of `tests/reliability/test_reliability_conformance.py`: a library upgrade that fixes one fails the run.",
        "",
        f"Run: {run.get('written', '?')}, {run.get('cores', '?')} cores. Rerun and regenerate:",
        "",
        "```sh",
        "./test.sh -m reliability tests/reliability/test_reliability_conformance.py",
        "python -m tests.conformance            # this page, from results/reliability/summary.json",
        "```",
        "",
        "## Which stacks may face clients directly",
        "",
        "Judged by message framing alone: a stack's other caveats (slow clients, say: the README's `limits`",
        "column) may still call for a proxy in front.",
        "",
        "- **No smuggling-relevant failure** (the framing of every case as the RFCs allow): "
        + ", ".join(f"`{n}`" for n in safe) + ".",
        f"- **Smuggling-relevant failures that nginx {nginx_version} in front closes** (a private nginx,",
        "  `proxy_http_version 1.1` with upstream keep-alive, `tests/conformance/nginx.py`; every smuggling",
        "  case passes through it): " + (", ".join(f"`{n}`" for n in closed) or "none") + ". Deploy them behind a proxy.",
        "- **Still failing a smuggling-relevant case behind nginx**: " + (", ".join(f"`{n}`" for n in open_) or "none") + ".",
        "",
        "No server option of these stacks closes a failure below (checked in the installed sources: gevent's",
        "WSGIServer, sanic, waitress, granian, tornado, gunicorn, uWSGI have no stricter-parser switch for",
        "these cases); uvicorn's `--http h11` swaps in a stricter parser, but its entries run httptools, what",
        "uvicorn's users deploy for speed.",
        "",
        "## The grid",
        "",
        grid,
        "",
        "## Known library defects, with minimal reproductions",
        "",
        _reproductions(rows, versions),
        "## The cases",
        "",
        case_table,
        "",
    ])


def _patterns(patterns: tuple[str, ...]) -> str:
    return ", ".join("close without answer" if p == "" else p for p in patterns)


def _reproductions(rows: dict, versions: dict[str, dict[str, str]]) -> str:
    out = []
    for key, spec in known.KNOWN.items():
        # Reproduced on the server alone where there is one (bare WSGI, stdlib), else the fewest caveats.
        ran = sorted((n for n in spec.stacks() if rows.get(n, {}).get("conformance")),
                     key=lambda n: (catalog.get(n).framework != "stdlib", catalog.get(n).framework != "bare",
                                    len(catalog.get(n).caveats)))
        if not ran:
            continue
        name = ran[0]
        version = ", ".join(f"{p} {v}" for p, v in versions.get(name, {}).items() if p in spec.packages) or "?"
        out += [f"### `{key}` ({version})", "", catalog.CAVEATS[key], "",
                "Stacks: " + ", ".join(f"`{n}`" for n in spec.stacks()) + f". Reproduced on `{name}`:", ""]
        for case_id in spec.cases:
            verdict = rows[name]["conformance"].get(case_id)
            if not verdict:
                continue
            case = cases.BY_ID[case_id]
            out += [f"- `{case_id}` (RFC {case.rfc}; {case.note or 'allowed: ' + _patterns(case.ok)})", "",
                    "  ```", f"  in:  {case.request[:240]!r}", f"  out: {verdict[2].encode('latin-1')[:240]!r}",
                    "  ```", ""]
    return "\n".join(out) + "\n"
