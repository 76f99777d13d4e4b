"""The judge's own tests (tests/conformance/observe.py, verdict.py): each hole the issue found in the old
judge is a deliberately faulty server here (tests/conformance/miniserver.py, one defect each), held to the
case that must catch it, beside the good server that must pass the same case; the response reader on
hand-written bytes; and the taxonomy's rules on answers no server needs to send."""
from __future__ import annotations

import pytest

from conformance import cases, miniserver, observe, verdict
from conformance.observe import Observation, Response, Stream
from conformance.verdict import (ACCEPTS_INVALID, CRASH, DESYNC, NO_CLOSE, NOT_OBSERVED, OVER_STRICT, PASS,
                                 STALL)

R, C = cases.REFLECT, cases.CONTRACT


@pytest.fixture(autouse=True)
def short_deadlines(monkeypatch):
    """A stall shows after 0.6 s as well as after 2 s: the tests stay fast."""
    monkeypatch.setattr(observe, "DEADLINE_S", 0.6)
    monkeypatch.setattr(observe, "PROBE_S", 0.4)


@pytest.fixture
def server():
    started = []

    def start(defect: str = "") -> int:
        started.append(miniserver.MiniServer(defect))
        return started[-1].port

    yield start
    for one in started:
        one.close()


def judge(port: int, case_id: str, mode: str) -> verdict.Judgement:
    return verdict.run(port, verdict.setup(cases.BY_ID[case_id], mode))[0]


# (defect, mode, case, the effect that catches it, words of the reading): one per hole of issue 37
HOLES = [
    ("cl-short", R, "cl-valid", DESYNC, "read 59 body bytes where the message has 61"),
    ("stop-after-last-chunk", R, "last-chunk-split", DESYNC, "answered before its message ended"),
    ("stop-after-last-chunk", R, "trailer-field", DESYNC, "the body ended elsewhere"),
    ("says-close-keeps", R, "cl-plus-sign", ACCEPTS_INVALID, "took json for a request"),
    ("says-close-keeps", R, "cl-and-te", DESYNC, "took json for a request"),
    ("http10-kept", R, "http10", NO_CLOSE, "kept the connection"),
    ("stall-unread", C, "cl-valid", STALL, "neither answered nor closed"),
    ("bare-cr-line-end", R, "bare-cr-in-value-cl", DESYNC, "read 47 body bytes where the message has 0"),
    ("chunk-ext-any", R, "chunk-ext-nul", ACCEPTS_INVALID, "`chunk-ext-any`"),
    ("no-drain", C, "cl-valid", DESYNC, "took json (the body) for a request"),
    ("no-drain", C, "cl0-unknown-route", DESYNC, "took json (the body) for a request"),
    ("close-unread", C, "cl-valid", NOT_OBSERVED, "whether the unread body was consumed never seen"),
    ("h2c", R, "h2c-upgrade", ACCEPTS_INVALID, "switched the connection to HTTP/2"),
    ("head-body", R, "head-with-body", DESYNC, "content in its answer to HEAD"),
    ("no-length-keep", R, "origin-form", STALL, "neither answered nor closed"),
    ("ignore-te", R, "te-empty-element-first", DESYNC, "read 0 body bytes where the message has 61"),
    ("early-answer", C, "cl-body-after-pause", DESYNC, "took json (the body) for a request"),
]


@pytest.mark.parametrize("defect, mode, case_id, effect, words", HOLES, ids=[f"{h[0]}-{h[2]}" for h in HOLES])
def test_each_faulty_server_is_caught_and_the_good_one_passes(server, defect, mode, case_id, effect, words):
    good = judge(server(), case_id, mode)
    assert (good.effect, good.verdict) == (None, PASS), f"the good server: {good}"
    bad = judge(server(defect), case_id, mode)
    assert bad.effect == effect and words in bad.reading, f"{defect} ({miniserver.DEFECTS[defect]}): {bad}"


