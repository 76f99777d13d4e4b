"""The conformance grid, rendered: docs/conformance.md from the records, and the reliability summary's cell.

The page answers the user's question (which stack can face clients, and behind which front) with one row
per stack: how many cells have each effect (verdict.EFFECTS), each count linking to those cells, and what
nginx and HAProxy in front leave of them. A row is built only from records of the code they describe
(grid.stale: the server's adapter and spec, the app, the cases): a stack whose record, or whose owner's, is
missing, stale, incomplete or from a failed run is shown unverified, with why. Model first (Row, rows()),
then thin renderers.
"""
from __future__ import annotations

import collections
import html
from dataclasses import dataclass, field

from servers.core import catalog
from servers.core.tables import markdown_table

from . import cases, grid, known, reference, verdict

EFFECT_WORDS = {
    verdict.DESYNC: "the server frames bytes a conforming front may forward otherwise than the RFC lets it: a request "
                    "boundary moves (a body read short or long, a body taken as a request, a request swallowed). "
                    "Behind a front: request smuggling; alone: a client's pooled connection desynchronised",
    verdict.MISREAD: "one message's body read otherwise than the RFC frames it (the app got another body), then the "
                     "connection closed before anything after it was read: no later request moved, but the app "
                     "acted on bytes a front did not send it as that body",
    verdict.ACCEPTS_INVALID: "input every conforming recipient refuses, served instead (framed as a lenient parser "
                             "would), a request served as another (`get` as GET), or a switch to HTTP/2: safe "
                             "behind a front that refuses it, a smuggling risk behind one that forwards it framed "
                             "otherwise",
    verdict.STALL: "neither answers nor closes where the stream holds a complete request: a connection, and often a "
                   "worker, held",
    verdict.CRASH: "a 5xx that is no refusal, or a server that no longer answers afterwards",
    verdict.NO_CLOSE: "keeps a connection the RFC says to close (the probe written after the answers was answered)",
    verdict.OVER_STRICT: "refuses a valid request, closes on it, answers it as another target, or with bytes no "
                         "HTTP/1.1 client reads",
    verdict.NOT_OBSERVED: "answered without what decides the framing being seen (an unread body, then a close): "
                          "counted apart, never a pass",
}


def _anchor(*parts: str) -> str:
    return "-".join(p.replace("_", "-").replace(".", "-") for p in parts).lower()


@dataclass
class Row:
    name: str
    tags: tuple[str, ...]
    role: str
    source: str  # the entry its inherited cells come from ("" for an owner)
    owner: str = ""  # its parser owner (where the front columns run)
    cells: dict[str, dict] = field(default_factory=dict)  # case -> cell (with "from")
    unverified: str = ""  # why the row cannot be vouched for ("" : it can)
    fronts: dict[str, dict[str, dict]] = field(default_factory=dict)  # front -> case -> cell (the owner's columns)
    own_fronts: dict[str, dict[str, dict]] = field(default_factory=dict)  # a framework stack's own columns

    def by_effect(self) -> dict[str, list[str]]:
        found: dict[str, list[str]] = collections.defaultdict(list)
        for case_id, cell in sorted(self.cells.items()):
            if cell.get("effect"):
                found[cell["effect"]].append(case_id)
        return found


def _fitness(name: str, sections: dict[str, dict | None]) -> str:
    """Why this entry's own section cannot be shown ("" : it can)."""
    entry = catalog.get(name)
    section = sections.get(name)
    if not section:
        return "no conformance record"
    run = section.get("run", {})
    if not run.get("complete"):
        return "its conformance run was not complete"
    if not run.get("passed"):
        return "its conformance run had cells that differ from their pins"
    changed = grid.stale(entry, section)
    return f"its record is stale ({', '.join(changed)})" if changed else ""


