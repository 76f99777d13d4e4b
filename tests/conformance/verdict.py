"""The verdict of one case: the server's answers against the reference's framings of the same bytes.

A case rendered in a mode (Setup) is framed by the reference (reference.framings) with the probe that
follows it, and each framing gives the answers a server that frames so owes (expected()): a reflection
of each request (contract mode: the route contract's status), a refusal for a request the RFC says to
refuse, then the close where the RFC says close. The observed answers (observe.py) are held to each
framing (match()), and judge() derives one effect by the rules below, worst first:

- desync: the server framed the stream otherwise than a conforming recipient may (the strict framing or
  one the RFC permits) and a request boundary moved: a body read short or long, a body taken as a request,
  a request swallowed, an answer before the message ended, a request more than the stream holds. Only
  where a conforming front could have forwarded those bytes (valid input, or input the RFC lets a
  recipient repair); on input every conforming recipient refuses it is accepts-invalid.
- crash: a 5xx that is no refusal (500, 502, 503, 504), or the server no longer answers afterwards.
- stall: fewer answers than the requests the stream holds by the deadline, the connection neither answered
  nor closed (or answered only once more bytes came).
- accepts-invalid: input every conforming recipient refuses, served instead (framed as a named leniency
  of reference.LENIENCIES frames it, or as none does, which the reading says); a request served as another
  (a 2xx where the route contract has a 4xx: `get` served as GET); a connection switched to HTTP/2.
- no-close: a connection the RFC says to close after an answer was kept: the probe written after the answers
  was answered (never taken from a header).
- over-strict: a valid request refused, closed on without an answer, answered as another target, or answered
  with bytes no HTTP/1.1 client reads (content after an answer to HEAD is a desync instead).
- not-observed: answered without what decides the framing being seen (the app answered without reading
  the body and the server closed): counted apart, never a pass.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import cases, observe, reference
from .observe import HELD, Observation, Response, sha256

PASS = "pass"
DESYNC, CRASH, STALL, ACCEPTS_INVALID = "desync", "crash", "stall", "accepts-invalid"
NO_CLOSE, OVER_STRICT, NOT_OBSERVED = "no-close", "over-strict", "not-observed"
MISREAD = "misread"
PRECEDENCE = (DESYNC, MISREAD, CRASH, STALL, ACCEPTS_INVALID, NO_CLOSE, OVER_STRICT, NOT_OBSERVED)  # worst first
EFFECTS = (DESYNC, MISREAD, ACCEPTS_INVALID, STALL, CRASH, NO_CLOSE, OVER_STRICT, NOT_OBSERVED)  # the page's order
FAIL = "fail"
# The effects of an owner's smuggling-relevant cell that make it run again behind each front (a refusal alone, or
# a framing never observed, has nothing for a front to close)
FRONTED = (DESYNC, MISREAD, ACCEPTS_INVALID, STALL, CRASH, NO_CLOSE)
# A server's refusals (RFC 9110 15.5, 15.6.2, 15.6.6); 404 and 405 are the app's (the route contract)
REFUSALS = frozenset((400, 408, 411, 413, 414, 417, 421, 431, 501, 505))
HELLO = b"Hello, World!"
# The probe's version as an interface hands it to the app: the request line's (WSGI, tornado), ASGI's and RSGI's
# http_version ("1.1"), Sanic's request.version
PROBE_VERSIONS = frozenset((b"HTTP/1.1", b"1.1"))


@dataclass
class Setup:
    """One case rendered in one mode, with the reference's framings of its bytes and the probe after them."""

    case: cases.Case
    mode: str
    parts: tuple[bytes, ...]
    probe: bytes | None
    stream: bytes
    framings: reference.Framings
    ends: list[int]  # offset after each part
    labels: dict[str, str] = field(default_factory=dict)  # sha256 of a target -> a short name

    @property
    def awaited(self) -> int:
        """The answers to wait for before probing: the strict framing's, the probe's not counted."""
        strict = self.framings.strict
        requests = [r for r in strict.processed if r.start < len(self.stream) - len(self.probe or b"")]
        return len(requests) + (1 if strict.error else 0)

    @property
    def methods(self) -> list[bytes]:
        return [r.method for r in self.framings.strict.requests]

    def probe_answered(self, response: Response) -> bool:
        """The probe's own answer: its whole reflection (method, target, version, no body), not a request that
        ends in the probe's target (`XGET /reflect/probe`: bytes glued in front of it)."""
        if self.mode == cases.REFLECT:
            found = response.reflection
            return (bool(found) and found.target_sha256 == sha256(_target(self.probe)) and found.method == b"GET"
                    and found.version in PROBE_VERSIONS and found.body_length == 0)
        return response.status == 200 and response.body == HELLO

    def part_of(self, offset: int) -> int:
        """How many parts must be written for the byte before offset to be sent."""
        return next((i + 1 for i, end in enumerate(self.ends) if offset <= end), len(self.ends) + 1)


