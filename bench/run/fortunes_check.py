"""TechEmpower's verification of the fortunes test, as the suite's own code: what a `/fortunes` answer
must be for TechEmpower's toolset to pass it.

Re-implemented from TechEmpower/FrameworkBenchmarks (read, not copied):
- toolset/test_types/fortune/fortune.py: a non-empty body, a route of at least 9 characters, the
  body normalized by the parser and compared with the one valid page, then the header checks;
- toolset/test_types/fortune/fortune_html_parser.py: the normalization. Tags are kept by name only
  (attributes dropped, `<meta>`, `<link>`, `<thead>`, `<tbody>` and whatever sits in a `<script>`
  element ignored), whitespace-only text between tags dropped, a line break after `<html>`,
  `<table>`, `</head>` and `</tr>`; in text `'`, `"` and `>` are spelled `&apos;`, `&quot;`, `&gt;`.
  Of numeric character references it keeps only those of `" ' + < > / ( )` (`&#34;`, `&#x27;`,
  `&#43;` ...); any other (`&#8212;` for the dash, `&#12501;` for Japanese) is dropped, so the page
  no longer matches: the text must be sent as UTF-8. Named references are kept as written but
  `&mdash;`, which counts as the dash;
- toolset/test_types/verifications.py (verify_headers): Server, Date and Content-Type present,
  Content-Length or Transfer-Encoding, Date in the RFC 1123 form (a warning otherwise), a Date that
  differs on a request 3 s later (here: given the later answer's headers), and Content-Type matching
  `^text/html; ?charset=(UTF|utf)-8$` (the charset is required).
TechEmpower also counts the database's queries per request (verify_queries_count); the suite checks
"one query per request, no cache" by adding a row between two requests (tests/test_fortunes.py).
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from difflib import unified_diff
from html.parser import HTMLParser

FAIL, WARN = "fail", "warn"
MIN_ROUTE_LENGTH = 9  # "/fortunes"
CONTENT_TYPE = re.compile(r"^text/html; ?charset=(UTF|utf)-8$")
DATE_FORMAT = "%a, %d %b %Y %H:%M:%S %Z"

# The one page that passes, once normalized (TechEmpower's valid_fortune): the twelve rows and the
# one added at request time, sorted by message in code point order (so "fortune: ..." comes after
# every capital and the Japanese row last).
VALID = """<!doctype html><html>
<head><title>Fortunes</title></head>
<body><table>
<tr><th>id</th><th>message</th></tr>
<tr><td>11</td><td>&lt;script&gt;alert(&quot;This should not be displayed in a browser alert box.&quot;);&lt;/script&gt;</td></tr>
<tr><td>4</td><td>A bad random number generator: 1, 1, 1, 1, 1, 4.33e+67, 1, 1, 1</td></tr>
<tr><td>5</td><td>A computer program does what you tell it to do, not what you want it to do.</td></tr>
<tr><td>2</td><td>A computer scientist is someone who fixes things that aren&apos;t broken.</td></tr>
<tr><td>8</td><td>A list is only as strong as its weakest link. — Donald Knuth</td></tr>
<tr><td>0</td><td>Additional fortune added at request time.</td></tr>
<tr><td>3</td><td>After enough decimal places, nobody gives a damn.</td></tr>
<tr><td>7</td><td>Any program that runs right is obsolete.</td></tr>
<tr><td>10</td><td>Computers make very fast, very accurate mistakes.</td></tr>
<tr><td>6</td><td>Emacs is a nice operating system, but I prefer UNIX. — Tom Christaensen</td></tr>
<tr><td>9</td><td>Feature: A bug with seniority.</td></tr>
<tr><td>1</td><td>fortune: No such file or directory</td></tr>
<tr><td>12</td><td>フレームワークのベンチマーク</td></tr>
</table></body></html>"""

# Numeric character references the parser keeps, and what each becomes: the characters " ' + > < / ( ),
# each spelled three ways (&#34; &#034; &#x22;), exactly those.
_KEPT = {34: "&quot;", 39: "&apos;", 43: "+", 62: "&gt;", 60: "&lt;", 47: "/", 40: "(", 41: ")"}
_KEPT_CHARREFS = {spelling: text for value, text in _KEPT.items()
                  for spelling in (f"{value}", f"0{value}", f"x{value:x}")}
_IGNORED_TAGS = frozenset({"<meta>", "</meta>", "<link>", "</link>", "<script>", "</script>",
                           "<thead>", "</thead>", "<tbody>", "</tbody>"})


@dataclass(frozen=True)
class Problem:
    level: str  # FAIL or WARN
    message: str

    def __str__(self) -> str:
        return f"{self.level}: {self.message}"


class _Normalizer(HTMLParser):
    """A page reduced to what TechEmpower's FortuneHTMLParser compares."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.parts: list[str] = []
        self._in_script = False

    def _append(self, item: str) -> None:
        # A <script> element's content is dropped, the tags with it.
        self._in_script = item == "<script>" or (self._in_script and item != "</script>")
        if not (self._in_script or item in _IGNORED_TAGS):
            self.parts.append(item)

    def handle_decl(self, decl: str) -> None:
        self._append(f"<!{decl.lower()}>")

    def handle_charref(self, name: str) -> None:
        text = _KEPT_CHARREFS.get(name.lower())
        if text is not None:  # any other reference is dropped
            self._append(text)

    def handle_entityref(self, name: str) -> None:
        self._append("—" if name == "mdash" else f"&{name};")

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self._append(f"<{tag}>")
        if tag in ("table", "html"):
            self._append("\n")

    def handle_endtag(self, tag: str) -> None:
        self._append(f"</{tag}>")
        if tag in ("tr", "head"):
            self._append("\n")

    def handle_data(self, data: str) -> None:
        if data.strip():
            self._append(data.replace("'", "&apos;").replace('"', "&quot;").replace(">", "&gt;"))


