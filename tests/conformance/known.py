"""Which conformance cells each HTTP/1.1 caveat of the catalog stands for: the one home of those case lists.

A caveat's text and effects are declared in its spec module (servers/adapters/*_spec.py, servers/apps/*_spec.py,
servers/core/go_specs.py: Caveat, catalog.CAVEATS and CAVEAT_EFFECTS) and reach the stacks through the catalog
(Entry.caveats). Here: the cases whose cells it covers (a cell of one of them that does not pass, on a stack the
caveat qualifies, is covered where its effect is one the caveat declares). The claim, as
tests/test_conformance_records.py checks it: each listed case fails on at least one stack with the caveat, and each
stack with the caveat fails at least one listed case; not every case on every stack (a case may pass on a bare app
that reads every body and fail on a framework stack of the same server that leaves it unread). The packages whose
versions its reproduction names, and the cases whose answers depend on a race (`racy`, with `race` saying
which): those run several times and keep the worst (tests/conformance/grid.py).
"""
from __future__ import annotations

from dataclasses import dataclass

from .cases import BY_ID


@dataclass(frozen=True)
class Known:
    cases: tuple[str, ...]  # the cells it stands for: each fails on some stack with it, each such stack fails some
    packages: tuple[str, ...]  # whose versions the reproduction names ("python" for the stdlib)
    racy: tuple[str, ...] = ()  # cases whose answers depend on a race (failing or not), run several times, the worst kept
    race: str = ""
    # a server's defect that shows only where the app leaves a body unread (its parser owner's app reads every
    # body): each framework stack of the server runs these cases itself instead of inheriting them (grid.selected)
    unread: bool = False
    # a race behind HAProxy alone, on every case run there: whether the bytes the server leaves unread reach it
    # as the next request depends on how HAProxy's and the server's reads and closes fall (nginx buffers the request
    # and closes its upstream connection, so no race there); those cells run several times there, the worst kept
    haproxy_race: str = ""
    haproxy_race_servers: tuple[str, ...] = ()  # the servers it was seen on (empty: every server with the caveat)


# Seen in two runs of the same code here: 9 cells of stdlib_threaded and 7 of its free-threaded twin, 13 of cheroot's
# stacks, flipped between a desync and none behind HAProxy, in both directions; the single-threaded http.server,
# werkzeug's and wsgiref's servers gave the same answers in five runs of each cell.
HTTP_SERVER_UNREAD = ("the chunked body the threaded http.server leaves unread reaches it through HAProxy as the next "
                      "request, or it closes the connection first, as HAProxy's and its reads and closes fall")
# Seen in CI (the reliability step beside the default suite's load): sanic's chunk-ext-64k, `200 kept` in every
# recorded run, answered `400 closed`. Sanic (http1.py, Http.read) looks for a chunk line's CRLF in what it has
# buffered and refuses the line once more than 64 bytes arrived without it: the whole 64 KiB line in its first read
# is accepted, the first 1,000 bytes then the rest 0.2 s later is `400 Bad Request` (reproduced here both ways).
SANIC_CHUNK_LINE = ("a chunk line longer than 64 bytes is accepted when its CRLF is already buffered and refused 400 "
                    "when sanic reads it before the CRLF arrived, as the 64 KiB line falls into reads")
CHEROOT_UNREAD = ("the bytes cheroot leaves unread (a chunked body, a trailer) reach it through HAProxy as the next "
                  "request or not, as HAProxy's and cheroot's reads and closes fall")


def _known(**specs: Known) -> dict[str, Known]:
    assert all(bool(spec.racy) == bool(spec.race) for spec in specs.values()), "a racy case needs its race stated"
    return {key.replace("_", "-"): spec for key, spec in specs.items()}


