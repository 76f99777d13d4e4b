"""A stored wire trace (anatomy.tracedata) as a page's facts: a table "measured on VERSIONS" whose rows
carry anchors (`#trace-writes`, ...) that the prose points at, and a Mermaid sequence diagram drawn from
the traced calls.

A trace holds several runs of several requests each. Every row is built from all of its samples (each
request of each run, each connection, or each run) and says how many there were; a fact that varied is
shown as what varied and how often ("1 (1 writev): head and body together (147 B) on 2 of 4 responses;
2 (2 writev): head (134 B), then body (13 B) on 2"), never as a constant read off one sample. rows() is
the one home of each fact's values: the table shows them, the tests check the prose's links against
them (a link to a row that varied must name every value it took) and a fresh trace against them.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Hashable

BOUND_WORD = "not closed within"


def tolerance(value: float) -> float:
    """How far a duration may move between runs, or from a claim, and still be the same fact."""
    return max(0.5, 0.15 * value)


@dataclass
class Row:
    id: str  # the anchor: #trace-ID
    fact: str
    text: str
    values: list[float | None]  # one per sample: what a link to this row may state
    count: bool = False  # an exact count (syscalls, connections), not a duration

    @property
    def varied(self) -> bool:
        if self.count:
            return len(set(self.values)) > 1
        measured = [v for v in self.values if v is not None]
        if measured and len(measured) < len(self.values):
            return True
        return bool(measured) and max(measured) - min(measured) > tolerance(min(measured))


def runs(trace: dict) -> list[dict]:
    return trace["runs"]


def requests(trace: dict) -> list[dict]:
    """Every keep-alive request of every run, in order."""
    return [request for run in runs(trace) for request in run["requests"]]


def _tally(samples: list[Hashable]) -> list[tuple[Hashable, int]]:
    """Each distinct sample with how many times it came, the most frequent first (ties: first seen)."""
    counts: dict = {}
    for sample in samples:
        counts[sample] = counts.get(sample, 0) + 1
    return sorted(counts.items(), key=lambda item: -item[1])


def _often(samples: list[str], unit: str, marks: Callable[[str], str] = lambda text: "") -> str:
    """'X, on each of 15 responses' for a constant; 'X on 2 of 4 responses; Y on 2' for one that varied
    (marks(X) adds a word on when X came, after its count)."""
    preposition = "in" if unit == "runs" else "on"
    variants = _tally(samples)
    if len(variants) == 1:
        text = variants[0][0]
        every = f"each of {len(samples)} {unit}" if len(samples) > 1 else f"1 {unit.removesuffix('s')}"
        return f"{text}, {preposition} {every}{marks(text)}"
    return "; ".join(f"{text} {preposition} {k}" + (f" of {len(samples)} {unit}" if i == 0 else "") + marks(text)
                     for i, (text, k) in enumerate(variants))


def _compact(samples: list[str], unit: str = "runs") -> str:
    """A part of a row: 'X' when it held in every sample, 'X (2 of 3 runs), Y (1 of 3)' when it varied."""
    variants = _tally(samples)
    if len(variants) == 1:
        return str(variants[0][0])
    return ", ".join(f"{text} ({k} of {len(samples)}{' ' + unit if i == 0 else ''})"
                     for i, (text, k) in enumerate(variants))


def _span(values: list[float], unit: str = "s", scale: float = 1.0, digits: int = 1) -> str:
    low, high = round(min(values) * scale, digits), round(max(values) * scale, digits)
    return f"{low:.{digits}f} {unit}" if low == high else f"{low:.{digits}f}–{high:.{digits}f} {unit}"


def seconds(value: float | None, bound: float) -> str:
    return f"> {bound:g} s ({BOUND_WORD} {bound:g} s)" if value is None else f"{value:.1f} s"


def _calls(calls: dict[str, int]) -> str:
    return ", ".join(f"{n} {name}" for name, n in calls.items())


def _thread_set(part: dict) -> str:
    return " and ".join(part.get("threads", [])) or "no thread seen"


_NUMBERED = re.compile(r"^(?P<head>.*'s thread) (?P<n>\d+)(?P<tail>.*)$")


def _by(parts: list[dict], unit: str) -> str:
    """Which threads made the calls: 'by T' when always the same, 'by T on 9 of 15 responses; U on 6', and
    a pool's threads taking turns as 'by the process's threads 1, 2 and 3 (5 of 15 responses each)'."""
    sets = [_thread_set(part) for part in parts]
    variants = _tally(sets)
    if len(variants) == 1:
        return f"by {sets[0]}"
    numbered = [_NUMBERED.match(text) for text, _ in variants]
    if len(variants) > 2 and all(numbered) and len({(m["head"], m["tail"]) for m in numbered}) == 1:
        numbers = sorted(int(m["n"]) for m in numbered)
        names = ", ".join(map(str, numbers[:-1])) + f" and {numbers[-1]}"
        counts = {k for _, k in variants}
        each = (f"{counts.pop()} of {len(sets)} {unit} each" if len(counts) == 1 else
                "; ".join(f"{m['n']}: {k}" for m, (_, k) in zip(numbered, variants)) + f" of {len(sets)} {unit}")
        return f"by {numbered[0]['head']}s {names}{numbered[0]['tail']} ({each})"
    return "by " + "; ".join(f"{text} on {k}" + (f" of {len(sets)} {unit}" if i == 0 else "")
                             for i, (text, k) in enumerate(variants))


def _split(request: dict) -> str:
    """How one response went out: its write calls and how they split the head and the body."""
    write = request.get("write", {})
    sizes = write.get("bytes", [])
    count = write.get("count", 0)
    head, body = request.get("head_bytes", 0), request.get("body_bytes", 0)
    if count == 1 and sizes and sizes[0] >= head + body:
        split = f"head and body together ({sizes[0]} B)"
    elif count == 2 and sizes[:1] == [head]:
        split = f"head ({sizes[0]} B), then body ({sizes[1]} B)"
    else:
        split = " + ".join(f"{b} B" for b in sizes) + f" for a {head} B head and a {body} B body"
    return f"{count} ({_calls(write.get('calls', {}))}): {split}"


def _reads(request: dict) -> str:
    read = request.get("read", {})
    empty = read.get("empty", 0)
    return (f"{read.get('count', 0)} ({_calls({k: v for k, v in read.get('calls', {}).items() if 'EAGAIN' not in k})})"
            + (f", and {empty} that found nothing yet (EAGAIN)" if empty else ""))


def _firsts(samples: list[dict], texts: list[str]) -> Callable[[str], str]:
    """Marks the variant that came exactly on each connection's first request (when others did not)."""
    firsts = {i for i, request in enumerate(samples) if request.get("new_connection")}

    def mark(text: str) -> str:
        mine = {i for i, t in enumerate(texts) if t == text}
        return " (each connection's first)" if mine == firsts and 0 < len(firsts) < len(samples) else ""
    return mark


