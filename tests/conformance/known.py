"""Which conformance cases each HTTP/1.1 caveat of the catalog stands for.

A caveat's text, its effects and the stacks that carry it live in the specs (servers/core/catalog.py
CAVEATS, CAVEAT_EFFECTS, Entry.caveats); here, the cases (tests/conformance/cases.py) it makes fail on
every stack that carries it, and the packages whose versions its reproduction names. The conformance
run holds each to the answers the stack's record pins (tests/conformance/pinning.py): expected():
a server's Host rules do not fail where the app enforces them itself, FrameworkSpec.host_checks.
"""
from __future__ import annotations

from dataclasses import dataclass

from servers.core import catalog

from .cases import BY_ID, SMUGGLING



@dataclass(frozen=True)
class Known:
    cases: tuple[str, ...]
    packages: tuple[str, ...]  # whose versions the reproduction names ("python" for the stdlib)
    key: str = ""
    # Cases whose answers depend on a race, `race` says which; the run retries them until they give
    # their pinned answers (test_reliability_conformance.RACE_ATTEMPTS), then holds them to those.
    racy: tuple[str, ...] = ()
    race: str = ""
    # Cases this caveat makes pass on its stacks where another of theirs stands for them failing
    passes: tuple[str, ...] = ()

    def stacks(self) -> list[str]:
        return [e.name for e in catalog.ENTRIES if self.key in expected(e).values()]

    @property
    def smuggling(self) -> bool:
        return any(BY_ID[case].cls == SMUGGLING for case in self.cases)


def _known(**specs: Known) -> dict[str, Known]:
    assert all(bool(spec.racy) == bool(spec.race) for spec in specs.values()), "a racy case needs its race stated"
    return {key.replace("_", "-"): Known(spec.cases + spec.racy, spec.packages, key.replace("_", "-"), racy=spec.racy,
                                         race=spec.race, passes=spec.passes)
            for key, spec in specs.items()}


