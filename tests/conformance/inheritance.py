"""What it means that a framework stack agrees with its parser owner on a case it inherits.

The owner answers in reflect mode: each reflection says which request its server parsed (its target and
method, its body's length). The framework stack answers the same case in contract mode. They agree when
the framework's answers are the route contract's answers to the requests the owner's server parsed, in
the same order, a refusal where the owner refused, the same protocol switch, and the same end (closed,
kept, held). Two allowances, both because the framework's app never reads a body its route does not take:
- where the owner's app read a body, the framework's server may close right after answering that request
  instead of draining the body: what follows is not observed, and the cell agrees as far as it goes;
- where the owner's server refused, failed (5xx), closed or held the connection once its app read a broken or
  endless body, the framework's app may first answer the head (the server finds the error only when it drains
  the body), the refusal then following or not, and the connection closed.
"""
from __future__ import annotations

import re

from . import verdict

_REFLECTED = re.compile(r"(\d{3})>([^:@]*)(?::(\d+))?(?:@(.+))?")
STATES = ("closed", "kept", "held")


def _contract(label: str, method: str) -> frozenset[int] | None:
    """The route contract's statuses for the request the owner reflected (label: its target past /reflect/)."""
    if label == "probe":
        return frozenset({200})  # the contract mode's probe is GET /
    path = "/" if label in ("/", "") or label.startswith("?") else "/" + label
    if label == "?" or " " in label:
        return None
    if path.split("?")[0] in ("/", "/json"):
        return frozenset({200} if method in ("GET", "HEAD") else {405})
    return frozenset({404})


def owed(owner_answers: str) -> tuple[list[tuple[frozenset[int] | None, str, bool]], str]:
    """The framework's answers the owner's imply: (statuses or None for any app answer, kind, a body was read)
    per answer, and the end state."""
    tokens = [t for t in owner_answers.split() if t != "dead"]  # a crash afterwards: the state is before it
    state = tokens[-1] if tokens and tokens[-1] in STATES else ""
    out = []
    for token in tokens:
        found = _REFLECTED.fullmatch(token)
        if found:
            out.append((_contract(found.group(2), found.group(4) or "GET"), "answer", bool(found.group(3))))
        elif token.isdigit() and int(token) >= 200:
            status = int(token)
            kind = "refusal" if status in verdict.REFUSALS else "error" if status >= 500 else "answer"
            out.append((frozenset({status}) if kind != "answer" else None, kind, False))
        elif token in ("101", "h2"):
            out.append((None, token, False))
    return out, state


def disagreement(owner_answers: str, framework_answers: str) -> str:
    """"" where they agree (as far as the framework's answers go), else how they differ."""
    wanted, owner_state = owed(owner_answers)
    tokens = [t for t in framework_answers.split() if t != "dead"]
    state = tokens[-1] if tokens and tokens[-1] in STATES else ""
    got = [t for t in tokens if t.isdigit() and int(t) >= 200 or t in ("101", "h2")]
    i = 0
    for k, (statuses, kind, body) in enumerate(wanted):
        if i >= len(got):
            previous_body = k > 0 and wanted[k - 1][2]
            if state == "closed" and previous_body:
                return ""  # closed instead of draining a body the app left unread: not observed past it
            return f"answered {len(got)} where the owner's server parsed {len(wanted)} ({owner_answers})"
        token = got[i]
        if kind in ("101", "h2"):
            ok = token == kind
        elif kind in ("refusal", "error"):
            if token.isdigit() and int(token) not in verdict.REFUSALS and int(token) < 500 and (
                    i + 1 == len(got) or int(got[i + 1]) in verdict.REFUSALS or int(got[i + 1]) >= 500):
                i += 1  # the app answered the head first; the refusal (or the error) may follow
                if i >= len(got):
                    return "" if state == "closed" else "answered the head, then neither refused nor closed"
                token = got[i]
            ok = token.isdigit() and (int(token) in verdict.REFUSALS if kind == "refusal" else int(token) >= 500)
        elif statuses is None:
            ok = token.isdigit() and int(token) not in verdict.REFUSALS and int(token) < 500
        else:
            ok = token.isdigit() and int(token) in statuses
        if not ok:
            return (f"answer {i + 1} is {token}, the contract's answer to what the owner's server parsed is "
                    f"{kind if statuses is None else '/'.join(map(str, sorted(statuses)))} ({owner_answers})")
        i += 1
    if i < len(got):
        head = got[i]
        if (i + 1 == len(got) and state == "closed" and owner_state in ("closed", "held") and head.isdigit()
                and int(head) not in verdict.REFUSALS and int(head) < 500):
            return ""  # the owner's app was reading a body its server closed or held on; this app answered the head
        return f"{len(got) - i} answers more than the owner's server parsed requests ({owner_answers})"
    if state != owner_state and not (state == "closed" and wanted and wanted[-1][2]):
        return f"ends {state}, the owner's {owner_state} ({owner_answers})"
    return ""