def _same(a: dict, b: dict) -> bool:
    return all(a.get(k, {}).get(f) == b.get(k, {}).get(f) for k in ("read", "write") for f in ("calls", "threads"))


def _spanned(kinds: list[tuple[str, float | None]]) -> list[str]:
    """Samples as kinds of outcome with a duration slot ("answered after {}", 2.6): each sample's kind with the
    slot filled by the span of that kind's durations over all samples ("answered after 2.6–2.7 s")."""
    spans: dict[str, list[float]] = {}
    for kind, value in kinds:
        spans.setdefault(kind, [])
        if value is not None:
            spans[kind].append(value)
    return [kind.replace("{}", _span(spans[kind])) if spans[kind] else kind for kind, _ in kinds]


def _runs_word(count: int) -> str:
    return f"{count} run{'s' if count != 1 else ''}"


def _phase(phase: dict, bound: float) -> tuple[str, float | None]:
    """How a phase's connection ended, as a kind with a slot for when."""
    if phase["how"] == "closed after the response":
        return "closed by the server after each response (no keep-alive)", None
    if phase["after_s"] is None:
        never = " (never accepted: the worker was busy)" if phase.get("accepted") is False else ""
        return f"> {bound:g} s: {BOUND_WORD} {bound:g} s{never}", None
    who = phase.get("closer") or {}
    by = f", {who['call']} by {who['thread']}" if who else ""
    answer = f", after answering `{phase['answer']}`" if phase.get("answer") else ", nothing sent"
    return f"{{}} ({phase['how']}{by}{answer})", phase["after_s"]