def test_the_good_server_passes_every_case_it_implements(server):
    """Where the good server is lenient or strict on purpose (its parser is a short one), the judge names it:
    nothing else is flagged, so a faulty server's verdict is the defect's and not the judge's noise."""
    port = server()
    expected = {"absolute-form": OVER_STRICT, "absolute-form-other-host": OVER_STRICT, "http12-minor": OVER_STRICT,
                "cl-20-digits": OVER_STRICT, "chunk-size-leading-zeros": OVER_STRICT,
                "authority-form-get": ACCEPTS_INVALID, "asterisk-get": ACCEPTS_INVALID, "target-nul": ACCEPTS_INVALID,
                "host-invalid": ACCEPTS_INVALID, "host-list": ACCEPTS_INVALID, "te-http10-keepalive": NO_CLOSE,
                "chunk-size-trailing-space": ACCEPTS_INVALID, "trailer-invalid-name": ACCEPTS_INVALID}
    found = {c.id: judge(port, c.id, R).effect for c in cases.CASES if c.id not in ("header-1m",)}
    assert {k: v for k, v in found.items() if v} == expected


def test_the_worst_of_several_runs_is_kept_with_how_often_each_answer_came(server):
    """No retry until pass: a desync seen once in three runs is the cell's verdict."""
    port = server("racy-desync")
    judgement, counts = verdict.run_many(port, verdict.setup(cases.BY_ID["cl-valid"], R), 4)
    assert judgement.effect == DESYNC
    assert counts == {"200>/:59@POST 200>nope 200>probe kept": 2, "200>/:61@POST 200>nope 200>probe kept": 2}


def test_a_connection_that_says_close_but_stays_open_is_observed(server):
    bad = judge(server("says-close-keeps"), "name-with-space", R)
    good = judge(server(), "name-with-space", R)
    assert (good.close, bad.close) == (observe.CLOSED, observe.KEPT), (good, bad)
    assert bad.effect == NO_CLOSE


# ---------------------------------------------------------------------------- the response reader

OK = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi"