def rows(sections: dict[str, dict | None]) -> list[Row]:
    """One row per catalog entry, from the records' conformance sections (entry -> section)."""
    out = []
    for entry in catalog.ENTRIES:
        origin = grid.source(entry)
        row = Row(entry.name, entry.tags, grid.role(entry), origin.name if origin else "")
        chain, current = [], entry
        while current is not None:
            chain.append(current.name)
            current = grid.source(current)
        problems = [f"{n}: {why}" if n != entry.name else why for n in chain if (why := _fitness(n, sections))]
        row.unverified = "; ".join(problems)
        row.owner = chain[-1]
        if not row.unverified:
            row.cells = grid.cells(entry.name, sections)
            row.fronts = (sections[row.owner] or {}).get("columns", {})
            if row.role == grid.FRAMEWORK:
                row.own_fronts = (sections[row.name] or {}).get("columns", {})
        out.append(row)
    return out


# ---------------------------------------------------------------------------- the reliability summary's cell

def tally_cell(row: dict) -> str:
    """The reliability summary's cell: the effects of the stack's conformance cells this run."""
    found = row.get("conformance")
    if not found:
        return ""
    tally = collections.Counter(v[0] for v in found.values())
    return ", ".join(f"{tally[e]} {e}" for e in (verdict.PASS, *verdict.EFFECTS) if tally.get(e))