def normalize(html: str) -> str:
    """The page as TechEmpower's parser sees it (compared with VALID)."""
    parser = _Normalizer()
    parser.feed(html)
    parser.close()
    return "".join(parser.parts)


def body_problems(body: bytes | None) -> list[Problem]:
    """The body's problems: empty, not UTF-8, or not the valid page once normalized (with the lines
    that differ, as TechEmpower reports them: `got` should be `wanted`)."""
    if not body:
        return [Problem(FAIL, "Empty response" if body is not None else "No response")]
    try:
        html = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        return [Problem(FAIL, f"body is not UTF-8: {exc}")]
    got = normalize(html)
    if got == VALID:
        return []
    problems = [Problem(FAIL, "Invalid according to the fortune parser")]
    wanted_lines, got_lines = [], []
    for line in list(unified_diff(VALID.split("\n"), got.split("\n"), n=0, lineterm=""))[2:]:
        if line.startswith("@@"):
            if wanted_lines or got_lines:
                problems.append(Problem(FAIL, f"`{''.join(got_lines)}` should be `{''.join(wanted_lines)}`"))
            wanted_lines, got_lines = [], []
        elif line.startswith("-"):
            wanted_lines.append(line[1:])
        elif line.startswith("+"):
            got_lines.append(line[1:])
    if wanted_lines or got_lines:
        problems.append(Problem(FAIL, f"`{''.join(got_lines)}` should be `{''.join(wanted_lines)}`"))
    return problems


def header_problems(headers: Mapping[str, str], later_headers: Mapping[str, str] | None = None) -> list[Problem]:
    """verify_headers(should_be='html'): headers with lower-case names; later_headers, the headers of
    the same route's answer 3 s later (TechEmpower's cached-Date check), when the caller has them."""
    problems = [Problem(FAIL, f"Required response header missing: {name}")
                for name in ("Server", "Date", "Content-Type") if name.lower() not in headers]
    if "content-length" not in headers and "transfer-encoding" not in headers:
        problems.append(Problem(FAIL, 'Required response size header missing, please include either '
                                      '"Content-Length" or "Transfer-Encoding"'))
    date = headers.get("date")
    if date is not None:
        try:
            datetime.strptime(date, DATE_FORMAT)
        except ValueError:
            problems.append(Problem(WARN, f'Invalid Date header, found "{date}", did not match "{DATE_FORMAT}".'))
    if later_headers is not None and later_headers.get("date") == date:
        problems.append(Problem(FAIL, f'Invalid Cached Date. Found "{date}" and "{date}" on separate requests.'))
    content_type = headers.get("content-type")
    if content_type is not None and not CONTENT_TYPE.match(content_type):
        problems.append(Problem(FAIL, f'Invalid Content-Type header, found "{content_type}", did not match '
                                      f'"{CONTENT_TYPE.pattern}".'))
    return problems


def problems(path: str, headers: Mapping[str, str], body: bytes | None,
             later_headers: Mapping[str, str] | None = None) -> list[Problem]:
    """Everything TechEmpower's fortune test would report on this answer, in its order: the body and
    the route first; the headers only once the page is valid."""
    found = [] if body else body_problems(body)
    if len(path) < MIN_ROUTE_LENGTH:
        found.append(Problem(FAIL, f"Route for fortunes must be at least {MIN_ROUTE_LENGTH} characters, "
                                   f"found '{path}' instead"))
    return found or body_problems(body) or header_problems(headers, later_headers)


def failures(path: str, headers: Mapping[str, str], body: bytes | None,
             later_headers: Mapping[str, str] | None = None) -> list[Problem]:
    """The problems that fail the test (warnings left out)."""
    return [p for p in problems(path, headers, body, later_headers) if p.level == FAIL]