def _target(request_bytes: bytes) -> bytes:
    return request_bytes.split(b" ", 2)[1]


_SETUPS: dict[tuple[str, str], Setup] = {}


def setup(case: cases.Case, mode: str) -> Setup:
    key = (case.id, mode)
    if key not in _SETUPS:
        parts = case.parts(mode)
        probe = None if case.eof else cases.probe(mode)
        stream = b"".join(parts) + (probe or b"")
        found = reference.framings(stream, case.leniencies)
        for framing in found.all():
            framing.essential = reference.essential(stream, framing)
        if case.may_refuse:
            for framing in found.all():
                first = framing.requests[0] if framing.requests else framing.pending
                if first is not None and not first.may_refuse:
                    first.may_refuse = case.may_refuse
        ends, total = [], 0
        for part in parts:
            total += len(part)
            ends.append(total)
        labels = {sha256(target): _label(target) for target in re.findall(rb"(?m)^\r?[A-Za-z@]+[ \t]+(\S+)[ \t]", stream)}
        for framing in found.all():
            for request in framing.requests:
                labels.setdefault(sha256(request.target), _label(request.target))
                labels.setdefault(sha256(request.path), _label(request.path))
        body_target = cases.body(mode).split(b" ")[1]
        labels.setdefault(sha256(body_target), _label(body_target))
        _SETUPS[key] = Setup(case, mode, parts, probe, stream, found, ends, labels)
    return _SETUPS[key]


def _label(target: bytes) -> str:
    text = target.decode("latin-1")
    for prefix in ("/reflect/", "/reflect"):
        if text.startswith(prefix):
            text = text[len(prefix):] or "/"
            break
    return text if len(text) < 24 else text[:20] + "..."


# ---------------------------------------------------------------------------- what a framing owes

@dataclass
class Expect:
    kind: str  # "serve", "refuse", "head" (contract mode: the app may answer a head whose body is broken)
    request: reference.Request | None
    refusable: bool = False
    optional: bool = False
    after_close: bool = False  # past the point where the RFC closes the connection


def expected(framing: reference.Framing, mode: str, eof: bool) -> list[Expect]:
    out = []
    for index, request in enumerate(framing.requests):
        after = framing.close_after is not None and index > framing.close_after
        if request.refusal:
            out.append(Expect("refuse", request, after_close=after))
        else:
            out.append(Expect("serve", request, refusable=bool(request.may_refuse), after_close=after))
    after = framing.close_after is not None
    if framing.error:
        pending = framing.pending
        if pending is not None and framing.error.in_body and mode == cases.CONTRACT:
            out.append(Expect("head", pending, optional=True, after_close=after))
            out.append(Expect("refuse", pending, optional=True, after_close=after))
        else:
            out.append(Expect("refuse", pending, optional=eof, after_close=after))
    elif framing.incomplete and framing.pending is not None:
        # waiting for the rest is right; so is refusing what it cannot take, and (at EOF) closing; in contract
        # mode the app may answer the head before the server reads the body
        if mode == cases.CONTRACT:
            out.append(Expect("head", framing.pending, optional=True, after_close=after))
        out.append(Expect("refuse", framing.pending, optional=True, after_close=after))
    return out