def _slow_end(slow: dict, bound: float) -> tuple[str, float | None]:
    """How the slow client's request ended, as a kind with a slot for when."""
    if slow["answered_s"] is not None:
        return "answered after {}", slow["answered_s"]
    if slow.get("outcome") in ("closed unanswered", "reset"):
        who = slow.get("closer") or {}
        if who:  # the server's own close, not when the client (asleep between pieces) noticed it
            return (f"closed unanswered {{}} after connecting, the head incomplete ({who['call']} by {who['thread']})",
                    who["at_s"])
        return "closed unanswered after {}", slow["ended_s"]
    return f"not answered within {bound:g} s", None


def _latencies(values: list[float | None], bound: float) -> str:
    measured = [v for v in values if v is not None]
    parts = []
    if measured:
        parts.append(_span(measured, "ms", 1000, 0) if max(measured) < 1.0 else _span(measured))
    if len(measured) < len(values):
        parts.append(seconds(None, bound) + (f" ({len(values) - len(measured)} of {_runs_word(len(values))})"
                                             if measured else ""))
    return ", ".join(parts)


def _sees(term: dict, bound: float) -> tuple[str, float | None]:
    if term["client_sees"] == "open":
        return f"nothing after {seconds(None, bound)}", None
    return f"{term['client_sees']} after {{}}", term["client_after_s"]


def rows(trace: dict) -> list[Row]:
    bound = trace["bound_s"]
    every = requests(trace)
    out = []
    firsts = [r for r in every if r["new_connection"]]
    out.append(Row("accept", "accepts",
                   _often([f"{_thread_set(r.get('accept', {}))} ({_calls(r.get('accept', {}).get('calls', {}))})"
                           for r in firsts], "connections"), [None] * len(firsts)))
    reads = [_reads(r) for r in every]
    out.append(Row("reads", "reads per request",
                   f"{_often(reads, 'requests', _firsts(every, reads))}; {_by([r.get('read', {}) for r in every], 'requests')}",
                   [r.get("read", {}).get("count", 0) for r in every], count=True))
    writes = [_split(r) for r in every]
    out.append(Row("writes", "writes per response",
                   f"{_often(writes, 'responses', _firsts(every, writes))}; {_by([r.get('write', {}) for r in every], 'responses')}",
                   [r.get("write", {}).get("count", 0) for r in every], count=True))
    keeps, connections = [], []
    for run in runs(trace):
        count = len({r["connection"] for r in run["requests"]})
        connections.append(count)
        keeps.append(f"{len(run['requests'])} requests on one connection" if count == 1 else
                     f"{len(run['requests'])} requests took {count} connections: the server closed after each response")
    out.append(Row("keepalive", "keep-alive", _often(keeps, "runs"), connections, count=True))
    for phase, fact in (("idle", "idle keep-alive connection closed after"),
                        ("silent", "a connection that sends nothing closed after"),
                        ("stalled", "a head without its blank line closed after")):
        phases = [run[phase] for run in runs(trace)]
        out.append(Row(phase, fact, _often(_spanned([_phase(p, bound) for p in phases]), "runs"),
                       [p["after_s"] for p in phases]))
    slows = [run["slow"] for run in runs(trace)]
    slow_reads = [s["calls"].get("read", {}) for s in slows]
    others = [s["other_latency_s"] for s in slows]
    out.append(Row("slow", f"slow client: a head in {slows[0]['pieces']} pieces {slows[0]['gap_s']:g} s apart",
                   f"{_compact([str(r.get('count', 0)) for r in slow_reads])} reads {_by(slow_reads, 'runs')}; "
                   f"{_compact(_spanned([_slow_end(s, bound) for s in slows]))}; another client's request sent "
                   f"meanwhile answered in {_latencies(others, bound)}", others))
    terms = [run["sigterm"] for run in runs(trace)]
    opened = " or ".join(dict.fromkeys(t["open_connection"] for t in terms))
    out.append(Row("sigterm", f"SIGTERM, a connection open ({opened}): the client sees",
                   f"{_compact(_spanned([_sees(t, bound) for t in terms]))}; a new connection 0.2 s after the "
                   f"signal: {_compact([t['new_connection_after_0.2_s'] for t in terms])}",
                   [t["client_after_s"] for t in terms]))
    gone = [t["tree_gone_s"] for t in terms]
    out.append(Row("drain", "SIGTERM: the whole process tree gone after",
                   _often(_spanned([("{}", g) if g is not None else (seconds(None, bound), None) for g in gone]), "runs"),
                   gone))
    for row in out:
        if row.id in ("slow", "sigterm") and " runs)" not in row.text:
            row.text += f", in each of {_runs_word(len(runs(trace)))}" if len(runs(trace)) > 1 else ", in 1 run"
    return out