KNOWN: dict[str, Known] = _known(
    gevent_parser=Known(("absolute-form", "absolute-form-other-host", "asterisk-get", "authority-form-get",
                         "bare-cr-in-value-cl", "chunk-ext-bare-lf", "chunk-ext-bws", "chunk-ext-nul",
                         "chunk-ext-quoted-lf", "chunk-size-leading-zeros", "chunk-size-signed-wrap", "cl-and-te",
                         "cl-duplicate-differ", "cl-huge", "cl-name-vtab", "cl-nbsp-prefix", "cl-plus-sign",
                         "cl-short-body-eof", "cl-underscore", "expect-100-http10", "head-ends-cr-x",
                         "head-with-body", "host-invalid", "host-list", "host-missing", "host-twice",
                         "last-chunk-ext-bare-lf", "lf-in-request-line", "line-without-colon",
                         "line-without-colon-te", "method-not-token", "name-empty", "name-non-ascii", "name-with-nul",
                         "name-with-paren", "name-with-space", "space-before-colon", "space-before-colon-cl",
                         "tab-before-colon-te", "target-nul", "te-and-cl", "te-chunked-nel", "te-chunked-not-final",
                         "te-chunked-param", "te-chunked-twice", "te-chunked-us", "te-cl-http10-keepalive",
                         "te-empty", "te-empty-element-first", "te-empty-element-last", "te-fs-chunked",
                         "te-gzip-chunked", "te-http10-keepalive", "te-identity", "te-identity-chunked",
                         "te-name-dotless-i", "te-name-long-s", "te-nbsp-chunked", "te-quoted-chunked",
                         "te-second-line-identity", "te-two-lines", "te-vtab", "te-xchunked", "version-missing",
                         "version-two-digits"), ('gevent',)),
    granian_parser=Known(("asterisk-get", "authority-form-get", "chunk-cut-eof", "chunk-data-cr-x",
                          "chunk-data-lf-only", "chunk-data-too-long", "chunk-data-two-byte-terminator",
                          "chunk-data-x-lf", "chunk-ext-64k", "chunk-ext-bare-cr", "chunk-ext-bare-lf",
                          "chunk-ext-cr-cr-x", "chunk-ext-nul", "chunk-ext-quoted-lf", "chunk-size-0x",
                          "chunk-size-cr", "chunk-size-leading-space", "chunk-size-lf", "chunk-size-missing",
                          "chunk-size-negative", "chunk-size-not-hex-eof", "chunk-size-nul", "chunk-size-overflow",
                          "chunk-size-plus", "chunk-size-signed-wrap", "chunk-size-trailing-space",
                          "chunk-size-underscore", "cl-1m-unread", "cl-body-after-pause", "cl-body-split",
                          "cl-short-body-eof", "expect-100-early", "h2-preface", "host-invalid", "host-list",
                          "host-missing", "host-twice", "http12-minor", "last-chunk-bare-lf",
                          "last-chunk-ext-bare-lf", "te-chunked-twice", "te-empty-element-last", "te-two-lines",
                          "trailer-invalid-name", "trailer-line-bare-lf", "trailer-section-bare-lf"), ('granian',)),
    granian_ft_cl_te=Known(("cl-and-te", "te-and-cl"), ('granian',)),
    gunicorn_parser=Known(("cl-1m-unread", "cl-body-after-pause", "cl-body-no-crlf", "cl-body-split",
                           "cl-get-with-body", "cl-huge", "cl-short-body-eof", "cl-valid", "cl0-unknown-route",
                           "expect-100", "expect-100-early", "head-with-body", "host-invalid", "host-list",
                           "host-missing", "http12-minor", "options-asterisk-body", "pipeline-after-body",
                           "te-chunked", "te-empty-element-first", "te-empty-element-last", "trailer-content-length",
                           "trailer-host", "trailer-transfer-encoding"), ('gunicorn',)),
    hypercorn_h11=Known(("absolute-form", "absolute-form-other-host", "asterisk-get", "authority-form-get",
                         "chunk-ext-bare-cr", "chunk-ext-bws", "chunk-ext-cr-cr-x", "chunk-ext-nul",
                         "chunk-size-leading-zeros", "chunk-size-trailing-space", "cl-1m-unread", "cl-20-digits",
                         "cl-and-te", "cl-body-after-pause", "cl-body-split", "connection-close-then-more",
                         "expect-100-early", "expect-100-http10", "h2-preface", "h2c-upgrade", "host-invalid",
                         "host-list", "http10-then-more", "method-lower-case", "te-and-cl", "te-empty-element-first",
                         "te-empty-element-last", "trailer-section-bare-lf", "version-20"), ('hypercorn', 'h11'),
                        racy=('cl-short-body-eof', 'chunk-cut-eof'),
                        race=("a body its client cuts short by EOF is answered 400 or closed on without an answer, as "
                             "Hypercorn sees the EOF before or after the app asks for the rest")),
    sanic_parser=Known(("asterisk-get", "authority-form-get", "chunk-data-cr-x", "chunk-data-too-long",
                        "chunk-data-two-byte-terminator", "chunk-data-x-lf", "chunk-ext-bare-cr", "chunk-ext-bare-lf",
                        "chunk-ext-cr-cr-x", "chunk-ext-nul", "chunk-ext-quoted-lf", "chunk-size-0x",
                        "chunk-size-leading-space", "chunk-size-trailing-space", "cl-fs-prefix", "cl-name-vtab",
                        "cl-non-ascii-digit", "expect-100-http10", "host-invalid", "host-list", "host-missing",
                        "host-twice", "http12-minor", "last-chunk-ext-bare-lf", "lf-line-endings",
                        "method-lower-case", "method-not-token", "method-unknown", "name-empty", "name-non-ascii",
                        "name-with-nul", "name-with-paren", "name-with-space", "space-before-colon",
                        "space-before-colon-cl", "tab-before-colon-te", "target-nul", "te-chunked-upper-case",
                        "te-empty-element-first", "te-empty-element-last", "te-fs-chunked", "te-http10-keepalive",
                        "te-name-dotless-i", "te-name-long-s", "te-vtab", "trailer-content-length", "trailer-field",
                        "trailer-host", "trailer-transfer-encoding"),
                       ('sanic',),
                       racy=("chunk-ext-64k",), race=SANIC_CHUNK_LINE),
    http_server_parser=Known(("absolute-form", "absolute-form-other-host", "asterisk-get", "authority-form-get",
                              "bare-cr-in-value-cl", "bare-cr-request-line", "chunk-cut-eof", "chunk-data-lf-only",
                              "chunk-data-too-long", "chunk-data-two-byte-terminator", "chunk-ext-64k",
                              "chunk-ext-bare-cr", "chunk-ext-bare-lf", "chunk-ext-bws", "chunk-ext-cr-cr-x",
                              "chunk-ext-name-only", "chunk-ext-nul", "chunk-ext-quoted", "chunk-ext-quoted-lf",
                              "chunk-ext-token", "chunk-last-ext", "chunk-size-0x", "chunk-size-cr",
                              "chunk-size-leading-space", "chunk-size-leading-zeros", "chunk-size-lf",
                              "chunk-size-missing", "chunk-size-negative", "chunk-size-not-hex-eof",
                              "chunk-size-overflow", "chunk-size-plus", "chunk-size-signed-wrap",
                              "chunk-size-trailing-space", "chunk-size-underscore", "chunk-size-upper-hex",
                              "chunk-split-size", "cl-1m-unread", "cl-and-te", "cl-body-after-pause", "cl-body-split",
                              "cl-duplicate-differ", "cl-empty", "cl-fs-prefix", "cl-get-with-body", "cl-hex",
                              "cl-huge", "cl-inner-space", "cl-list-differ", "cl-list-same", "cl-list-same-no-ows",
                              "cl-list-three", "cl-nbsp-prefix", "cl-negative", "cl-non-ascii-digit", "cl-plus-sign",
                              "cl-short-body-eof", "cl-underscore", "cl-valid", "cl0-unknown-route", "expect-100",
                              "expect-100-early", "h2-preface", "head-ends-cr-x", "head-with-body", "host-invalid",
                              "host-list", "host-missing", "host-twice", "last-chunk-bare-lf", "last-chunk-split",
                              "lf-in-request-line", "line-without-colon", "line-without-colon-te", "method-not-token",
                              "name-empty", "name-non-ascii", "name-with-nul", "name-with-paren", "name-with-space",
                              "obs-fold-te", "options-asterisk-body", "pipeline-after-body", "space-before-colon",
                              "space-before-colon-cl", "tab-before-colon-te", "target-nul", "te-and-cl", "te-chunked",
                              "te-chunked-nel", "te-chunked-not-final", "te-chunked-param", "te-chunked-twice",
                              "te-chunked-upper-case", "te-chunked-us", "te-cl-http10-keepalive", "te-empty",
                              "te-empty-element-first", "te-empty-element-last", "te-fs-chunked", "te-gzip-chunked",
                              "te-http10", "te-http10-keepalive", "te-identity", "te-identity-chunked",
                              "te-name-dotless-i", "te-name-long-s", "te-nbsp-chunked", "te-quoted-chunked",
                              "te-second-line-identity", "te-tab-ows", "te-two-lines", "te-vtab", "te-xchunked",
                              "trailer-content-length", "trailer-field", "trailer-host", "trailer-invalid-name",
                              "trailer-transfer-encoding", "underscore-te", "version-111", "version-20",
                              "version-ftp", "version-lower-case", "version-missing", "version-two-digits"), ('python', 'werkzeug'),
                             haproxy_race=HTTP_SERVER_UNREAD, haproxy_race_servers=("http.server-threaded",)),
    tornado_parser=Known(("absolute-form", "absolute-form-other-host", "asterisk-get", "authority-form-get",
                          "chunk-ext-bws", "chunk-ext-name-only", "chunk-ext-quoted", "chunk-ext-token",
                          "chunk-last-ext", "expect-100-http10", "te-empty-element-first", "te-empty-element-last",
                          "te-http10-keepalive", "trailer-content-length", "trailer-field", "trailer-host",
                          "trailer-transfer-encoding"),
                         ('tornado',)),
    twisted_web=Known(("absolute-form", "absolute-form-other-host", "asterisk-get", "authority-form-get",
                       "chunk-ext-bws", "host-invalid", "host-list", "host-missing", "host-twice", "http12-minor",
                       "lf-line-endings", "te-empty-element-first", "te-empty-element-last", "te-identity",
                       "te-second-line-identity", "trailer-invalid-name", "trailer-line-bare-lf",
                       "trailer-section-bare-lf"), ('twisted',)),
    uvicorn_httptools=Known(("asterisk-get", "chunk-ext-bws", "expect-100-http10", "h2c-upgrade", "host-invalid",
                             "host-list", "host-missing", "host-twice", "http12-minor", "te-empty-element-last",
                             "trailer-content-length", "trailer-transfer-encoding", "version-20", "version-missing"),
                            ('uvicorn', 'httptools')),
    uwsgi_http_socket=Known(("absolute-form", "absolute-form-other-host", "asterisk-get", "authority-form-get",
                             "bare-cr-in-value-cl", "bare-cr-request-line", "chunk-cut-eof", "chunk-data-cr-x",
                             "chunk-data-lf-only", "chunk-data-too-long", "chunk-data-two-byte-terminator",
                             "chunk-data-x-lf", "chunk-ext-64k", "chunk-ext-bare-cr", "chunk-ext-bare-lf",
                             "chunk-ext-bws", "chunk-ext-cr-cr-x", "chunk-ext-name-only", "chunk-ext-nul",
                             "chunk-ext-quoted", "chunk-ext-quoted-lf", "chunk-ext-token", "chunk-last-ext",
                             "chunk-size-0x", "chunk-size-cr", "chunk-size-leading-space", "chunk-size-leading-zeros",
                             "chunk-size-lf", "chunk-size-missing", "chunk-size-negative", "chunk-size-not-hex-eof",
                             "chunk-size-nul", "chunk-size-overflow", "chunk-size-plus", "chunk-size-signed-wrap",
                             "chunk-size-trailing-space", "chunk-size-underscore", "chunk-size-upper-hex",
                             "chunk-split-size", "cl-1m-unread", "cl-and-te", "cl-body-after-pause",
                             "cl-body-no-crlf", "cl-body-split", "cl-duplicate-differ", "cl-duplicate-same",
                             "cl-empty", "cl-fs-prefix", "cl-get-with-body", "cl-hex", "cl-inner-space",
                             "cl-list-differ", "cl-list-same", "cl-list-same-no-ows", "cl-list-three", "cl-name-vtab",
                             "cl-nbsp-prefix", "cl-negative", "cl-non-ascii-digit", "cl-nul", "cl-plus-sign",
                             "cl-underscore", "cl-valid", "cl0-unknown-route", "expect-100", "expect-100-early",
                             "h2-preface", "head-ends-cr-x", "head-with-body", "host-invalid", "host-list",
                             "host-missing", "host-twice", "http12-minor", "last-chunk-bare-lf",
                             "last-chunk-ext-bare-lf", "last-chunk-split", "leading-empty-line", "lf-in-request-line",
                             "lf-line-endings", "line-without-colon", "line-without-colon-te", "method-not-token",
                             "name-empty", "name-non-ascii", "name-with-nul", "name-with-paren", "name-with-space",
                             "obs-fold-te", "options-asterisk-body", "pipeline-after-body",
                             "request-line-double-space", "request-line-tabs", "request-line-trailing-space",
                             "space-before-colon", "space-before-colon-cl", "tab-before-colon-te", "target-nul",
                             "target-with-space", "te-and-cl", "te-chunked", "te-chunked-nel", "te-chunked-not-final",
                             "te-chunked-param", "te-chunked-twice", "te-chunked-upper-case", "te-chunked-us",
                             "te-cl-http10-keepalive", "te-empty", "te-empty-element-first", "te-empty-element-last",
                             "te-fs-chunked", "te-gzip-chunked", "te-http10", "te-http10-keepalive", "te-identity",
                             "te-identity-chunked", "te-name-dotless-i", "te-name-long-s", "te-nbsp-chunked",
                             "te-quoted-chunked", "te-second-line-identity", "te-tab-ows", "te-two-lines", "te-vtab",
                             "te-xchunked", "trailer-content-length", "trailer-field", "trailer-host",
                             "trailer-invalid-name", "trailer-line-bare-lf", "trailer-section-bare-lf",
                             "trailer-transfer-encoding", "underscore-cl", "underscore-cl-collides", "version-111",
                             "version-20", "version-ftp", "version-lower-case", "version-missing",
                             "version-two-digits"), ('uwsgi',)),
    waitress_parser=Known(("asterisk-get", "authority-form-get", "chunk-ext-bws", "cl-and-te", "h2-preface",
                           "host-invalid", "host-list", "host-missing", "host-twice", "last-chunk-bare-lf",
                           "lf-line-endings", "target-nul", "te-and-cl", "te-cl-http10-keepalive", "te-empty",
                           "te-http10", "te-http10-keepalive", "trailer-invalid-name", "trailer-line-bare-lf",
                           "trailer-section-bare-lf", "version-20", "version-missing"), ('waitress',)),
    go_cl_te_keepalive=Known(("chunk-ext-bws", "chunk-ext-nul", "chunk-size-leading-zeros",
                              "chunk-size-trailing-space", "cl-1m-unread", "cl-and-te", "expect-100",
                              "expect-100-early", "te-and-cl", "te-cl-http10-keepalive", "te-empty-element-first",
                              "te-empty-element-last", "te-http10", "te-http10-keepalive", "trailer-invalid-name",
                              "trailer-section-bare-lf"),
                             ('go',)),
    fasthttp_parser=Known(("chunk-ext-bws", "chunk-ext-nul", "chunk-size-leading-zeros", "chunk-size-trailing-space",
                           "host-empty", "lf-line-endings", "name-with-space", "te-empty-element-first",
                           "te-empty-element-last", "te-identity", "trailer-content-length", "trailer-host",
                           "trailer-invalid-name", "trailer-section-bare-lf", "trailer-transfer-encoding",
                           "version-20"), ('github.com/valyala/fasthttp',)),
    blacksheep_head=Known(("head-with-body",), ('blacksheep',)),
    granian_empty_host=Known(("http10", "http10-then-more"), ('granian', 'django')),
    django_method_upper=Known(("method-lower-case",), ('granian', 'django')),
    django_host_reg_name=Known(("host-empty", "host-reg-name"), ('django',)),
    emmett_method_404=Known(("method-lower-case", "method-unknown"), ('emmett',)),
    falcon_head=Known(("head-with-body",), ('falcon',)),
    falcon_asgi_http_version=Known(("http12-minor",), ('hypercorn', 'falcon')),
    fastapi_head=Known(("head-with-body",), ('fastapi',)),
    werkzeug_method_case=Known(("method-lower-case",), ('werkzeug', 'flask')),
    granian_ft_flask_unread_body=Known(("chunk-cut-eof", "chunk-data-cr-x", "chunk-data-lf-only",
                                        "chunk-data-too-long", "chunk-data-two-byte-terminator", "chunk-data-x-lf",
                                        "chunk-ext-bws", "chunk-ext-name-only", "chunk-ext-nul", "chunk-ext-quoted",
                                        "chunk-ext-token", "chunk-last-ext", "chunk-size-leading-zeros",
                                        "chunk-size-signed-wrap", "chunk-size-trailing-space", "chunk-size-upper-hex",
                                        "chunk-split-size", "cl-1m-unread", "cl-and-te", "cl-body-split",
                                        "cl-short-body-eof", "expect-100", "expect-100-early", "last-chunk-bare-lf",
                                        "last-chunk-ext-bare-lf", "last-chunk-split", "te-and-cl", "te-chunked",
                                        "te-chunked-twice", "te-chunked-upper-case", "te-empty-element-first",
                                        "te-gzip-chunked", "te-identity-chunked", "te-tab-ows", "te-two-lines",
                                        "trailer-content-length", "trailer-field", "trailer-host",
                                        "trailer-invalid-name", "trailer-line-bare-lf", "trailer-section-bare-lf",
                                        "trailer-transfer-encoding"),
                                       ('granian', 'flask')),
    litestar_head=Known(("head-with-body",), ('litestar',)),
    go_router_asterisk=Known(("asterisk-get",), ('github.com/labstack/echo/v4', 'github.com/gin-gonic/gin')),
    gunicorn_asgi_parser=Known(("absolute-form", "absolute-form-other-host", "cl-1m-unread", "cl-body-after-pause",
                                "cl-body-split", "expect-100-early", "host-invalid", "host-list", "host-missing",
                                "http12-minor", "te-empty-element-first", "te-empty-element-last",
                                "trailer-content-length", "trailer-host", "trailer-invalid-name",
                                "trailer-transfer-encoding"), ("gunicorn",)),
    sanic_head=Known(("head-with-body",), ("sanic", "sanic-ext")),
    cheroot_unread_chunked_body=Known(("chunk-cut-eof", "chunk-data-cr-x", "chunk-data-lf-only",
                                       "chunk-data-too-long", "chunk-data-two-byte-terminator", "chunk-data-x-lf",
                                       "chunk-ext-64k", "chunk-ext-bare-cr", "chunk-ext-bare-lf", "chunk-ext-bws",
                                       "chunk-ext-cr-cr-x", "chunk-ext-name-only", "chunk-ext-nul",
                                       "chunk-ext-quoted", "chunk-ext-quoted-lf", "chunk-ext-token", "chunk-last-ext",
                                       "chunk-size-0x", "chunk-size-cr", "chunk-size-leading-space",
                                       "chunk-size-leading-zeros", "chunk-size-lf", "chunk-size-missing",
                                       "chunk-size-negative", "chunk-size-not-hex-eof", "chunk-size-nul",
                                       "chunk-size-overflow", "chunk-size-plus", "chunk-size-signed-wrap",
                                       "chunk-size-trailing-space", "chunk-size-underscore", "chunk-size-upper-hex",
                                       "chunk-split-size", "cl-and-te", "cl-huge", "cl-negative",
                                       "last-chunk-bare-lf", "last-chunk-split", "obs-fold-te", "tab-before-colon-te",
                                       "te-and-cl", "te-chunked", "te-chunked-twice", "te-chunked-upper-case",
                                       "te-empty-element-first", "te-empty-element-last", "te-tab-ows",
                                       "te-two-lines", "te-vtab", "trailer-content-length", "trailer-field",
                                       "trailer-invalid-name"), ("cheroot",), unread=True,
                                      haproxy_race=CHEROOT_UNREAD),
    cheroot_parser=Known(("absolute-form", "chunk-data-cr-x", "chunk-data-x-lf", "chunk-size-nul", "cl-and-te",
                          "cl-duplicate-differ", "cl-huge", "cl-name-vtab", "cl-negative", "cl-plus-sign",
                          "cl-short-body-eof", "cl-underscore", "expect-100-http10", "host-invalid", "host-list",
                          "host-missing", "host-twice", "http12-minor", "last-chunk-ext-bare-lf", "method-not-token",
                          "name-empty", "name-non-ascii", "name-with-nul", "name-with-paren", "name-with-space",
                          "space-before-colon", "space-before-colon-cl", "tab-before-colon-te", "target-nul",
                          "te-and-cl", "te-chunked-twice", "te-cl-http10-keepalive", "te-empty", "te-http10",
                          "te-http10-keepalive", "te-name-dotless-i", "te-name-long-s", "te-two-lines", "te-vtab",
                          "trailer-line-bare-lf", "trailer-section-bare-lf"), ("cheroot",), haproxy_race=CHEROOT_UNREAD),
    cheroot_chunked_reader=Known(("chunk-cut-eof", "chunk-data-lf-only", "chunk-data-too-long",
                                  "chunk-data-two-byte-terminator", "chunk-ext-bare-cr", "chunk-ext-bare-lf",
                                  "chunk-ext-cr-cr-x", "chunk-ext-nul", "chunk-ext-quoted-lf", "chunk-size-0x",
                                  "chunk-size-cr", "chunk-size-leading-space", "chunk-size-lf", "chunk-size-missing",
                                  "chunk-size-negative", "chunk-size-not-hex-eof", "chunk-size-overflow",
                                  "chunk-size-plus", "chunk-size-signed-wrap", "chunk-size-trailing-space",
                                  "chunk-size-underscore", "last-chunk-bare-lf", "last-chunk-split",
                                  "trailer-content-length", "trailer-field", "trailer-host", "trailer-invalid-name",
                                  "trailer-transfer-encoding"), ("cheroot",),
                                 racy=("trailer-content-length", "trailer-field", "trailer-host", "trailer-transfer-encoding"),
                                 race=("behind HAProxy, the trailer cheroot leaves unread reaches it as the next request or not, as "
                                       "HAProxy's and cheroot's reads and closes fall"), haproxy_race=CHEROOT_UNREAD),
    cheroot_first_field_500=Known(("whitespace-before-first-field",), ("cheroot",)),
)

assert all(case in BY_ID for spec in KNOWN.values() for case in (*spec.cases, *spec.racy)), [
    case for spec in KNOWN.values() for case in (*spec.cases, *spec.racy) if case not in BY_ID]