def closes_at_end(framing: reference.Framing) -> bool:
    """The RFC has the connection closed once the processed requests are answered."""
    return framing.close_after is not None or bool(framing.error and framing.error.must_close)


# ---------------------------------------------------------------------------- holding answers to a framing

@dataclass
class Item:
    """One answer: a response, or the protocol switch that ended the HTTP/1.1 reading."""

    response: Response | None
    switched: str = ""

    @property
    def status(self) -> int:
        return self.response.status if self.response else 101

    @property
    def reflection(self):
        return self.response.reflection if self.response else None

    def is_refusal(self) -> bool:
        return self.response is not None and self.status in REFUSALS and not self.reflection

    def is_error(self) -> bool:
        return self.response is not None and self.status >= 500 and self.status not in REFUSALS


def answers_of(seen: Observation) -> list[Item]:
    return items(seen)


def items(seen: Observation) -> list[Item]:
    found = [Item(r) for r in seen.responses]
    if seen.stream.switched:
        found.append(Item(None, seen.stream.switched))
    return found


def reflect_target(request: reference.Request) -> bool:
    return request.path.startswith(cases.PREFIX[cases.REFLECT].rstrip(b"/"))


def contract_statuses(request: reference.Request) -> frozenset[int] | None:
    """The route contract's status for a request (None: any answer of the app's own)."""
    if request.target == b"*" or request.method == b"CONNECT" or not request.path.startswith(b"/"):
        return None
    path = request.path.split(b"?")[0]
    if path in (b"/", b"/json"):
        return frozenset({200} if request.method in (b"GET", b"HEAD") else {405})
    return frozenset({404})


def serves(item: Item, request: reference.Request, setup_: Setup) -> str:
    """"" if the item is the answer a server owes this request, else how it differs."""
    if request.switches:
        return "" if item.switched else "no protocol switch"
    if item.switched:
        return f"switched protocols ({item.switched})"
    if setup_.mode == cases.REFLECT and reflect_target(request):
        found = item.reflection
        if found is None:
            return f"answered {item.status} without a reflection"
        if found.target_sha256 not in (sha256(request.target), sha256(request.path)):
            return f"served {setup_.labels.get(found.target_sha256, 'an unknown target')}"
        if found.method != request.method:
            return f"served {request.method.decode('latin-1')} as {_label(found.method)}"
        if found.body_length != len(request.body) or found.body_sha256 != sha256(request.body):
            return (f"read {found.body_length} body bytes where the message has {len(request.body)}"
                    if found.body_length != len(request.body) else "read another body of the same length")
        if request.end <= setup_.ends[-1] and item.response.parts_before < setup_.part_of(request.end):
            return "answered before its message ended"
        return ""
    if item.is_refusal() or item.is_error() or item.reflection:
        return f"answered {item.status}" + (" with a reflection" if item.reflection else "")
    wanted = contract_statuses(request) if setup_.mode == cases.CONTRACT else None
    if wanted is not None and item.status not in wanted:
        return f"answered {item.status}, the contract's is {'/'.join(map(str, sorted(wanted)))}"
    return ""


@dataclass
class Match:
    kind: str  # "full", "kept", "held", "closed-early", "stall", "diverge", "extra"
    at: int  # index in the expected list where it stopped (matched items before it)
    item: int  # index in the answers
    why: str = ""  # how the answer at the divergence differs
    framing: reference.Framing | None = None
    refused: list[reference.Request] = field(default_factory=list)  # valid requests refused (allowed)
    expected: list[Expect] = field(default_factory=list)
    error_refused: bool = False  # the framing's error got its refusal