def count_words(row: Row) -> str:
    """The counts a row took, as a link's words: '2', '1 or 2', '1, 2 or 3'."""
    values = sorted({int(v) for v in row.values if v is not None})
    words = [str(v) for v in values] or ["?"]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def caption(trace: dict) -> str:
    versions = ", ".join(f"{k} {v}" for k, v in trace["versions"].items())
    count = len(runs(trace))
    sampled = (f"{count} runs, each a fresh process serving {trace.get('requests_per_run', len(runs(trace)[0]['requests']))} "
               f"requests on a keep-alive connection" if count > 1 else "one run")
    go = (" Goroutines move between the runtime's threads: which thread makes a call is not fixed, only that "
          "one does." if any("Go runtime thread" in r.text for r in rows(trace)) else "")
    return (f"Measured on {versions} (`{trace['command']}`, {trace['date']}: `{trace['entry']}` with one worker, "
            f"{sampled}, strace -f on its process tree; a busy 2-core machine, {trace['machine']}). A fact that "
            f"varied between samples is given as each thing seen and how often.{go}")


def table(trace: dict) -> str:
    lines = ["| fact | measured |", "|---|---|"]
    for row in rows(trace):
        lines.append(f'| <a id="trace-{row.id}"></a>{row.fact} | {row.text.replace("|", "/")} |')
    return "\n".join(lines)


def _alias(thread: str, aliases: dict[str, str]) -> str:
    if thread not in aliases:
        aliases[thread] = f"T{len(aliases) + 1}"
    return aliases[thread]


def _step(step: dict, aliases: dict[str, str]) -> str:
    who = _alias(step["thread"], aliases)
    times = f" ×{step['times']}" if step["times"] > 1 else ""
    if step["kind"] == "write":
        sizes = " + ".join(f"{b} B" for b in step["bytes"])
        return f"    {who}->>C: {step['call']}{times} ({sizes})"
    if step["kind"] == "close":
        return f"    {who}->>C: {step['call']}{times}"
    return f"    {who}->>{who}: {step['call']}{times}"


def _requests_word(numbers: list[int]) -> str:
    return f"request {numbers[0]}" if len(numbers) == 1 else f"requests {', '.join(map(str, numbers))}"


def diagram(trace: dict) -> str:
    """The first run's keep-alive requests' calls in order (a request like the one before it folded into a
    note), then how its idle connection and SIGTERM end; the table has every run."""
    run = runs(trace)[0]
    aliases: dict[str, str] = {}
    body: list[str] = []
    previous = None
    folded: list[int] = []
    for request in run["requests"]:
        if previous is not None and _same(previous, request) and request["new_connection"] == previous["new_connection"]:
            folded.append(request["n"])
            continue
        if folded:
            body.append(f"    Note over C: {_requests_word(folded)}: the same calls")
            folded = []
        if request["new_connection"]:
            body.append(f"    C->>{_alias(request['sequence'][0]['thread'], aliases) if request['sequence'] else 'C'}: "
                        f"connect (connection {request['connection']})")
        for i, step in enumerate(request["sequence"]):
            if step["kind"] == "read" and (i == 0 or request["sequence"][i - 1]["kind"] == "accept"):
                body.append(f"    C->>{_alias(step['thread'], aliases)}: GET / (request {request['n']})")
            body.append(_step(step, aliases))
        previous = request
    if folded:
        body.append(f"    Note over C: {_requests_word(folded)}: the same calls")
    idle = run["idle"]
    bound = trace["bound_s"]
    if idle["how"] != "closed after the response":
        if idle["after_s"] is None:
            body.append(f"    Note over C: idle keep-alive: still open after {bound:g} s")
        else:
            who = idle.get("closer", {})
            if who:
                body.append(f"    {_alias(who['thread'], aliases)}->>C: {who['call']} after {idle['after_s']:.1f} s idle")
            else:
                body.append(f"    Note over C: idle keep-alive: {idle['how']} after {idle['after_s']:.1f} s")
    term = run["sigterm"]
    sees = "nothing" if term["client_sees"] == "open" else term["client_sees"]
    body.append(f"    Note over C: SIGTERM ({term['open_connection']} open): the client sees {sees} after "
                f"{seconds(term['client_after_s'], bound).split(' (')[0]}, the tree is gone after "
                f"{seconds(term['tree_gone_s'], bound).split(' (')[0]}")
    if len(runs(trace)) > 1:
        body.append(f"    Note over C: run 1 of {len(runs(trace))} drawn (the table counts every run)")
    head = ["```mermaid", "sequenceDiagram", "    participant C as client"]
    head += [f"    participant {alias} as {thread}" for thread, alias in aliases.items()]
    return "\n".join(head + body + ["```"])


