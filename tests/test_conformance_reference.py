"""The reference framing (tests/conformance/reference.py) against RFC 9112's grammar: valid messages framed
as written (hypothesis builds them from the ABNF), each invalid construct an error with its section, each
leniency the framing it names, and every conformance case framed as its note says."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from conformance import cases, reference
from conformance.reference import frame, framings

HOST = b"Host: h\r\n"
TCHAR = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

tokens = st.text(TCHAR, min_size=1, max_size=12).map(str.encode)
segments = st.text("abcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@", max_size=8).map(str.encode)
paths = st.lists(segments, min_size=1, max_size=4).map(lambda parts: b"/" + b"/".join(parts))
values = st.text("".join(chr(c) for c in range(0x21, 0x7f)) + " \t", max_size=20).map(
    lambda v: v.strip(" \t").encode())
names = tokens.filter(lambda n: n.lower() not in (b"content-length", b"transfer-encoding", b"host", b"connection",
                                                  b"upgrade", b"expect"))
bodies = st.binary(max_size=200)


def chunked(body: bytes, sizes: list[int]) -> bytes:
    out, pos = b"", 0
    for size in sizes:
        piece = body[pos:pos + size]
        if not piece:
            break
        out += b"%x\r\n" % len(piece) + piece + b"\r\n"
        pos += len(piece)
    if pos < len(body):
        out += b"%x\r\n" % (len(body) - pos) + body[pos:] + b"\r\n"
    return out + b"0\r\n\r\n"


@st.composite
def messages(draw):
    method, path = draw(tokens), draw(paths)
    fields = draw(st.lists(st.tuples(names, values), max_size=5))
    body = draw(bodies)
    coding = draw(st.sampled_from(["none", "length", "chunked"]))
    head = b"".join(n + b": " + v + b"\r\n" for n, v in fields)
    if coding == "length":
        head += b"Content-Length: %d\r\n" % len(body)
        content = body
    elif coding == "chunked":
        head += b"Transfer-Encoding: chunked\r\n"
        content = chunked(body, draw(st.lists(st.integers(1, 50), max_size=5)))
    else:
        body, content = b"", b""
    data = method + b" " + path + b" HTTP/1.1\r\n" + HOST + head + b"\r\n" + content
    return data, (method, path, fields, body)


@settings(max_examples=150, deadline=None)
@given(st.lists(messages(), min_size=1, max_size=4))
def test_valid_pipelines_are_framed_as_written(stream):
    data = b"".join(d for d, _ in stream)
    found = frame(data)
    assert found.error is None and not found.incomplete, found.describe()
    assert found.consumed == len(data)
    for request, (_, (method, path, fields, body)) in zip(found.requests, stream, strict=True):
        assert (request.method, request.target, request.body) == (method, path, body)
        assert [(n, v) for n, v in request.fields if n not in (b"Host", b"Content-Length", b"Transfer-Encoding")] == fields


@settings(max_examples=100, deadline=None)
@given(messages(), st.integers(1, 10_000))
def test_a_cut_message_is_incomplete_never_an_error(message, cut):
    data, _ = message
    cut = cut % len(data)
    found = frame(data[:cut])
    assert found.error is None and (found.incomplete or found.consumed == cut), found.describe()


@pytest.mark.parametrize("data, reason, section", [
    (b"GET / HTTP/1.1\r\nHost: h\r\nX : y\r\n\r\n", "whitespace before the colon", "9112 5.1"),
    (b"GET / HTTP/1.1\r\nHost: h\r\nX\x00: y\r\n\r\n", "a field name that is no token", "9110 5.1"),
    (b"GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n b\r\n\r\n", "obs-fold", "9112 5.2"),
    (b"GET / HTTP/1.1\r\nHost: h\rX: y\r\n\r\n", "a bare CR", "9112 2.2"),
    (b"GET / HTTP/1.1\nHost: h\r\n\r\n", "a bare LF", "9112 2.2"),
    (b"GET  / HTTP/1.1\r\nHost: h\r\n\r\n", "a request line of 4 parts", "9112 3"),
    (b"GET / HTTP/1.10\r\nHost: h\r\n\r\n", "an invalid HTTP-version", "9112 2.3"),
    (b"GET / HTTP/2.0\r\nHost: h\r\n\r\n", "HTTP major version 2", "9110 6.2, 15.6.6"),
    (b"G@T / HTTP/1.1\r\nHost: h\r\n\r\n", "a method that is no token", "9112 3.1"),
    (b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: +1\r\n\r\nx", "an invalid Content-Length", "9112 6.3, 9110 8.6"),
    (b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1, 2\r\n\r\nxy", "differing Content-Length values",
     "9112 6.3, 9110 8.6"),
    (b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
     "both Transfer-Encoding and Content-Length", "9112 6.3"),
    (b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n",
     "chunked is not the final transfer coding", "9112 6.3"),
    (b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked;a=b\r\n\r\n0\r\n\r\n", "parameters on chunked", "9112 7"),
    (b"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", "Transfer-Encoding in an HTTP/1.0 request",
     "9112 6.1"),
    (b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1;a=\x00\r\nx\r\n0\r\n\r\n",
     "an invalid chunk extension", "9112 7.1.1"),
    (b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0x1\r\nx\r\n0\r\n\r\n", "an invalid chunk size",
     "9112 7.1"),
    (b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nxYY0\r\n\r\n",
     "chunk data not followed by CRLF", "9112 7.1"),
    (b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1\nx\r\n0\r\n\r\n", "a bare LF in a chunk line",
     "9112 7.1, 2.2"),
])
def test_each_invalid_construct_is_an_error_with_its_section(data, reason, section):
    found = frame(data)
    assert found.error is not None, found.describe()
    assert (found.error.reason, found.error.section) == (reason, section)
    assert found.error.must_close


@pytest.mark.parametrize("data, reason", [
    (b"GET / HTTP/1.1\r\n\r\n", "0 Host field lines"),
    (b"GET / HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n", "2 Host field lines"),
    (b"GET / HTTP/1.1\r\nHost: a b\r\n\r\n", "an invalid Host"),
    (b"GET * HTTP/1.1\r\nHost: a\r\n\r\n", "the asterisk-form for a method other than OPTIONS"),
    (b"GET a:1 HTTP/1.1\r\nHost: a\r\n\r\n", "the authority-form for a method other than CONNECT"),
])
def test_a_request_to_refuse_is_framed_and_the_stream_goes_on(data, reason):
    found = frame(data + b"GET / HTTP/1.1\r\nHost: a\r\n\r\n")
    assert [r.refusal.reason if r.refusal else None for r in found.requests] == [reason, None]
    assert not found.requests[0].refusal.must_close


@pytest.mark.parametrize("data, closes", [
    (b"GET / HTTP/1.0\r\n\r\n", True),
    (b"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", False),
    (b"GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", True),
    (b"GET / HTTP/1.1\r\nHost: h\r\nConnection: x, Close\r\n\r\n", True),
    (b"GET / HTTP/1.1\r\nHost: h\r\n\r\n", False),
])
def test_the_connection_closes_where_the_rfc_says(data, closes):
    found = frame(data + b"GET /next HTTP/1.1\r\nHost: h\r\n\r\n")
    assert (found.close_after == 0) is closes
    assert len(found.requests) == 2 and len(found.processed) == (1 if closes else 2)


def test_empty_list_elements_of_transfer_encoding_are_ignored():
    for value in (b", chunked", b"chunked,", b" , ,chunked"):
        found = frame(b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: " + value + b"\r\n\r\n1\r\nx\r\n0\r\n\r\n")
        assert found.error is None and found.requests[0].body == b"x", value


def test_an_unknown_coding_before_chunked_frames_by_chunked_and_may_be_refused():
    found = frame(b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n")
    assert found.requests[0].body == b"x" and "501" in found.requests[0].may_refuse


def test_sizes_are_read_without_overflow():
    huge = b"%x" % (2 ** 64 + 1)
    found = frame(b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n" + huge + b"\r\nx\r\n0\r\n\r\n")
    assert found.incomplete and "413" in found.pending.may_refuse
    found = frame(b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 00000000000000000000001\r\n\r\nx")
    assert found.requests[0].body == b"x"


def test_a_trailer_section_frames_nothing():
    found = frame(b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n"
                  b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n")
    assert [r.body for r in found.requests] == [b"x", b""] and found.error is None


@pytest.mark.parametrize("data, leniency, bodies", [
    (b"GET / HTTP/1.1\nHost: h\n\n", "lf-line-end", [b""]),
    (b"GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n b\r\n\r\n", "obs-fold-sp", [b""]),
    (b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1, 1\r\n\r\nx", "cl-list-same", [b"x"]),
    (b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: +1\r\n\r\nx", "cl-loose", [b"x"]),
    (b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1;\x00\r\nx\r\n0\r\n\r\n", "chunk-ext-any", [b"x"]),
    (b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1\nx\n0\n\n", "chunk-lf", [b"x"]),
    (b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: \x1fchunked\r\n\r\n1\r\nx\r\n0\r\n\r\n", "te-stripped", None),
    (b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n",
     "cl-over-te", [b"1\r\nx\r\n0\r\n\r\n"]),
])
def test_each_leniency_frames_what_it_names(data, leniency, bodies):
    assert frame(data).error is not None
    found = frame(data, {leniency, *(["ctl-retained"] if leniency == "te-stripped" else [])})
    assert found.error is None, found.describe()
    if bodies is not None:
        assert [r.body for r in found.requests] == bodies


def test_the_rfc_own_choices_are_the_permitted_ones():
    assert {n for n, lenient in reference.LENIENCIES.items() if lenient.permitted} >= {
        "lf-line-end", "bare-cr-as-sp", "obs-fold-sp", "cl-list-same", "te-over-cl", "request-line-ws"}
    assert not reference.LENIENCIES["chunk-ext-any"].permitted and not reference.LENIENCIES["cl-loose"].permitted


# ---------------------------------------------------------------------------- the cases, as their notes say

def _strict(case_id: str, mode: str = cases.REFLECT) -> reference.Framings:
    case = cases.BY_ID[case_id]
    return framings(case.request(mode) + (b"" if case.eof else cases.probe(mode)))


@pytest.mark.parametrize("case_id", ["cl-valid", "te-chunked", "te-empty-element-first", "te-empty-element-last",
                                     "chunk-ext-token", "chunk-ext-quoted", "trailer-field", "trailer-host",
                                     "underscore-te", "h2c-upgrade", "head-with-body", "cl-1m-unread",
                                     "chunk-size-leading-zeros", "last-chunk-split", "te-gzip-chunked"])
def test_valid_framing_cases_frame_the_body_whole(case_id):
    for mode in cases.MODES:
        found = _strict(case_id, mode).strict
        assert found.valid and found.error is None, (mode, found.describe())
        assert cases.BY_ID[case_id].request(mode).count(cases.body(mode)) == 0 or any(
            r.body in (cases.body(mode), b"") or len(r.body) == 2 ** 20 for r in found.requests)


@pytest.mark.parametrize("case_id, leniency", [
    ("bare-cr-in-value-cl", "bare-cr-as-sp"), ("obs-fold-cl", "obs-fold-sp"), ("cl-and-te", "te-over-cl"),
    ("whitespace-before-first-field", "ws-line-skipped"), ("lf-line-endings", "lf-line-end"),
])
def test_repairable_cases_have_a_permitted_framing(case_id, leniency):
    found = _strict(case_id)
    assert not found.strict.valid and found.forwarded
    assert any(leniency in f.leniencies and f.valid for f in found.conforming)


@pytest.mark.parametrize("case_id", ["chunk-ext-nul", "cl-plus-sign", "te-name-long-s", "head-ends-cr-x",
                                     "lf-in-request-line", "chunk-size-cr", "chunk-ext-cr-cr-x", "h2-preface",
                                     "host-list", "te-chunked-not-final"])
def test_invalid_cases_are_refused_by_every_conforming_framing(case_id):
    assert not _strict(case_id).forwarded


def test_obs_fold_hiding_a_content_length_leaves_the_body_a_request():
    found = _strict("obs-fold-cl")
    unfolded = next(f for f in found.conforming if f.valid)
    assert [r.path for r in unfolded.requests][:2] == [b"/reflect/", b"/reflect/json"]


def test_underscore_names_frame_nothing():
    found = _strict("underscore-cl-collides").strict
    assert found.requests[0].body == b"" and found.requests[1].path == b"/reflect/json"


def test_every_case_renders_and_frames_in_both_modes():
    for case in cases.CASES:
        for mode in cases.MODES:
            data = case.request(mode)
            assert b"{" not in data.replace(b"{}", b""), (case.id, mode)
            framings(data + (b"" if case.eof else cases.probe(mode)), case.leniencies)
    assert len(cases.CASES) >= 170 and len(cases.APP_SENSITIVE) < len(cases.CASES) // 3


# ---------------------------------------------------------------------------- issue 45: each point, from the RFC

hosts = st.one_of(st.text("abcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=", min_size=1, max_size=12),
                  st.tuples(*[st.integers(0, 255)] * 4).map(lambda q: ".".join(map(str, q)))).map(str.encode)
ports = st.one_of(st.just(b""), st.integers(0, 65535).map(lambda p: b":%d" % p))


@settings(max_examples=100, deadline=None)
@given(hosts, ports, paths)
def test_an_http_uri_with_a_host_is_served_and_without_one_refused(host, port, path):
    """RFC 9110 4.2.1: http-URI = "http" "://" authority path-abempty ...; a recipient MUST reject an empty host as
    invalid. 4.2.4: a recipient SHOULD treat userinfo as an error."""
    def refusal(target: bytes) -> str | None:
        found = frame(b"GET " + target + b" HTTP/1.1\r\nHost: h\r\n\r\n").requests[0]
        return found.refusal.section if found.refusal else None

    assert refusal(b"http://" + host + port + path) is None
    assert refusal(b"http://" + port + path) == "9110 4.2.1"
    assert refusal(b"http://user@" + host + port + path) == "9110 4.2.4"
    assert refusal(b"HTTPS://a:b@" + host + path) == "9110 4.2.4"


@pytest.mark.parametrize("version", [b"HTTP/1.0", b"HTTP/1.1"])
def test_a_duplicate_or_invalid_host_is_refused_in_any_version(version):
    """RFC 9112 3.2: 400 to any request message with more than one Host field line or an invalid Host value (a missing
    Host only in HTTP/1.1)."""
    def reason(fields: bytes) -> str | None:
        found = frame(b"GET / " + version + b"\r\n" + fields + b"\r\n").requests[0]
        return found.refusal.reason if found.refusal else None

    assert reason(b"Host: a\r\nHost: a\r\n") == "2 Host field lines"
    assert reason(b"Host: a b\r\n") == "an invalid Host"
    assert reason(b"Host: a\r\n") is None
    assert reason(b"") == (None if version == b"HTTP/1.0" else "0 Host field lines")


TRAILED = b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n"


def test_a_bare_lf_ends_a_trailer_field_line_as_a_header_line_but_never_the_chunked_body():
    """RFC 9112 2.2: a recipient MAY recognize a single LF as the terminator of the start-line and of field lines, and
    the trailer section is field lines (7.1.2); the CRLF ending the chunked-body (7.1) and the last-chunk line are no
    field lines: only the non-permitted chunk-lf takes a bare LF there."""
    line = TRAILED + b"X-T: v\n\r\n"
    assert frame(line).error is not None and frame(line, {"lf-line-end"}).requests[0].body == b"x"
    for data in (TRAILED + b"X-T: v\r\n\n", TRAILED + b"\n", TRAILED.replace(b"0\r\n", b"0\n") + b"\r\n"):
        assert frame(data, reference.PERMITTED).error is not None, data
        assert frame(data, {"chunk-lf"}).requests[0].body == b"x", data


def test_obs_fold_in_the_trailer_section_is_refused_or_replaced_as_in_the_header_section():
    """RFC 9112 5.2 holds for every field line, trailer fields included (7.1.2): reject, or replace with SP."""
    data = TRAILED + b"X-T: a\r\n b\r\n\r\n"
    assert frame(data).error.reason == "obs-fold in the trailer section"
    assert frame(data, {"obs-fold-sp"}).requests[0].body == b"x"
    assert frame(TRAILED + b" b\r\n\r\n", {"obs-fold-sp"}).error is not None  # no field to fold into


@settings(max_examples=50, deadline=None)
@given(st.integers(2, 4))
def test_chunked_applied_more_than_once_frames_by_the_final_chunked(times):
    """RFC 9112 6.3: where chunked is the final coding the length is known; 7: a sender MUST NOT apply chunked more
    than once, so a server may refuse it, but the framing is the final chunked's."""
    codings = b", ".join([b"chunked"] * times)
    found = frame(b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: " + codings + b"\r\n\r\n1\r\nx\r\n0\r\n\r\n")
    assert found.error is None and found.requests[0].body == b"x" and "RFC 9112 7" in found.requests[0].may_refuse


quoted = st.text("".join(chr(c) for c in range(0x20, 0x7f) if chr(c) not in '"\\'), max_size=10).map(
    lambda text: b'"' + text.encode() + b'"')


@settings(max_examples=100, deadline=None)
@given(tokens.filter(lambda t: t.lower() != b"chunked"), tokens, quoted)
def test_a_comma_inside_a_quoted_parameter_splits_no_transfer_coding(coding, name, value):
    """RFC 9110 5.6.1 lists split at commas; 5.6.4: a quoted-string may hold commas; RFC 9112 7: transfer-coding =
    token *( OWS ";" OWS transfer-parameter ), transfer-parameter = token BWS "=" BWS ( token / quoted-string )."""
    header = coding + b";" + name + b"=" + value + b", chunked"
    found = frame(b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: " + header + b"\r\n\r\n1\r\nx\r\n0\r\n\r\n")
    assert found.error is None and found.requests[0].body == b"x", found.describe()


@pytest.mark.parametrize("size, loose, strtoul", [
    (b" 1", 1, 1), (b"0x1", 1, 1), (b"+1", 1, 1), (b"0_1", 1, 0), (b"1 ", 1, 1), (b"1x", None, 1),
    (b"-1", None, 2 ** 64 - 1), (b"zz", None, None),
])
def test_a_loose_chunk_size_is_read_as_int_or_as_strtoul_reads_it(size, loose, strtoul):
    """RFC 9112 7.1: chunk-size = 1*HEXDIG. Python's int(s, 16) takes whitespace around, 0x, a sign and _ between
    digits, and the whole string; C's strtoul takes leading whitespace, a sign, 0x and the digits up to the first
    other byte (`1x` is 1), and wraps a negative value."""
    def read(option: str) -> int | None:
        found = frame(b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n" + size + b"\r\n"
                      + b"x" * 3 + b"\r\n0\r\n\r\n", {option})
        if found.error is not None and found.error.reason == "an invalid chunk size":
            return None
        return 2 ** 64 - 1 if found.incomplete else len(found.requests[0].body) if found.requests else -1

    assert frame(b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n" + size + b"\r\nx\r\n0\r\n\r\n"
                 ).error is not None
    assert reference._strtoul16(size) == strtoul
    got = {}
    for option in ("chunk-size-loose", "chunk-size-strtoul"):
        value = read(option)
        got[option] = value
    assert (got["chunk-size-loose"] is None) == (loose is None)
    assert (got["chunk-size-strtoul"] is None) == (strtoul is None)


def test_permitted_leniencies_are_tried_in_pairs():
    """An obs-fold line holding a bare LF: replacing the LF by SP (lf-as-sp) and the fold by SP (obs-fold-sp) hides the
    Content-Length in X's value; neither alone frames the head, and all the permitted ones together end the line at
    the LF (lf-line-end) instead. Only the pair finds the framing a recipient that made those two choices has."""
    data = b"GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n b\nContent-Length: 1\r\n\r\nx"
    assert all(frame(data, {one}).error is not None for one in ("lf-as-sp", "obs-fold-sp"))
    assert frame(data, reference.PERMITTED).requests[0].body == b"x"
    pair = next(f for f in framings(data).conforming if f.leniencies == {"lf-as-sp", "obs-fold-sp"})
    assert pair.requests[0].body == b"" and pair.requests[0].field(b"x") == [b"a b Content-Length: 1"]