def match(answers: list[Item], seen: Observation, framing: reference.Framing, setup_: Setup) -> Match:
    wanted = expected(framing, setup_.mode, setup_.case.eof)
    refused: list[reference.Request] = []
    i = k = 0

    error_refused = False

    def result(kind: str, why: str = "") -> Match:
        return Match(kind, k, i, why, framing, refused, wanted, error_refused)

    while k < len(wanted) and not wanted[k].after_close:
        want = wanted[k]
        if i >= len(answers):
            if want.optional:
                k += 1
                continue
            return result("stall" if seen.state == HELD and not (want.refusable and framing.incomplete) else "closed-early")
        item = answers[i]
        if want.kind == "serve":
            why = serves(item, want.request, setup_)
            if not why or (want.refusable and item.is_refusal()):
                if why:
                    refused.append(want.request)
                i, k = i + 1, k + 1
                continue
        elif want.kind == "refuse":
            if item.is_refusal():
                error_refused = error_refused or want.request is None or want.request.refusal is None
                i, k = i + 1, k + 1
                continue
            why = f"answered {item.status}" + (" with a reflection" if item.reflection else "")
        else:  # head: the app's answer before the server finds the broken body
            if not (item.is_error() or item.switched):
                i, k = i + 1, k + 1
                continue
            why = f"answered {item.status}"
        if want.optional:
            k += 1
            continue
        return result("diverge", why)
    if i < len(answers):
        if framing.error and framing.close_after is None and not error_refused:
            return result("extra", "answered past invalid framing it did not refuse")
        if k < len(wanted) or closes_at_end(framing):
            # Past the close a server that kept the connection owes what follows as this framing frames it: an
            # answer that is none of that answers bytes that are no request here (a body read as one)
            while i < len(answers) and k < len(wanted):
                want, item = wanted[k], answers[i]
                if want.kind == "serve":
                    why = serves(item, want.request, setup_)
                    fits = not why or (want.refusable and item.is_refusal())
                else:
                    fits = item.is_refusal() if want.kind == "refuse" else not (item.is_error() or item.switched)
                    why = f"answered {item.status}"
                if fits:
                    i, k = i + 1, k + 1
                    continue
                if want.optional:
                    k += 1
                    continue
                return result("kept-body", why)
            if i < len(answers) and not framing.error:
                return result("kept-body", f"answered {len(answers) - i} more than the stream holds")
            return result("kept")
        return result("extra")
    if seen.state == HELD and (closes_at_end(framing) or framing.incomplete):
        return result("held")  # the connection stays open past our EOF where it ends, or where the message never does
    return result("full")


# ---------------------------------------------------------------------------- the judgement

@dataclass
class Judgement:
    verdict: str  # PASS, FAIL, NOT_OBSERVED
    effect: str | None  # None for a pass, else one of EFFECTS
    reading: str  # what the server did, in words
    answers: str  # the answers as tokens, then the connection's state: what a record pins
    close: str  # the connection's state: closed, kept, held, reset

    def cell(self) -> dict:
        return {"answers": self.answers, "verdict": self.verdict, "effect": self.effect, "reading": self.reading,
                "close": self.close}


def answer_tokens(seen: Observation, setup_: Setup) -> str:
    if seen.connect_error:
        return "connect-error"
    tokens = []
    interim = [(b, s) for s, b in zip(seen.stream.interim, seen.stream.interim_before) if s != 101]
    for index, response in enumerate(seen.responses):
        tokens += [str(s) for b, s in interim if b == index]
        if response.reflection:
            label = setup_.labels.get(response.reflection.target_sha256, "?")
            size, method = response.reflection.body_length, response.reflection.method
            tokens.append(f"{response.status}>{label}" + (f":{size}" if size else "")
                          + (f"@{_label(method)}" if method != b"GET" else ""))
        else:
            tokens.append(str(response.status))
    tokens += [str(s) for b, s in interim if b >= len(seen.responses)]
    if seen.stream.switched:
        tokens.append("h2" if seen.stream.switched == "http2" else "101")
    if seen.stream.malformed:
        tokens.append("malformed")
    if seen.stalled:
        tokens.append("stall")
    tokens.append(seen.state or "?")
    return " ".join(tokens)


def _valid_here(want: Expect | None) -> bool:
    return want is not None and want.kind == "serve"


