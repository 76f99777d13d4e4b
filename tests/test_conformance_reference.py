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
