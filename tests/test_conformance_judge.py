"""The judge's own tests (tests/conformance/observe.py, verdict.py): each hole the issue found in the old
judge is a deliberately faulty server here (tests/conformance/miniserver.py, one defect each), held to the
case that must catch it, beside the good server that must pass the same case; the response reader on
hand-written bytes; and the taxonomy's rules on answers no server needs to send."""
from __future__ import annotations

import pytest

from conformance import cases, miniserver, observe, verdict
from conformance.observe import Observation, Response, Stream
from conformance.verdict import (ACCEPTS_INVALID, CRASH, DESYNC, MISREAD, NO_CLOSE, NOT_OBSERVED, OVER_STRICT,
                                 PASS, STALL)

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


# (defect, case, the effect and words in reflect mode, then in contract mode): issue 45, each effect reached each way
# and named alike in both modes, where the mode can see it at all (None: it cannot, and says so)
WAYS = [
    ("swallow-probe", "origin-form", (STALL, "the requests after it swallowed"), (STALL, "swallowed")),
    ("swallow-probe", "cl-valid", (STALL, "the requests after it swallowed"), (STALL, "swallowed")),
    *[(f"drain-short-{k}", "cl-body-no-crlf", (DESYNC, "GET as "), (DESYNC, "the body ended elsewhere"))
      for k in (1, 2, 3, 4)],
    ("refuse-large-keeps", "cl-1m-unread", (DESYNC, "refused, the connection kept"),
     (DESYNC, "refused, the connection kept")),
    ("no-drain+refuse-500", "te-chunked", (None, "framed as the RFC does"),
     (DESYNC, "answered 500 where the request after a chunked body was")),
    ("drain-short-1+refuse-500", "cl-valid", (DESYNC, "answered 500 where the request after a content-length body"),
     (DESYNC, "answered 500 where the request after a content-length body")),
    ("te-over-cl+no-drain", "cl-and-te", (NO_CLOSE, "kept the connection"),
     (DESYNC, "answered bytes that are no request of the stream (answered 400)")),
    ("te-over-cl", "te-and-cl", (NO_CLOSE, "(the probe was answered)"), (NO_CLOSE, "(the probe was answered)")),
    ("head-body", "head-with-body", (DESYNC, "content in its answer to HEAD"), (DESYNC, "content in its answer to HEAD")),
    ("chunked-as-empty", "te-chunked", (MISREAD, "read 0 body bytes where the message has 61, then closed"),
     (NOT_OBSERVED, "whether the unread body was consumed never seen")),
    ("continue-http10", "expect-100-http10", (DESYNC, "sent 100 to an HTTP/1.0 request"),
     (DESYNC, "sent 100 to an HTTP/1.0 request")),
    ("connect-2xx", "connect", (DESYNC, "answered CONNECT 200, then went on"),
     (DESYNC, "answered CONNECT 200, then went on")),
]


@pytest.mark.parametrize("defect, case_id, reflect, contract", WAYS, ids=[f"{w[0]}-{w[1]}" for w in WAYS])
def test_each_way_to_an_effect_is_named_in_both_modes(server, defect, case_id, reflect, contract):
    for mode, (effect, words) in ((R, reflect), (C, contract)):
        good = judge(server(), case_id, mode)
        assert (good.effect, good.verdict) == (None, PASS), f"the good server, {mode}: {good}"
        bad = judge(server(defect), case_id, mode)
        assert bad.effect == effect and words in bad.reading, f"{defect} ({miniserver.DEFECTS.get(defect)}), {mode}: {bad}"


def test_a_drain_short_by_two_or_four_hides_behind_a_body_ending_in_crlf(server):
    """Why cl-body-no-crlf is in the grid: on cl-valid (the body ends CRLF CRLF) the leftover of a drain 2 or 4 short
    is skipped as empty lines, so only a body that ends in other bytes tells those servers from the good one."""
    for k in (2, 4):
        assert judge(server(f"drain-short-{k}"), "cl-valid", C).effect is None
        assert judge(server(f"drain-short-{k}"), "cl-body-no-crlf", C).effect == DESYNC