@pytest.mark.parametrize("data, methods, closed, statuses, switched, partial, malformed", [
    (OK + OK, [b"GET", b"GET"], False, [200, 200], "", False, False),
    (b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n" + OK, [b"HEAD", b"GET"], False, [200, 200], "", False, False),
    (b"HTTP/1.1 100 Continue\r\n\r\n" + OK, [b"GET"], False, [200], "", False, False),
    (b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n\0\0\0\x04\0\0\0\0\0" + OK, [b"GET"], False, [], "101",
     False, False),
    (b"\0\0\x12\x04\0\0\0\0\0" + b"\0" * 18, [b"PRI"], False, [], "http2", False, False),
    (b"HTTP/1.1 200 OK\r\n\r\nrest of it", [b"GET"], False, [], "", True, False),
    (b"HTTP/1.1 200 OK\r\n\r\nrest of it", [b"GET"], True, [200], "", False, False),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n" + OK, [b"GET"] * 2, False,
     [200, 200], "", False, False),
    (b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhi", [b"GET"], False, [], "", True, False),
    (b"FTP/1.1 404 Not Found\r\n\r\n", [b"GET"], True, [], "", False, True),
    (b"Hello, World!", [b"GET"], True, [], "", False, True),
])
def test_responses_are_read_with_the_request_method_interim_answers_and_switches(
        data, methods, closed, statuses, switched, partial, malformed):
    found = observe.responses(data, methods, closed)
    assert [r.status for r in found.responses] == statuses
    assert (found.switched, found.partial, bool(found.malformed)) == (switched, partial, malformed), found


def test_an_answer_to_head_is_known_from_its_reflection():
    reflected = (b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\nX-Reflect: HEAD HTTP/1.1 0 " + b"a" * 64 + b" " + b"b" * 64
                 + b"\r\n\r\n")
    found = observe.responses(reflected + OK, [b"GET", b"GET"], False)
    assert [r.status for r in found.responses] == [200, 200] and found.responses[0].reflection.method == b"HEAD"


# ---------------------------------------------------------------------------- the rules, on answers alone

def _seen(statuses: list[int], state: str, stalled: bool = False, bodies: list[bytes] | None = None) -> Observation:
    bodies = bodies or [b""] * len(statuses)
    return Observation(Stream([Response(s, [], b, 0, parts_before=9) for s, b in zip(statuses, bodies)]), state,
                       stalled=stalled)


@pytest.mark.parametrize("case_id, statuses, state, effect", [
    ("cl-valid", [405, 404], observe.CLOSED, PASS),  # drained, then closed before the probe
    ("cl-valid", [405], observe.CLOSED, NOT_OBSERVED),  # answered unread, then closed: framing never seen
    ("cl-valid", [405], observe.HELD, STALL),
    ("cl-valid", [405, 200, 404], observe.CLOSED, DESYNC),  # the body read as a request
    ("cl-valid", [400], observe.CLOSED, OVER_STRICT),
    ("cl-valid", [500], observe.CLOSED, CRASH),
    ("cl-plus-sign", [400], observe.CLOSED, PASS),
    ("cl-plus-sign", [400], observe.HELD, PASS),  # a lingering close: the probe got nothing
    ("cl-plus-sign", [405, 404], observe.CLOSED, ACCEPTS_INVALID),  # framed as int() reads +61
    ("cl-plus-sign", [405], observe.CLOSED, ACCEPTS_INVALID),  # its head was handed to the app
    ("connection-close-then-more", [200, 404], observe.CLOSED, NO_CLOSE),
    ("host-missing", [200], observe.CLOSED, ACCEPTS_INVALID),
    ("host-missing", [400, 200], observe.KEPT, PASS),  # a Host refusal need not close
])
def test_the_taxonomy_on_contract_answers(case_id, statuses, state, effect):
    setup = verdict.setup(cases.BY_ID[case_id], C)
    bodies = [verdict.HELLO if s == 200 and state == observe.KEPT and i == len(statuses) - 1 else b""
              for i, s in enumerate(statuses)]
    got = verdict.judge(setup, _seen(statuses, state, bodies=bodies))
    assert got.effect == (None if effect == PASS else effect), got


def test_the_same_answers_get_the_same_effect_whatever_the_case():
    """The old judge gave trailer-content-length's and chunk-ext-64k's `405 400` different effects."""
    seen = _seen([405, 400], observe.CLOSED)
    effects = {case_id: verdict.judge(verdict.setup(cases.BY_ID[case_id], C), seen).effect
               for case_id in ("trailer-content-length", "trailer-field", "chunk-ext-token", "te-chunked")}
    assert set(effects.values()) == {DESYNC}, effects


def test_behind_a_front_only_whether_the_desync_goes_through_is_held():
    """HAProxy refusing or forwarding an invalid trailer, and who closes first, varies with how the bytes fall into
    reads (both seen for one cell in two runs); a desync that starts or stops going through fails."""
    from conformance import pinning

    forwarded = {"answers": "200>/@POST 200>nope 200>probe kept", "verdict": "fail", "effect": "accepts-invalid",
                 "close": "kept"}
    refused = {"answers": "400 closed", "verdict": "pass", "effect": None, "close": "closed"}
    smuggled = {"answers": "200>/:6@POST 200>json 404 kept", "verdict": "fail", "effect": "desync", "close": "kept"}
    assert pinning.front_differs(forwarded, refused) == "" and pinning.front_differs(refused, forwarded) == ""
    assert "still desyncs through the front: True" in pinning.front_differs(forwarded, smuggled)
    assert "still desyncs through the front: False" in pinning.front_differs(smuggled, refused)
    assert pinning.front_differs(None, refused) == "no pinned cell"
    # a racy cell (declared) holds while its pinned worst is a desync, whichever way one run falls
    assert pinning.front_differs(smuggled, refused, racy=True) == ""
    assert "still desyncs" in pinning.front_differs(refused, smuggled, racy=True)
