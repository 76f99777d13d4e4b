"""A stored wire trace (anatomy.tracedata) as a page's facts: a table "measured on VERSIONS" whose rows
carry anchors (`#trace-writes`, ...) that the prose points at, and a Mermaid sequence diagram drawn from
the traced calls. rows() is the one home of each fact's value: the table shows it and the tests check
the prose's links against it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

BOUND_WORD = "not closed within"


@dataclass
class Row:
    id: str  # the anchor: #trace-ID
    fact: str
    text: str
    value: float | None  # the number a link to this row may state (None: none was measured)
    count: bool = False  # an exact count (syscalls), not a duration


def seconds(value: float | None, bound: float) -> str:
    return f"> {bound:g} s ({BOUND_WORD} {bound:g} s)" if value is None else f"{value:.1f} s"


def _calls(calls: dict[str, int]) -> str:
    return ", ".join(f"{n} {name}" for name, n in calls.items())


def _threads(part: dict) -> str:
    return " and ".join(part.get("threads", [])) or "no thread seen"


def _writes(request: dict) -> tuple[str, int]:
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
    return f"{count} ({_calls(write.get('calls', {}))}): {split}; by {_threads(write)}", count


def _same(a: dict, b: dict) -> bool:
    return all(a.get(k, {}).get(f) == b.get(k, {}).get(f) for k in ("read", "write") for f in ("calls", "threads"))


def _closed(phase: dict, bound: float) -> str:
    if phase["how"] == "closed after the response":
        return "closed by the server after each response (no keep-alive)"
    if phase["after_s"] is None:
        text = f"> {bound:g} s: {BOUND_WORD} {bound:g} s"
        if phase.get("accepted") is False:
            text += " (never accepted: the worker was busy)"
        return text
    who = phase.get("closer") or {}
    by = f", {who['call']} by {who['thread']}" if who else ""
    answer = f", after answering `{phase['answer']}`" if phase.get("answer") else ", nothing sent"
    return f"{phase['after_s']:.1f} s ({phase['how']}{by}{answer})"


def _slow_end(slow: dict, bound: float) -> str:
    if slow["answered_s"] is not None:
        return f"answered after {slow['answered_s']:.1f} s"
    if slow.get("outcome") in ("closed unanswered", "reset"):
        who = slow.get("closer") or {}
        if who:  # the server's own close, not when the client (asleep between pieces) noticed it
            return f"closed unanswered {who['at_s']:.1f} s after connecting, the head incomplete ({who['call']} by {who['thread']})"
        return f"closed unanswered after {slow['ended_s']:.1f} s"
    return f"not answered within {bound:g} s"


def rows(trace: dict) -> list[Row]:
    bound = trace["bound_s"]
    requests = trace["requests"]
    first = requests[0]
    out = [Row("accept", "accepts", f"{_threads(first.get('accept', {}))} ({_calls(first.get('accept', {}).get('calls', {}))})",
               None)]
    read = first.get("read", {})
    empty = read.get("empty", 0)
    out.append(Row("reads", "reads per request",
                   f"{read.get('count', 0)} ({_calls({k: v for k, v in read.get('calls', {}).items() if 'EAGAIN' not in k})})"
                   + (f", and {empty} that found nothing yet (EAGAIN)" if empty else "") + f"; by {_threads(read)}",
                   read.get("count", 0), count=True))
    text, count = _writes(first)
    out.append(Row("writes", "writes per response", text, count, count=True))
    connections = len({r["connection"] for r in requests})
    if connections == 1:
        keep = f"{len(requests)} requests on one connection"
    else:
        keep = f"{len(requests)} requests took {connections} connections: the server closed after each response"
    differ = [r["n"] for r in requests[1:] if not _same(first, r)]
    keep += (f"; requests {', '.join(map(str, differ))} differ from the first (see the diagram)" if differ
             else "; every request the same calls on the same threads")
    out.append(Row("keepalive", "keep-alive", keep, connections, count=True))
    for phase, fact in (("idle", "idle keep-alive connection closed after"),
                        ("silent", "a connection that sends nothing closed after"),
                        ("stalled", "a head without its blank line closed after")):
        out.append(Row(phase, fact, _closed(trace[phase], bound), trace[phase]["after_s"]))
    slow = trace["slow"]
    reads = slow["calls"].get("read", {})
    other = slow["other_latency_s"]
    out.append(Row("slow", f"slow client: a head in {slow['pieces']} pieces {slow['gap_s']:g} s apart",
                   f"{reads.get('count', 0)} reads by {_threads(reads)}; {_slow_end(slow, bound)}; another client's request sent meanwhile answered in "
                   f"{seconds(other, bound) if other is None or other >= 0.05 else f'{other * 1000:.0f} ms'}",
                   other))
    term = trace["sigterm"]
    sees = ("nothing" if term["client_sees"] == "open" else term["client_sees"])
    out.append(Row("sigterm", f"SIGTERM, a connection open ({term['open_connection']}): the client sees",
                   f"{sees} after {seconds(term['client_after_s'], bound)}; a new connection 0.2 s after the "
                   f"signal: {term['new_connection_after_0.2_s']}", term["client_after_s"]))
    out.append(Row("drain", "SIGTERM: the whole process tree gone after", seconds(term["tree_gone_s"], bound),
                   term["tree_gone_s"]))
    return out


def caption(trace: dict) -> str:
    versions = ", ".join(f"{k} {v}" for k, v in trace["versions"].items())
    go = (" Goroutines move between the runtime's threads: which thread makes a call is not fixed, only that "
          "one does." if any("Go runtime thread" in r.text for r in rows(trace)) else "")
    return (f"Measured on {versions} (`{trace['command']}`, {trace['date']}: `{trace['entry']}` with one worker, "
            f"strace -f on its process tree; a busy 2-core machine, {trace['machine']}).{go}")


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
    """The keep-alive requests' calls in order (a request like the one before it folded into a note), then
    how the idle connection and SIGTERM end."""
    aliases: dict[str, str] = {}
    body: list[str] = []
    previous = None
    folded: list[int] = []
    for request in trace["requests"]:
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
    idle = trace["idle"]
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
    term = trace["sigterm"]
    sees = "nothing" if term["client_sees"] == "open" else term["client_sees"]
    body.append(f"    Note over C: SIGTERM ({term['open_connection']} open): the client sees {sees} after "
                f"{seconds(term['client_after_s'], bound).split(' (')[0]}, the tree is gone after "
                f"{seconds(term['tree_gone_s'], bound).split(' (')[0]}")
    head = ["```mermaid", "sequenceDiagram", "    participant C as client"]
    head += [f"    participant {alias} as {thread}" for thread, alias in aliases.items()]
    return "\n".join(head + body + ["```"])


def block(trace: dict) -> str:
    return f"{caption(trace)}\n\n{table(trace)}\n\n{diagram(trace)}\n"


LINK = re.compile(r"\[(?P<text>[^\]]+)\]\(#trace-(?P<id>[\w-]+)\)")
_NUMBER = re.compile(r"(?P<more>>\s*)?(?P<n>\d+(?:\.\d+)?)\s*(?P<unit>ms\b|s\b)?")


def contradictions(prose: str, trace: dict) -> list[str]:
    """Each link of prose to a trace row (`[closed after 5 s](#trace-idle)`) whose numbers the row does
    not bear out: a count must be the row's, a duration within 0.5 s or 15 % of it, and "> N s" only where
    nothing was measured up to the bound."""
    by_id = {row.id: row for row in rows(trace)}
    problems = []
    for link in LINK.finditer(prose):
        row = by_id.get(link["id"])
        if row is None:
            problems.append(f"{link[0]}: no row trace-{link['id']} (rows: {', '.join(by_id)})")
            continue
        for number in _NUMBER.finditer(link["text"]):
            claim = float(number["n"]) / (1000 if number["unit"] == "ms" else 1)
            if row.count:
                ok = row.value is not None and claim == row.value
            elif row.value is None:
                ok = bool(number["more"]) or claim >= trace["bound_s"]
            elif number["more"]:
                ok = row.value > claim
            else:
                ok = abs(claim - row.value) <= max(0.5, 0.15 * row.value)
            if not ok:
                problems.append(f"{link[0]}: the trace measured {row.text!r}")
    return problems