def failures_markdown(summary_rows: dict) -> str:
    lines = []
    for name in (e.name for e in catalog.ENTRIES):
        for case_id, (effect, what, _) in sorted((summary_rows.get(name, {}).get("conformance") or {}).items()):
            if effect != verdict.PASS:
                lines.append(f"- {name}: `{case_id}` {effect}: {_md(what)}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------- the page

def _md(text: str) -> str:
    """Text for a Markdown table cell: control characters (a reflected method may hold a CR) escaped."""
    text = "".join(c if c.isprintable() or c == " " else c.encode("unicode_escape").decode() for c in text)
    return html.escape(text, quote=False).replace("|", "\\|")


def _count(row: Row, effect: str, found: dict[str, list[str]]) -> str:
    n = len(found.get(effect, []))
    return f"[{n}](#{_anchor(row.name, 'cells')})" if n else "0"


def _front_cell(row: Row, front: str) -> str:
    """Of the stack's smuggling-relevant cells that fail alone (its owner's, and a framework stack's own), how many
    still desync behind the front (the front refusing or re-framing invalid input closes it: the server never sees
    those bytes), and how many still fail there at all."""
    groups = [(row.owner, row.fronts)] + ([(row.name, row.own_fronts)] if row.role == grid.FRAMEWORK else [])
    alone: set[str] = set()
    left: list[str] = []
    failing: list[str] = []
    racing: list[str] = []  # a race declared behind this front (known.py), seen in the runs recorded, none a desync
    for origin, columns in groups:
        mine = {c for e in verdict.FRONTED for c in row.by_effect().get(e, [])
                if cases.BY_ID[c].cls == cases.SMUGGLING and row.cells[c]["from"] == origin}
        if not mine:
            continue
        ran = columns.get(front, {})
        if not ran:
            return "not run"
        alone |= mine
        left += [c for c in mine if ran.get(c, {}).get("effect") == verdict.DESYNC]
        failing += [c for c in mine if ran.get(c, {}).get("effect")]
        racing += [c for c in mine if ran.get(c, {}).get("effect") != verdict.DESYNC
                   and len(ran.get(c, {}).get("runs", {})) > 1 and grid.front_racy(catalog.get(origin), c, front)]
    if not alone:
        return ""
    link = f"(#{_anchor(row.owner, 'cells')})"
    rest = f", {len(failing)} of {len(alone)} still fail" if failing else f", all {len(alone)} pass"
    if racing:
        rest += (f", {len(racing)} more racing (answers varied over the runs recorded, none a desync; a desync went "
                 f"through in later runs of such cells)")
    if left:
        return f"[{len(left)} of {len(alone)} still desync]{link}{rest}"
    return f"[no desync left of {len(alone)}]{link}{rest}"


def page(sections: dict[str, dict | None], front_versions: dict[str, str]) -> str:
    model = rows(sections)
    fronts = sorted(front_versions)
    verified = [r for r in model if not r.unverified]
    runs = sorted({(sections[n]["run"]["date"], sections[n]["run"]["commit"][:12]) for n in (r.name for r in model)
                   if not _fitness(n, sections)})
    lines = [
        "# HTTP/1.1 conformance per stack",
        "",
        "<!-- Generated by `python -m tests.conformance` from records/<entry>.json (their conformance sections): "
        "do not edit. -->",
        "",
        "Which stack can face clients directly, and which needs a front (and which front closes what)? Each "
        "server's parser is observed once, on its *parser owner*: the server with a bare app that answers every "
        "request with what the server handed it (method, target, body length and SHA-256: the reflection route). "
        f"The {len(cases.CASES)} cases (`tests/conformance/cases.py`, each with its RFC 9112 / 9110 section) are "
        "written on a fresh connection; the answers are read as a response stream (HEAD, 1xx and 101 understood); "
        "a probe request written after them must get EOF or an answer (the connection's state is seen, never "
        "taken from a header). A strict RFC 9112 parser of the suite's own (`tests/conformance/reference.py`) "
        "frames the same bytes, with the choices the RFC leaves to a recipient and the leniencies real parsers "
        "have as named options, and the judge (`tests/conformance/verdict.py`) derives one effect per cell:",
        "",
        *(f"- **{e}**: {w}." for e, w in EFFECT_WORDS.items()),
        "",
        f"A framework stack runs only the {len(cases.APP_SENSITIVE)} cases where its app matters (bodies it leaves "
        "unread, its own 404 and 405, Host) against the route contract, and inherits the rest from its server's "
        "parser owner (one framework per server is run on every case to show the inheritance holds); a Mongo "
        "driver or Redis client variant inherits its base stack's grid. Every cell is pinned in the stack's "
        "record and a changed cell fails the run. The settings users turn on for safety and a replay of what "
        "each front forwards are in [conformance-columns.md](conformance-columns.md).",
        "",
        "Records: " + "; ".join(f"{d} at `{c}`" for d, c in runs) + f". {len(verified)} of {len(model)} stacks "
        "verified" + ("; fronts: " + ", ".join(f"{f} {front_versions[f]}" for f in fronts) if fronts else "") + ".",
        "",
        "```sh",
        "CONFORMANCE_RECORD=1 ./test.sh -m reliability tests/reliability/test_reliability_conformance.py  # [-k ENTRY]",
        "python -m tests.conformance            # this page, from records/",
        "```",
        "",
        "## Per stack",
        "",
        "Counts of cells per effect (a stack's own cells and those it inherits); each links to the cells. The front "
        "columns: the parser owner's smuggling-relevant cells that do not pass alone (and a framework stack's own), "
        "run again behind a private "
        "nginx and HAProxy (each as it ships, on loopback): of those N cells, how many still desync through the "
        "front (a front that refuses or re-frames invalid input closes it: the server never sees those bytes), and "
        "how many still fail there with any effect (a stall, a crash, input served that the front let through): "
        "`no desync left` says only that no request boundary moves behind that front, not that its cells pass.",
        "",
    ]
    header = ["stack", "tag", "observed on", *verdict.EFFECTS, *(f"behind {f}" for f in fronts)]
    table = []
    for row in model:
        tags = ", ".join(row.tags)
        where = "itself" if row.role == grid.OWNER else f"`{row.source}`" + (
            " + its app's cases" if row.role == grid.FRAMEWORK else "")
        if row.unverified:
            table.append([f"`{row.name}`", tags, where, f"unverified: {_md(row.unverified)}",
                          *[""] * (len(verdict.EFFECTS) - 1 + len(fronts))])
            continue
        found = row.by_effect()
        table.append([f"`{row.name}`", tags, where, *(_count(row, e, found) for e in verdict.EFFECTS),
                      *(_front_cell(row, f) for f in fronts)])
    lines += [markdown_table(header, table), "", "## Cells", ""]
    for row in model:
        lines += _cells_part(row)
    lines += ["## Known library defects, with minimal reproductions", "", _reproductions(model, sections),
              "## The cases", "",
              markdown_table(["case", "class", "RFC", "app-sensitive", "what it holds"],
                             ([f"`{c.id}`", c.cls, c.rfc, "yes" if c.app else "", _md(c.note)] for c in cases.CASES)),
              "", "## Leniencies the reference names", "",
              markdown_table(["name", "the RFC permits it", "section", "what it does"],
                             ([f"`{n}`", "yes" if lenient.permitted else "", lenient.section, _md(lenient.text)]
                              for n, lenient in reference.LENIENCIES.items())), ""]
    return "\n".join(lines)


def _cells_part(row: Row) -> list[str]:
    """An owner's failing cells (with the fronts' columns); a framework stack's own failing cells and a link to its
    owner's; a client variant's link to its base stack."""
    if row.unverified or not any(row.by_effect().values()):
        return []
    out = [f'<a id="{_anchor(row.name, "cells")}"></a>', f"### `{row.name}`", ""]
    if row.role == grid.VARIANT:
        return out + [f"Its grid is [`{row.source}`](#{_anchor(row.source, 'cells')})'s.", ""]
    own = {c: cell for c, cell in row.cells.items() if cell["from"] == row.name and cell.get("effect")}
    if row.role == grid.FRAMEWORK:
        out += [f"Its app's cases below; every other cell is [`{row.owner}`](#{_anchor(row.owner, 'cells')})'s.", ""]
    columns = row.fronts if row.role == grid.OWNER else row.own_fronts
    fronts = sorted(columns)
    body = []
    for effect in verdict.EFFECTS:
        for case_id in (c for c in sorted(own) if own[c]["effect"] == effect):
            cell = own[case_id]
            behind = [columns.get(f, {}).get(case_id, {}).get("effect") or
                      ("pass" if case_id in columns.get(f, {}) else "") for f in fronts]
            body.append([effect, f"`{case_id}`", cases.BY_ID[case_id].rfc, f"`{_md(cell['answers'])}`",
                         _md(cell.get("reading", "")), *behind])
    if body:
        out += [markdown_table(["effect", "case", "RFC", "answers", "what the server did",
                                *(f"behind {f}" for f in fronts)], body), ""]
    else:
        out += ["None of its app's cases fails.", ""]
    return out


def _reproductions(model: list[Row], sections: dict[str, dict | None]) -> str:
    """Each HTTP/1.1 caveat with the bytes of its cases and the answers on the first stack that shows it."""
    shown = {r.name: r for r in model if not r.unverified}
    out = []
    for key, spec in known.KNOWN.items():
        carriers = [e.name for e in catalog.ENTRIES if key in e.caveats and e.name in shown]
        if not carriers:
            continue
        name = min(carriers, key=lambda n: (grid.role(catalog.get(n)) != grid.OWNER, len(n)))
        row = shown[name]
        versions: dict[str, str] = {}
        for origin in {cell["from"] for cell in row.cells.values()}:
            versions.update((sections.get(origin) or {}).get("run", {}).get("versions", {}))
        version = ", ".join(f"{p} {v}" for p, v in sorted(versions.items()) if p in spec.packages) or "?"
        out += [f"### `{key}` ({version})", "", _md(catalog.CAVEATS[key]), "",
                "Stacks: " + ", ".join(f"`{n}`" for n in carriers) + f". Reproduced on `{name}`:", ""]
        for case_id in spec.cases:
            cell = row.cells.get(case_id)
            if not cell or not cell.get("effect"):
                continue
            case = cases.BY_ID[case_id]
            sent = case.request(grid.mode(catalog.get(cell["from"])))
            out += [f"- `{case_id}` (RFC {case.rfc}; {cell['effect']})" + (f": {_md(case.note)}" if case.note else ""),
                    "", "  ```", f"  in:  {sent[:240]!r}", f"  out: {_md(cell['answers'])}: {_md(cell.get('reading', ''))}",
                    "  ```", ""]
    return "\n".join(out) + "\n"