def block(trace: dict) -> str:
    return f"{caption(trace)}\n\n{table(trace)}\n\n{diagram(trace)}\n"


LINK = re.compile(r"\[(?P<text>[^\]]+)\]\(#trace-(?P<id>[\w-]+)\)")
OUTCOMES = ("served", "refused", "reset", "unanswered", "FIN", "RST")  # how a connection ended, as rows say it
_NUMBER = re.compile(r"(?P<more>>\s*)?(?P<n>\d+(?:\.\d+)?)\s*(?P<unit>ms\b|s\b)?")


def _holds(claim: float, more: bool, value: float | None, bound: float) -> bool:
    """Whether a duration claim is borne out by one sample."""
    if value is None:
        return more or claim >= bound
    if more:
        return value > claim
    return abs(claim - value) <= tolerance(value)


def contradictions(prose: str, trace: dict) -> list[str]:
    """Each link of prose to a trace row (`[closed after 5 s](#trace-idle)`) whose numbers the row's
    samples do not bear out: a count must be one the row took, and a link to a row whose count varied must
    name every count it took ("[1 or 2 writes]"); a duration must hold for every run (within 0.5 s or 15 %),
    and "> N s" only where nothing was measured up to the bound; an outcome ("[still served]", "[reset]")
    must be one the row saw."""
    by_id = {row.id: row for row in rows(trace)}
    problems = []
    for link in LINK.finditer(prose):
        row = by_id.get(link["id"])
        if row is None:
            problems.append(f"{link[0]}: no row trace-{link['id']} (rows: {', '.join(by_id)})")
            continue
        numbers = [(float(n["n"]) / (1000 if n["unit"] == "ms" else 1), bool(n["more"]))
                   for n in _NUMBER.finditer(link["text"])]
        if row.count:
            seen = {v for v in row.values if v is not None}
            ok = all(claim in seen for claim, _ in numbers) and (not numbers or not row.varied
                                                                   or seen <= {claim for claim, _ in numbers})
        else:
            ok = all(_holds(claim, more, value, trace["bound_s"]) for claim, more in numbers for value in row.values)
        ok = ok and all(word in row.text for word in OUTCOMES if re.search(rf"\b{word}\b", link["text"]))
        if not ok:
            problems.append(f"{link[0]}: the trace measured {row.text!r}")
    return problems


COMPARED = ("idle", "silent", "stalled")  # the durations a fresh trace must repeat; the rest vary with load


def disagreements(stored: dict, fresh: dict) -> list[str]:
    """Where a fresh trace falls outside what the stored one's samples show: a count the stored samples
    never took (a fact stored as a constant that varies, or a new variant: record more samples), or a
    timeout no stored run came near."""
    problems = []
    for old, new in zip(rows(stored), rows(fresh)):
        if old.count:
            unseen = sorted({v for v in new.values} - {v for v in old.values})
            if unseen:
                problems.append(f"{stored['entry']} {old.id}: the fresh trace took {unseen}, never among the stored "
                                f"samples ({old.text!r}): re-record with more samples")
        elif old.id in COMPARED:
            for value in new.values:
                near = [v for v in old.values if (v is None) == (value is None)
                        and (v is None or abs(v - value) <= tolerance(v))]
                if not near:
                    problems.append(f"{stored['entry']} {old.id}: fresh {value!r} s, stored {old.text!r}")
    return problems
