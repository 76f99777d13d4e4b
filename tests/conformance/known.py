"""Which conformance cases each HTTP/1.1 caveat of the catalog stands for.

A caveat's text and the stacks that carry it live in the catalog (servers/core/catalog.py CAVEATS,
Entry.caveats); here, the cases (tests/conformance/cases.py) it makes fail on every stack that
carries it, and the packages whose versions its reproduction names. tests/reliability/conftest.py
turns each into strict expected failures of test_http_conformance[<stack>-<case>] (expected(): a
server's Host rules do not fail where the app enforces them itself, FrameworkSpec.host_checks).
"""
from __future__ import annotations

from dataclasses import dataclass

from servers.core import catalog

from .cases import BY_ID, SMUGGLING

HOST_RULES = ("host-missing", "host-twice", "host-invalid")
FIELD_NAMES = ("name-with-space", "name-with-paren", "name-with-nul", "name-non-ascii")
BAD_VERSIONS = ("version-20", "version-lower-case", "version-two-digits", "version-111", "version-ftp")


@dataclass(frozen=True)
class Known:
    cases: tuple[str, ...]
    packages: tuple[str, ...]  # whose versions the reproduction names ("python" for the stdlib)
    key: str = ""
    # Cases whose failure shows only when the server reads on before our EOF reaches it (a second
    # answer to bytes left after the first request): expected, not strict.
    racy: tuple[str, ...] = ()
    # Cases this caveat makes pass on its stacks where another of theirs stands for them failing
    passes: tuple[str, ...] = ()

    def stacks(self) -> list[str]:
        return [e.name for e in catalog.ENTRIES if self.key in expected(e).values()]

    @property
    def smuggling(self) -> bool:
        return any(BY_ID[case].cls == SMUGGLING for case in self.cases)


def _known(**specs: Known) -> dict[str, Known]:
    return {key.replace("_", "-"): Known(spec.cases + spec.racy, spec.packages, key.replace("_", "-"), spec.racy,
                                         spec.passes)
            for key, spec in specs.items()}


KNOWN: dict[str, Known] = _known(
    http_server_parser=Known((*HOST_RULES, *FIELD_NAMES, *BAD_VERSIONS, "name-empty", "line-without-colon",
                              "space-before-colon", "bare-cr-in-value-cl", "bare-cr-request-line",
                              "version-missing", "leading-empty-line"), ("python", "werkzeug")),
    wsgiref_absolute_form=Known(("absolute-form",), ("python",)),
    werkzeug_method_case=Known(("method-lower-case",), ("werkzeug", "flask")),
    gunicorn_parser=Known(("host-missing", "host-invalid", "http12-minor"), ("gunicorn",)),
    gunicorn_body_after_answer=Known(("chunk-data-lf-only", "chunk-data-too-long", "chunk-ext-bare-cr",
                                      "chunk-ext-bare-lf", "chunk-size-0x", "chunk-size-leading-space",
                                      "chunk-size-missing", "chunk-size-negative", "chunk-size-not-hex-eof",
                                      "chunk-size-plus", "chunk-size-trailing-space", "chunk-size-underscore",
                                      "trailer-content-length", "trailer-invalid-name"), ("gunicorn",)),
    gevent_parser=Known((*HOST_RULES, *FIELD_NAMES, "absolute-form", "bare-cr-in-value-cl", "chunk-ext-bare-lf",
                         "cl-and-te", "te-and-cl", "cl-duplicate-differ", "cl-plus-sign", "cl-underscore",
                         "line-without-colon", "name-empty", "space-before-colon", "space-before-colon-cl",
                         "tab-before-colon-te", "te-chunked-not-final", "te-chunked-twice", "te-two-lines",
                         "te-empty", "te-gzip-chunked", "te-identity", "te-vtab", "te-xchunked", "version-missing",
                         "version-two-digits"), ("gevent",)),
    tornado_parser=Known(("absolute-form", "chunk-ext-token", "chunk-ext-quoted", "chunk-ext-name-only",
                          "chunk-last-ext", "trailer-field"), ("tornado",)),
    twisted_web=Known((*HOST_RULES, "absolute-form"), ("twisted",), racy=("te-identity",)),
    waitress_parser=Known((*HOST_RULES, "cl-and-te", "te-and-cl", "te-empty", "version-20", "version-missing"),
                          ("waitress",)),
    uwsgi_http_socket=Known((*HOST_RULES, *FIELD_NAMES, *BAD_VERSIONS, "absolute-form", "http12-minor",
                             "request-line-double-space", "request-line-trailing-space", "space-before-colon",
                             "target-with-space"), ("uwsgi",)),
    granian_parser=Known(HOST_RULES, ("granian",)),
    granian_empty_path=Known(("authority-form-get",), ("granian",)),
    granian_connect=Known(("connect", "connect-ipv6"), ("granian", "starlette")),
    uvicorn_httptools=Known((*HOST_RULES, "version-20", "version-missing"), ("uvicorn", "httptools")),
    sanic_parser=Known((*HOST_RULES, *FIELD_NAMES, "chunk-data-too-long", "chunk-ext-bare-cr", "chunk-ext-bare-lf",
                        "chunk-size-0x", "chunk-size-leading-space", "cl-non-ascii-digit", "name-empty",
                        "space-before-colon", "space-before-colon-cl", "tab-before-colon-te", "te-vtab"),
                       ("sanic",)),
    uwsgi_http09=Known(("version-missing",), ("uwsgi", "flask")),
    sanic_asterisk=Known(("asterisk-get",), ("sanic",)),
    go_cl_te_keepalive=Known(("cl-and-te", "te-and-cl"), ("go",)),
    # Django on granian (servers/apps/django_app_spec.py): the empty Host granian hands over is Django's 400,
    # as a missing Host must be on HTTP/1.1 and must not be on HTTP/1.0
    granian_empty_host=Known(("http10", "http10-then-more"), ("granian", "django"), passes=("host-missing",)),
    granian_aborted_500=Known(("cl-short-body-eof", "chunk-ext-bare-lf", "chunk-ext-bare-cr", "chunk-size-0x",
                               "chunk-size-plus", "chunk-size-negative", "chunk-size-underscore",
                               "chunk-size-leading-space", "chunk-size-overflow", "chunk-size-missing",
                               "chunk-data-too-long", "chunk-data-lf-only", "chunk-size-not-hex-eof", "chunk-cut-eof",
                               "trailer-invalid-name"), ("granian", "django")),
    django_method_upper=Known(("method-lower-case",), ("granian", "django")),
    fasthttp_parser=Known(("name-with-space", "version-20"), ("github.com/valyala/fasthttp",), racy=("te-identity",)),
    # The three body cases passed in some runs on Django's ASGI app ("405, closed"): Django answers without
    # reading the body, and the connection closed before Hypercorn read on to the request after it
    hypercorn_h11=Known(("connection-close-then-more", "http10-then-more", "version-20", "method-lower-case",
                         "absolute-form", "host-invalid"), ("hypercorn", "h11"),
                        racy=("cl-and-te", "te-and-cl", "chunk-ext-bare-cr")),
    falcon_asgi_http_version=Known(("http12-minor",), ("hypercorn", "falcon")),
)

assert all(case in BY_ID for spec in KNOWN.values() for case in (*spec.cases, *spec.passes)), "known cases exist"


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