def judge(setup_: Setup, seen: Observation) -> Judgement:
    """One effect for what the server did with the case's bytes (the module's rules), and its reading."""
    answers_text = answer_tokens(seen, setup_)
    if seen.connect_error:
        return Judgement(FAIL, CRASH, f"could not connect: {seen.connect_error}", answers_text, "")
    answers = items(seen)
    findings: list[tuple[str, str]] = []
    framings = setup_.framings
    conforming = [match(answers, seen, f, setup_) for f in framings.conforming]
    lenient = [match(answers, seen, f, setup_) for f in framings.lenient]
    errors = [a for a in answers if a.is_error()]
    if errors:
        findings.append((CRASH, f"answered {errors[0].status}"))
    findings += _interim(seen, setup_) + _tunnel(seen, setup_)
    if seen.stream.malformed:
        last = len(seen.responses) - 1
        heads = [r for r in seen.responses if (r.reflection.method if r.reflection else b"") == b"HEAD"]
        if heads or (last >= 0 and seen.responses[last].reflection is None and last < len(setup_.methods)
                     and setup_.methods[last] == b"HEAD"):  # content after an answer to HEAD: the client reads it as the next response
            findings.append((DESYNC, "sent content in its answer to HEAD: the next answer is out of step"))
        else:
            findings.append((OVER_STRICT if framings.forwarded else ACCEPTS_INVALID,
                             f"answered with bytes that are no HTTP/1.1 response ({seen.stream.malformed})"))
    explained = _explained(conforming, seen, setup_)
    if seen.stream.malformed:
        # past the malformed bytes nothing was read: only what came before them is held to the framings
        findings += [_diverged(m, answers, seen, setup_, lenient) for m in conforming if m.kind in ("diverge", "extra")]
    elif explained is not None:
        findings.append(explained)
    else:
        findings += [_diverged(m, answers, seen, setup_, lenient) for m in conforming]
    effect, reading = min(findings, key=lambda f: rank(f[0]))
    if effect == ACCEPTS_INVALID and reading.startswith("served"):
        reading += "; " + _leniency(lenient)
    verdict = PASS if effect == PASS else NOT_OBSERVED if effect == NOT_OBSERVED else FAIL
    return Judgement(verdict, None if effect == PASS else effect, reading, answers_text, seen.state)


def _interim(seen: Observation, setup_: Setup) -> list[tuple[str, str]]:
    """1xx answers where RFC 9110 15.2 forbids them: to an HTTP/1.0 request (its client reads the 1xx as the answer,
    and every later answer as the one before); the request is the one the next final answer answers."""
    requests = setup_.framings.strict.requests
    found = []
    for status, before in zip(seen.stream.interim, seen.stream.interim_before):
        if status != 101 and before < len(requests) and requests[before].version == b"HTTP/1.0":
            found.append((DESYNC, f"sent {status} to an HTTP/1.0 request, which RFC 9110 15.2 forbids: an HTTP/1.0 "
                                  "client reads it as the answer, and each later answer as the one before"))
    return found


def _tunnel(seen: Observation, setup_: Setup) -> list[tuple[str, str]]:
    """A 2xx to CONNECT switches the connection to a tunnel (RFC 9110 9.3.6): a server that answers it so and goes on
    reading HTTP serves bytes a front forwards as tunnel data, past its rules."""
    requests = setup_.framings.strict.requests
    for index, response in enumerate(seen.responses[:-1]):
        if index < len(requests) and requests[index].method == b"CONNECT" and 200 <= response.status < 300:
            return [(DESYNC, f"answered CONNECT {response.status}, then went on answering HTTP requests: a front "
                             "takes the connection for a tunnel from that answer on (RFC 9110 9.3.6)")]
    return []


def rank(effect: str | None) -> int:
    """0 for the worst effect (PRECEDENCE), the most for a pass (None)."""
    return PRECEDENCE.index(effect) if effect in PRECEDENCE else len(PRECEDENCE)