KNOWN: dict[str, Known] = _known(
    http_server_parser=Known(("asterisk-get", "authority-form-get", "bare-cr-in-value-cl", "bare-cr-request-line",
                              "chunk-data-too-long", "chunk-data-two-byte-terminator", "chunk-ext-bare-cr",
                              "chunk-ext-bare-lf", "chunk-ext-nul", "chunk-ext-quoted-lf", "chunk-size-0x",
                              "chunk-size-leading-space", "chunk-size-missing", "chunk-size-negative",
                              "chunk-size-not-hex-eof", "chunk-size-plus", "chunk-size-underscore",
                              "cl-duplicate-differ", "cl-empty", "cl-fs-prefix", "cl-hex", "cl-inner-space",
                              "cl-list-differ", "cl-nbsp-prefix", "cl-negative", "cl-non-ascii-digit",
                              "cl-plus-sign", "cl-underscore", "host-invalid", "host-missing", "host-twice",
                              "leading-empty-line", "line-without-colon", "name-empty", "name-non-ascii",
                              "name-with-nul", "name-with-paren", "name-with-space", "space-before-colon",
                              "space-before-colon-cl", "tab-before-colon-te", "target-nul", "te-chunked-nel",
                              "te-chunked-not-final", "te-chunked-us", "te-empty", "te-fs-chunked", "te-identity",
                              "te-name-dotless-i", "te-name-long-s", "te-nbsp-chunked", "te-quoted-chunked",
                              "te-second-line-identity", "te-vtab", "te-xchunked", "version-111", "version-20",
                              "version-ftp", "version-lower-case", "version-missing", "version-two-digits"),
                              ("python", "werkzeug")),
    wsgiref_absolute_form=Known(("absolute-form",), ("python",)),
    werkzeug_method_case=Known(("method-lower-case",), ("werkzeug", "flask")),
    gunicorn_parser=Known(("chunk-data-too-long", "chunk-data-two-byte-terminator", "chunk-ext-bare-cr",
                           "chunk-ext-bare-lf", "chunk-ext-nul", "chunk-ext-quoted-lf", "chunk-size-0x",
                           "chunk-size-leading-space", "chunk-size-missing", "chunk-size-negative",
                           "chunk-size-not-hex-eof", "chunk-size-plus", "chunk-size-underscore", "host-invalid",
                           "host-missing", "http12-minor"), ("gunicorn",)),
    gunicorn_body_after_answer=Known(("chunk-cut-eof", "chunk-data-lf-only", "chunk-ext-64k",
                                      "chunk-size-trailing-space",
                                      "last-chunk-bare-lf", "trailer-content-length", "trailer-invalid-name"),
                                     ("gunicorn",)),
    gevent_parser=Known(("absolute-form", "asterisk-get", "authority-form-get", "bare-cr-in-value-cl",
                         "chunk-data-too-long", "chunk-data-two-byte-terminator", "chunk-ext-bare-cr",
                         "chunk-ext-bare-lf", "chunk-ext-nul", "chunk-ext-quoted-lf", "chunk-size-0x",
                         "chunk-size-leading-space", "chunk-size-missing", "chunk-size-negative",
                         "chunk-size-not-hex-eof", "chunk-size-plus", "chunk-size-underscore", "cl-and-te",
                         "cl-duplicate-differ", "cl-nbsp-prefix", "cl-plus-sign", "cl-underscore", "host-invalid",
                         "host-missing", "host-twice", "line-without-colon", "line-without-colon-te", "name-empty",
                         "name-non-ascii", "name-with-nul", "name-with-paren", "name-with-space",
                         "space-before-colon", "space-before-colon-cl", "tab-before-colon-te", "target-nul",
                         "te-and-cl", "te-chunked-nel", "te-chunked-not-final", "te-chunked-param",
                         "te-chunked-twice", "te-chunked-us", "te-cl-http10-keepalive", "te-empty", "te-fs-chunked",
                         "te-gzip-chunked", "te-http10-keepalive", "te-identity", "te-identity-chunked",
                         "te-name-dotless-i", "te-name-long-s", "te-nbsp-chunked", "te-quoted-chunked",
                         "te-second-line-identity", "te-two-lines", "te-vtab", "te-xchunked", "version-missing",
                         "version-two-digits"), ("gevent",)),
    tornado_parser=Known(("absolute-form", "asterisk-get", "authority-form-get", "chunk-ext-name-only",
                          "chunk-ext-quoted", "chunk-ext-token", "chunk-last-ext", "te-http10-keepalive",
                          "trailer-field"), ("tornado",)),
    twisted_web=Known(("absolute-form", "asterisk-get", "authority-form-get", "host-invalid", "host-missing",
                       "host-twice", "te-second-line-identity"), ("twisted",),
                      racy=("te-identity",), race=(
                          "twisted reads the body of `identity` until the connection closes: the answer comes when "
                          "our EOF reaches it, before or after its read of the canary")),
    waitress_parser=Known(("asterisk-get", "authority-form-get", "cl-and-te", "host-invalid", "host-missing",
                           "host-twice", "last-chunk-bare-lf", "target-64k", "target-nul", "te-and-cl",
                           "te-cl-http10-keepalive", "te-empty", "te-http10-keepalive", "version-20",
                           "version-missing"), ("waitress",)),
    uwsgi_http_socket=Known(("absolute-form", "asterisk-get", "authority-form-get", "chunk-data-too-long",
                             "chunk-data-two-byte-terminator", "chunk-ext-bare-cr", "chunk-ext-bare-lf",
                             "chunk-ext-nul", "chunk-ext-quoted-lf", "chunk-size-0x", "chunk-size-leading-space",
                             "chunk-size-missing", "chunk-size-negative", "chunk-size-not-hex-eof",
                             "chunk-size-plus", "chunk-size-underscore", "cl-duplicate-differ", "cl-empty",
                             "cl-fs-prefix", "cl-hex", "cl-inner-space", "cl-list-differ", "cl-nbsp-prefix",
                             "cl-negative", "cl-non-ascii-digit", "cl-plus-sign", "cl-underscore", "host-invalid",
                             "host-missing", "host-twice", "http12-minor", "name-non-ascii", "name-with-nul",
                             "name-with-paren", "name-with-space", "request-line-double-space",
                             "request-line-trailing-space", "space-before-colon", "space-before-colon-cl",
                             "tab-before-colon-te", "target-nul", "target-with-space", "te-chunked-nel",
                             "te-chunked-not-final", "te-chunked-us", "te-empty", "te-fs-chunked", "te-identity",
                             "te-name-dotless-i", "te-name-long-s", "te-nbsp-chunked", "te-quoted-chunked",
                             "te-second-line-identity", "te-vtab", "te-xchunked", "version-111", "version-20",
                             "version-ftp", "version-lower-case", "version-two-digits"), ("uwsgi",)),
    granian_parser=Known(("asterisk-get", "authority-form-get", "chunk-data-too-long",
                          "chunk-data-two-byte-terminator", "chunk-ext-bare-cr", "chunk-ext-bare-lf",
                          "chunk-ext-nul", "chunk-ext-quoted-lf", "chunk-size-0x", "chunk-size-leading-space",
                          "chunk-size-missing", "chunk-size-negative", "chunk-size-not-hex-eof", "chunk-size-plus",
                          "chunk-size-underscore", "host-invalid", "host-missing", "host-twice"), ("granian",)),
    granian_empty_path=Known(("authority-form-get",), ("granian",)),
    granian_connect=Known(("connect", "connect-ipv6"), ("granian", "starlette")),
    uvicorn_httptools=Known(("asterisk-get", "host-invalid", "host-missing", "host-twice", "version-20",
                             "version-missing"), ("uvicorn", "httptools")),
    sanic_parser=Known(("chunk-data-too-long", "chunk-data-two-byte-terminator", "chunk-ext-bare-cr",
                        "chunk-ext-bare-lf", "chunk-ext-nul", "chunk-ext-quoted-lf", "chunk-size-0x",
                        "chunk-size-leading-space", "chunk-size-missing", "chunk-size-negative",
                        "chunk-size-not-hex-eof", "chunk-size-plus", "chunk-size-underscore", "cl-fs-prefix",
                        "cl-non-ascii-digit", "host-invalid", "host-missing", "host-twice", "method-not-token",
                        "name-empty", "name-non-ascii", "name-with-nul", "name-with-paren", "name-with-space",
                        "space-before-colon", "space-before-colon-cl", "tab-before-colon-te", "te-fs-chunked",
                        "te-http10-keepalive", "te-name-dotless-i", "te-name-long-s", "te-vtab"), ("sanic",)),
    uwsgi_http09=Known(("leading-empty-line", "method-not-token", "request-line-tabs", "version-missing"),
    ("uwsgi", "flask")),
    sanic_asterisk=Known(("asterisk-get",), ("sanic",)),
    go_cl_te_keepalive=Known(("chunk-data-too-long", "chunk-data-two-byte-terminator", "chunk-ext-bare-cr",
                              "chunk-ext-bare-lf", "chunk-ext-nul", "chunk-ext-quoted-lf", "chunk-size-0x",
                              "chunk-size-leading-space", "chunk-size-missing", "chunk-size-negative",
                              "chunk-size-not-hex-eof", "chunk-size-plus", "chunk-size-underscore", "cl-and-te",
                              "target-64k", "te-and-cl", "te-cl-http10-keepalive", "te-http10-keepalive"), ("go",)),
    granian_empty_host=Known(("http10", "http10-then-more"), ("granian", "django"),
                             passes=("host-missing",)),
    granian_aborted_500=Known(("chunk-ext-64k", "chunk-cut-eof", "chunk-data-lf-only", "chunk-data-too-long",
                               "chunk-ext-bare-cr",
                               "chunk-ext-bare-lf", "chunk-size-0x", "chunk-size-leading-space",
                               "chunk-size-missing", "chunk-size-negative", "chunk-size-not-hex-eof",
                               "chunk-size-overflow", "chunk-size-plus", "chunk-size-underscore",
                               "cl-short-body-eof", "last-chunk-bare-lf", "trailer-invalid-name"),
                               ("granian", "django")),
    django_method_upper=Known(("method-lower-case",), ("granian", "django")),
    granian_ft_cl_te=Known(("cl-and-te", "te-and-cl"), ("granian",)),
    granian_ft_flask_unread_body=Known(("chunk-data-lf-only", "chunk-ext-bws", "chunk-ext-name-only", "chunk-ext-quoted",
                                        "chunk-ext-token", "chunk-last-ext", "chunk-size-trailing-space",
                                        "chunk-size-upper-hex", "chunk-split-size", "cl-and-te", "cl-body-split",
                                        "expect-100", "expect-100-early", "last-chunk-bare-lf", "te-and-cl",
                                        "te-chunked", "te-chunked-twice", "te-chunked-upper-case", "te-gzip-chunked",
                                        "te-identity-chunked", "te-tab-ows", "te-two-lines", "trailer-content-length",
                                        "trailer-field", "trailer-invalid-name"), ("granian", "flask")),
    fasthttp_parser=Known(("chunk-ext-nul", "name-with-space", "version-20"), ("github.com/valyala/fasthttp",),
                          racy=("te-identity",), race=(
                              "fasthttp answers before or after it has read the bytes left after the first request")),
    method_not_token=Known(("method-not-token",), ("werkzeug", "gevent", "python", "cheroot")),
    cheroot_unread_chunked_body=Known(("chunk-cut-eof", "chunk-data-lf-only", "chunk-data-too-long",
                                       "chunk-data-two-byte-terminator", "chunk-ext-64k", "chunk-ext-bare-cr",
                                       "chunk-ext-bare-lf", "chunk-ext-bws", "chunk-ext-name-only", "chunk-ext-nul",
                                       "chunk-ext-quoted", "chunk-ext-quoted-lf", "chunk-ext-token", "chunk-last-ext",
                                       "chunk-size-0x", "chunk-size-leading-space", "chunk-size-missing",
                                       "chunk-size-negative", "chunk-size-not-hex-eof", "chunk-size-overflow",
                                       "chunk-size-plus", "chunk-size-trailing-space", "chunk-size-underscore",
                                       "chunk-size-upper-hex", "chunk-split-size", "cl-and-te", "last-chunk-bare-lf",
                                       "obs-fold-te", "te-and-cl", "te-chunked", "te-chunked-twice",
                                       "te-chunked-upper-case", "te-tab-ows", "te-two-lines", "trailer-content-length",
                                       "trailer-field", "trailer-invalid-name"), ("cheroot",)),
    cheroot_parser=Known(("absolute-form", "cl-duplicate-differ", "cl-negative", "cl-plus-sign", "cl-underscore",
                          "host-invalid", "host-missing", "host-twice", "name-empty", "name-non-ascii",
                          "name-with-nul", "name-with-paren", "name-with-space", "space-before-colon",
                          "space-before-colon-cl", "tab-before-colon-te", "target-64k", "target-nul", "te-empty",
                          "te-name-dotless-i", "te-name-long-s", "te-vtab"), ("cheroot",)),
    cheroot_first_field_500=Known(("whitespace-before-first-field",), ("cheroot",)),
    django_host_reg_name=Known(("host-reg-name",), ("django",)),
    go_router_asterisk=Known(("asterisk-get",), ("github.com/labstack/echo/v4", "github.com/gin-gonic/gin")),
    hypercorn_h11=Known(("absolute-form", "asterisk-get", "authority-form-get", "chunk-ext-nul",
                         "connection-close-then-more", "host-invalid", "http10-then-more", "method-lower-case",
                         "version-20"), ("hypercorn", "h11"), racy=("cl-and-te", "te-and-cl", "chunk-ext-bare-cr"),
                        race=("Django's ASGI app answers without reading the body, and the connection may close "
                              "(405, closed) before Hypercorn reads on to the request after it")),
    falcon_asgi_http_version=Known(("http12-minor",), ("hypercorn", "falcon")),
)

assert all(case in BY_ID for spec in KNOWN.values() for case in (*spec.cases, *spec.passes)), [
    case for spec in KNOWN.values() for case in (*spec.cases, *spec.passes) if case not in BY_ID]


def expected(entry: catalog.Entry) -> dict[str, str]:
    """The cases that fail on `entry`, each with the caveat key it stands for: its caveats' cases but the
    Host rules its app enforces itself and those another of its caveats makes pass."""
    keys = [key for key in entry.caveats if key in KNOWN]
    done = {f"host-{rule}" for rule in entry.app_spec.host_checks} | {c for key in keys for c in KNOWN[key].passes}
    return {case: key for key in keys for case in KNOWN[key].cases if case not in done}


def smuggling_stacks() -> list[str]:
    """The stacks with a smuggling-relevant caveat: those measured behind nginx."""
    keys = {key for key, spec in KNOWN.items() if spec.smuggling}
    return [e.name for e in catalog.ENTRIES if keys & set(e.caveats)]