def test_the_probe_counts_only_with_its_whole_reflection():
    """`XGET /reflect/probe` (bytes glued in front of the probe) ends in the probe's target but is not its answer."""
    from conformance.reflection import Reflection

    setup = verdict.setup(cases.BY_ID["origin-form"], R)
    target = observe.sha256(b"/reflect/probe")

    def answer(method: bytes, version: bytes = b"HTTP/1.1", length: int = 0) -> Response:
        reflection = Reflection(method, version, length, observe.sha256(b""), target)
        return Response(200, [], b"{}", 0, reflection=reflection)

    assert setup.probe_answered(answer(b"GET")) and setup.probe_answered(answer(b"GET", b"1.1"))  # ASGI's, RSGI's
    assert not setup.probe_answered(answer(b"XGET"))
    assert not setup.probe_answered(answer(b"GET", b"HTTP/1.0"))
    assert not setup.probe_answered(answer(b"GET", length=2))


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
    ("cl-and-te", [405, 400], observe.CLOSED, DESYNC),  # cheroot: the unread chunked body parsed as a request
    ("te-and-cl", [405, 400], observe.CLOSED, DESYNC),
    ("te-chunked", [405, 400], observe.CLOSED, DESYNC),  # the same answers, the same effect
    ("cl-1m-unread", [413, 400], observe.CLOSED, DESYNC),  # refused, kept, the body read as a request
    ("cl-1m-unread", [413], observe.CLOSED, PASS),  # refused, then closed
    ("te-chunked", [405, 500], observe.CLOSED, DESYNC),  # a 5xx to the body's bytes
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
    # a racy cell (declared) goes both ways: held by its record's runs, it fails on a crash or stall its race does not explain
    assert pinning.front_differs(smuggled, refused, racy=True) == ""
    assert pinning.front_differs(refused, smuggled, racy=True) == ""
    crashed = {"answers": "200>/@POST dead", "verdict": "fail", "effect": "crash", "close": "closed"}
    assert "a crash behind the front" in pinning.front_differs(smuggled, crashed, racy=True)


def test_a_race_behind_haproxy_is_declared_for_the_servers_that_leave_bytes_unread_and_there_only():
    """http.server's and cheroot's unread bodies race HAProxy's reads (cells flipped both ways between two runs of one
    code): their cells there run several times, the worst kept; nginx buffers the request, so not behind it."""
    from conformance import grid
    from servers.core import catalog

    threaded, cheroot, gevent = (catalog.get(n) for n in ("stdlib_threaded", "flask_cheroot", "bare_gevent"))
    assert "HAProxy" in grid.front_racy(threaded, "obs-fold-te", "haproxy")
    assert "HAProxy" in grid.front_racy(cheroot, "te-chunked-upper-case", "haproxy")
    assert grid.front_racy(threaded, "obs-fold-te", "nginx") == ""
    assert grid.front_racy(gevent, "obs-fold-te", "haproxy") == ""  # no race declared for gevent's parser
    assert grid.front_racy(catalog.get("stdlib"), "obs-fold-te", "haproxy") == ""  # not seen single-threaded
    # a case's own race holds in every column
    assert grid.front_racy(cheroot, "trailer-host", "nginx") == grid.racy(cheroot, "trailer-host") != ""


def test_a_racy_cell_holds_a_way_its_record_missed_when_the_effect_is_the_same():
    """Five runs of a race can miss one of its ways: a new answer with the pinned worst's effect holds; a new answer
    with another effect, or a worse worst, fails."""
    from conformance import pinning

    pinned = {"answers": "closed", "verdict": "pass", "effect": None, "close": "closed", "runs": {"closed": 5}}
    same = {"answers": "400 closed", "verdict": "pass", "effect": None, "close": "closed",
            "runs": {"400 closed": 1, "closed": 4}}
    worse = {"answers": "200 closed", "verdict": "fail", "effect": "accepts-invalid", "close": "closed",
             "runs": {"200 closed": 1, "closed": 4}}
    assert pinning.differs(pinned, same, racy=True) == ""
    assert "answers never seen before" in pinning.differs(pinned, worse, racy=True)
    assert "worse than pinned" in pinning.differs(pinned, worse, racy=True)