def _explained(conforming: list[Match], seen: Observation, setup_: Setup) -> tuple[str, str] | None:
    """The effect where a conforming framing explains the answers (pass, no-close, stall, not-observed,
    over-strict for a close before any answer), None where none does."""
    order = {"full": 0, "held": 1, "closed-early": 2, "kept": 3, "stall": 4}
    fitting = sorted((m for m in conforming if m.kind in order), key=lambda m: (order[m.kind], -m.at))
    if not fitting:
        return None
    best = fitting[0]
    how = ("refused invalid framing" if best.framing.error and best.error_refused else
           "framed as the RFC does" if not best.framing.leniencies else
           "framed as the RFC permits (" + ", ".join(best.framing.essential) + ")")
    if best.refused:
        how += "; refused what the RFC lets it refuse: " + "; ".join(r.may_refuse for r in best.refused)
    if seen.stalled and best.kind in ("full", "held", "kept"):
        return STALL, f"{how}, but answered only once the probe's bytes came"
    if (seen.stalled or (swallowed(seen) and best.item)) and best.kind == "closed-early":
        return STALL, (f"answered {best.item} of {_owed(best)}, then neither answered nor closed until our EOF"
                       + ("" if seen.stalled else ": the requests after it swallowed"))
    if best.kind == "stall":
        return STALL, f"answered {best.item} of {_owed(best)}, then neither answered nor closed"
    if best.kind == "kept":
        smuggled = _smuggled(answers_of(seen)[best.item:], best, setup_)
        if smuggled:
            return (DESYNC if setup_.framings.forwarded else ACCEPTS_INVALID,
                    f"{how}, then kept the connection the RFC says to close and {smuggled}")
        closing = best.framing.close_after
        after = ("the request after which the RFC closes" if closing is not None and best.at > closing
                 else "the refusal of invalid framing")
        answered = " (the probe was answered)" if seen.state == observe.KEPT else " (answered what followed it)"
        return NO_CLOSE, f"{how}, but kept the connection after {after}{answered}"
    if best.kind == "closed-early":
        want = best.expected[best.at]
        if best.item == 0 and want.kind == "serve" and not (best.framing.requests and best.framing.requests[0].refusal):
            if want.refusable:
                return PASS, f"closed on a request it may refuse ({want.request.may_refuse})"
            return OVER_STRICT, "closed without answering a valid request"
        unseen = _unobserved(best, setup_)
        if unseen:
            return NOT_OBSERVED, f"answered {best.item}, then closed: {unseen} never seen"
        return PASS, f"{how}; closed after {best.item} answers"
    if best.kind == "held":
        if best.error_refused or any(a.is_refusal() for a in items(seen)):
            return PASS, how + "; held the connection after its refusal until past our EOF"
        return STALL, (f"answered {best.item}, then held the connection past our EOF: neither refused nor closed where "
                       "the message ends or never does")
    return PASS, how


def _owed(m: Match) -> int:
    return len([e for e in m.expected if not e.after_close and not e.optional])


def _unobserved(m: Match, setup_: Setup) -> str:
    """What decides the framing that a close after m.item answers left unseen ("" : nothing)."""
    rest = [e for e in m.expected[m.at:] if not e.after_close]
    decisive = [e for e in rest if e.kind in ("refuse", "head") or (e.request and (e.request.framed_by or e.request.body))]
    if setup_.mode == cases.CONTRACT and m.at:
        last = m.expected[m.at - 1]
        if (last.kind in ("serve", "head") and last.request is not None and last.request not in m.refused
                and last.request.body and rest):
            return "whether the unread body was consumed"
    if decisive:
        return "the framing of what followed"
    return ""


def _diverged(m: Match, answers: list[Item], seen: Observation, setup_: Setup,
              lenient: list[Match]) -> tuple[str, str]:
    """The effect of answers no conforming framing explains, held to one of them (m)."""
    want = m.expected[m.at] if m.at < len(m.expected) else None
    item = answers[m.item] if m.item < len(answers) else None
    forwarded = m.framing.valid or any(e.kind == "serve" for e in m.expected[:m.at + 1])
    if m.kind == "stall":
        return STALL, f"answered {m.item} of {_owed(m)}, then neither answered nor closed"
    if m.kind == "closed-early":
        return (OVER_STRICT, "closed without answering a valid request") if _valid_here(want) else (
            PASS, "closed")
    smuggled = _smuggled(answers[m.item:], m, setup_)
    if m.kind in ("extra", "kept") and all(a.is_error() for a in answers[m.item:]):
        return CRASH, f"answered {answers[m.item].status}"
    pending = m.framing.pending
    if m.kind in ("extra", "kept") and m.framing.incomplete and pending is not None:
        for item in answers[m.item:]:
            if item.reflection and item.reflection.target_sha256 in (sha256(pending.target), sha256(pending.path)):
                return ACCEPTS_INVALID, (f"served an incomplete request as complete: its app read "
                                         f"{item.reflection.body_length} body bytes of a message the client never "
                                         f"finished ({pending.framed_by})")
    if m.kind == "extra":
        if m.why:  # past an error it did not refuse: it framed the invalid message somehow
            return ACCEPTS_INVALID, _served_invalid(m, None) + (f", and {smuggled}" if smuggled else "")
        what = smuggled or f"answered {len(answers) - m.item} more than the stream holds"
        return (DESYNC if m.framing.valid else ACCEPTS_INVALID), what
    if m.kind == "kept":
        return (ACCEPTS_INVALID if smuggled else NO_CLOSE), smuggled or "kept the connection the RFC says to close"
    if m.kind == "kept-body":
        return ((DESYNC if setup_.framings.forwarded else ACCEPTS_INVALID),
                f"kept the connection the RFC says to close, then answered bytes that are no request of the stream "
                f"({smuggled or m.why})")
    # a divergence at want. An answer where the request after a body was answers bytes of that body, whatever its
    # status (a refusal, a 5xx): the body ended elsewhere, even after the request was refused (413) and kept
    why = m.why
    before = m.expected[m.at - 1] if m.at else None
    after_body = (before is not None and before.kind == "serve" and before.request is not None
                  and before.request.framed_by and want is not None and want.kind == "serve")
    if after_body and not (item is not None and item.switched) and forwarded:
        what = (f"refused ({item.status})" if item is not None and item.is_refusal() else
                f"answered {item.status}" if item is not None and item.is_error() else why)
        refused = " (refused, the connection kept)" if before.request in m.refused else ""
        return DESYNC, (f"{what} where the request after a {before.request.framed_by} body{refused} was: the body "
                        "ended elsewhere" + (f"; {smuggled}" if smuggled else ""))
    if item is not None and item.is_error():
        return CRASH, f"answered {item.status}"
    if want is None or want.kind != "serve":
        return ACCEPTS_INVALID, _served_invalid(m, item)
    if item is not None and item.is_refusal():
        if smuggled:
            return DESYNC, f"refused a valid request, then {smuggled}"
        return OVER_STRICT, f"refused a valid request ({item.status})"
    if item is not None and item.switched:
        how = "a 101 to the h2c upgrade" if item.switched == "101" else "HTTP/2 frames"
        return ACCEPTS_INVALID, (f"switched the connection to HTTP/2 ({how}), which RFC 9113 deprecates for "
                                 "cleartext upgrades: a front that forwards Upgrade lets a client past its rules")
    if why.startswith("answered") and not item.reflection and not smuggled:
        wanted = contract_statuses(want.request) if setup_.mode == cases.CONTRACT else None
        if wanted and item.status < 300 and min(wanted) >= 400:
            return ACCEPTS_INVALID, f"served it as another request ({why})"
        return OVER_STRICT, f"answered a valid request as another target ({why})"
    if why.startswith("served ") and " as " in why and not smuggled:
        return ACCEPTS_INVALID, f"{why}: the method changed"
    later = [e.request for e in m.expected[m.at + 1:] if e.request is not None]
    if item is not None and item.reflection and any(
            item.reflection.target_sha256 in (sha256(r.target), sha256(r.path)) for r in later):
        wanted = setup_.labels.get(sha256(want.request.target), "a request")
        why = f"swallowed {wanted}: answered {setup_.labels.get(item.reflection.target_sha256, '?')} in its place"
    if not forwarded:
        return ACCEPTS_INVALID, why
    if _misread(m, answers, seen, item, smuggled):
        return MISREAD, (f"{why}, then closed before reading on: the app got another body, no later request was "
                         "framed otherwise")
    return DESYNC, why + (f"; {smuggled}" if smuggled and smuggled not in why else "")


def _misread(m: Match, answers: list[Item], seen: Observation, item: Item | None, smuggled: str) -> bool:
    """One message's body read short (the app got less than the message holds), then a close before anything after
    it was read: the server closed before the probe or at once after it, never only at our EOF, and answered
    nothing more."""
    if smuggled or item is None or item.reflection is None or m.item != len(answers) - 1:
        return False
    want = m.expected[m.at].request
    return (want is not None and item.reflection.body_length < len(want.body) and seen.state == observe.CLOSED
            and not seen.closed_after_eof
            and item.reflection.target_sha256 in (sha256(want.target), sha256(want.path)))


def swallowed(seen: Observation) -> bool:
    """Requests written on a connection the server kept open, neither answered nor closed on until our EOF (no
    answer said `Connection: close`): a client waits for them until it gives up."""
    said_close = any(b"close" in b",".join(r.field(b"connection")).lower() for r in seen.responses)
    return seen.probed and seen.closed_after_eof and not said_close


def _served_invalid(m: Match, item: Item | None) -> str:
    what = m.expected[m.at].request if m.at < len(m.expected) else None
    reason = (what.refusal.reason if what is not None and what.refusal else
              m.framing.error.reason if m.framing.error else "invalid input")
    answered = ("" if item is None or item.reflection else
                ": answered with HTTP/2 frames" if item.switched == "http2" else
                ": switched protocols (101)" if item.switched else f": answered {item.status}")
    return f"served a request the RFC says to refuse ({reason}, RFC {_section(what, m.framing)})" + answered


def _section(request: reference.Request | None, framing: reference.Framing) -> str:
    if request is not None and request.refusal:
        return request.refusal.section
    return framing.error.section if framing.error else "9112"


def _smuggled(answers: list[Item], m: Match, setup_: Setup) -> str:
    """An answer to a request this framing does not hold (a body taken as a request): "" if none. Reflect mode
    knows each answer's target; contract mode knows GET /json's answer by its content."""
    requests = m.framing.requests + ([m.framing.pending] if m.framing.pending is not None else [])
    known = {sha256(r.target) for r in requests} | {sha256(r.path) for r in requests}
    if setup_.probe:
        known.add(sha256(_target(setup_.probe)))
    for item in answers:
        if item.reflection and item.reflection.target_sha256 not in known:
            return f"took {setup_.labels.get(item.reflection.target_sha256, 'bytes')} for a request"
        if (setup_.mode == cases.CONTRACT and item.response is not None and item.status == 200
                and item.response.body.startswith(b'{"message"')
                and not any(r.path.split(b"?")[0] == b"/json" for r in m.framing.requests)):
            return "took json (the body) for a request"
    return ""


def _leniency(lenient: list[Match]) -> str:
    fitting = [m for m in lenient if m.kind in ("full", "held", "closed-early", "kept")]
    if not fitting:
        return "framed as no named leniency does"
    names = sorted({n for m in fitting for n in m.framing.essential if not reference.LENIENCIES[n].permitted})
    return "framed as the leniency " + " or ".join(f"`{n}`" for n in names) + " does"


def run(port: int, setup_: Setup, host: str = "127.0.0.1") -> tuple[Judgement, Observation]:
    """Observe the case on a fresh connection and judge it."""
    seen = observe.observe(port, setup_.parts, setup_.awaited, setup_.methods, setup_.probe,
                           setup_.probe_answered, host)
    return judge(setup_, seen), seen


def worst(judgements: list[Judgement]) -> Judgement:
    """The worst of several runs of one case (PRECEDENCE; a pass is the mildest)."""
    return min(judgements, key=lambda j: rank(j.effect or PASS))


def run_many(port: int, setup_: Setup, runs: int, host: str = "127.0.0.1") -> tuple[Judgement, dict[str, int]]:
    """A racy case: the worst of `runs` runs, and how often each answer came (no retry until a pass)."""
    found = [run(port, setup_, host)[0] for _ in range(runs)]
    counts: dict[str, int] = {}
    for judgement in found:
        counts[judgement.answers] = counts.get(judgement.answers, 0) + 1
    return worst(found), dict(sorted(counts.items()))
