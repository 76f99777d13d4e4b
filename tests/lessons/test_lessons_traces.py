"""The server pages' I/O facts come from recorded wire traces (docs/data/traces/, `python -m anatomy
--trace`): every server page renders its stack's trace (a table and a sequence diagram, current with the
stored data), request-paths.md's sequence diagrams are drawn from the same traces, and a page's link to
a trace row states only what that row measured. Re-recording a trace is behind the `trace` marker."""
from __future__ import annotations

import re

import pytest

from anatomy import docs, reading, tracedata, tracerender, wiretrace
from servers.core import catalog
from servers.core.lessons import DOCS, pages

SERVER_PAGES = sorted((DOCS / "servers").glob("*.md"))


def prose(text: str) -> str:
    """The page without its generated blocks (what a person wrote)."""
    for pattern in (docs.TRACE, docs.TRACE_DIAGRAM, docs.EXAMPLE, docs.TABLE):
        text = pattern.sub("", text)
    return text


@pytest.mark.parametrize("page", SERVER_PAGES, ids=lambda p: p.stem)
def test_every_server_page_renders_its_own_stacks_trace(page):
    text = page.read_text(encoding="utf-8")
    blocks = list(docs.TRACE.finditer(text))
    assert len(blocks) == 1, f"{page.name}: one <!-- trace: NAME --> block expected"
    name = blocks[0]["name"]
    assert f"docs/servers/{page.name}" in pages(catalog.get(name)), f"{name} is not served by {page.name}'s server"
    trace = tracedata.load(name)
    assert trace is not None, f"no stored trace of {name}: python -m anatomy --trace {name}"
    body = blocks[0]["body"]
    assert body == tracerender.block(trace), f"{page.name} is stale: python -m anatomy --docs --links-only"
    assert "| fact | measured |" in body and "```mermaid\nsequenceDiagram" in body


def test_request_paths_sequence_diagrams_are_drawn_from_the_traces():
    text = (DOCS / "request-paths.md").read_text(encoding="utf-8")
    blocks = list(docs.TRACE_DIAGRAM.finditer(text))
    assert len(blocks) >= 6
    for block in blocks:
        assert block["body"] == tracerender.diagram(tracedata.load(block["name"])) + "\n", block["name"]


@pytest.mark.parametrize("page", [*SERVER_PAGES, DOCS / "request-paths.md"], ids=lambda p: p.stem)
def test_a_page_states_no_io_number_its_trace_contradicts(page):
    text = page.read_text(encoding="utf-8")
    own = docs.TRACE.search(text)
    problems = []
    if own:
        trace = tracedata.load(own["name"])
        assert trace is not None, f"no stored trace of {own['name']}: python -m anatomy --trace {own['name']}"
        problems += tracerender.contradictions(prose(text), trace)
    for link in re.finditer(r"\[[^\]]+\]\((?P<page>[\w./-]+\.md)#trace-[\w-]+\)", prose(text)):
        other = docs.TRACE.search((page.parent / link["page"]).read_text(encoding="utf-8"))
        problems += tracerender.contradictions(link[0].replace(link["page"], ""), tracedata.load(other["name"]))
    assert not problems, "\n".join(problems)


def test_a_wrong_number_in_a_link_to_a_trace_row_is_caught():
    """The check can fail: a claim the stored trace contradicts is reported, the measured one is not."""
    trace = tracedata.load("starlette_uvicorn")
    rows = {row.id: row for row in tracerender.rows(trace)}
    writes = int(rows["writes"].value)
    assert not tracerender.contradictions(f"[{writes} writes](#trace-writes)", trace)
    assert tracerender.contradictions(f"[{writes + 1} writes](#trace-writes)", trace)
    idle = rows["idle"].value
    assert not tracerender.contradictions(f"[after {idle:.0f} s](#trace-idle)", trace)
    assert tracerender.contradictions(f"[after {idle + 25:.0f} s](#trace-idle)", trace)
    assert tracerender.contradictions("[after 5 s](#trace-no-such-row)", trace)


STRACE = """\
101 1700000000.100000 accept4(3<TCP:[127.0.0.1:8000]>, NULL, NULL, SOCK_CLOEXEC) = 7<TCP:[127.0.0.1:8000->127.0.0.1:5555]> <0.000010>
102 1700000000.200000 recvfrom(7<TCP:[127.0.0.1:8000->127.0.0.1:5555]>,  <unfinished ...>
101 1700000000.250000 clone(child_stack=NULL, flags=CLONE_VM|CLONE_THREAD) = 103 <0.000050>
102 1700000000.300000 <... recvfrom resumed>""..., 8192, 0, NULL, NULL) = 31 <0.100000>
102 1700000000.310000 sendto(7<TCP:[127.0.0.1:8000->127.0.0.1:5555]>, ""..., 154, 0, NULL, 0) = 154 <0.000010>
102 1700000000.320000 recvfrom(7<TCP:[127.0.0.1:8000->127.0.0.1:5555]>, 0x1, 8192, 0, NULL, NULL) = -1 EAGAIN (Resource temporarily unavailable) <0.000004>
102 1700000000.330000 sendto(9<TCP:[127.0.0.1:8000->127.0.0.1:6666]>, ""..., 13, 0, NULL, 0) = 13 <0.000010>
"""


def test_the_strace_log_is_read_per_connection_with_split_calls_joined():
    calls = wiretrace.parse_strace(STRACE)
    mine = wiretrace.on_connection(calls, 5555)
    assert [(c.tid, c.call, c.ret) for c in mine] == [(101, "accept4", 7), (102, "recvfrom", 31),
                                                      (102, "sendto", 154), (102, "recvfrom", -1)]
    assert mine[1].start == 1700000000.2 and mine[1].end == pytest.approx(1700000000.4)
    assert mine[3].failed == "EAGAIN"
    threads = wiretrace.Threads(101, {101: 101, 102: 101})
    threads.learn_clones(calls)
    assert threads.process_of[103] == 101


@pytest.mark.trace
@pytest.mark.parametrize("name", docs.traced_entries())
def test_a_fresh_trace_agrees_with_the_stored_one(name, tmp_path):
    """Re-record the trace (strace; up to about a minute and a half a stack) and compare the facts a page
    states: the calls per request and the threads that make them, and the timeouts."""
    stored, fresh = tracedata.load(name), wiretrace.run(name, bound=tracedata.load(name)["bound_s"], workdir=tmp_path)
    for old, new in zip(tracerender.rows(stored), tracerender.rows(fresh)):
        if old.count:
            assert old.value == new.value, f"{name} {old.id}: stored {old.text!r}, now {new.text!r}"
        elif old.id in ("idle", "silent", "stalled"):
            assert (old.value is None) == (new.value is None), f"{name} {old.id}: {old.text!r} -> {new.text!r}"
            if old.value is not None:
                assert abs(old.value - new.value) <= max(0.5, 0.15 * old.value), f"{name} {old.id}"


def reading_section(text: str) -> str:
    """The prose of a page's "Reading the numbers", its generated block left out."""
    assert "### Reading the numbers" in text, "a server page has a '### Reading the numbers' section (docs/contributing.md)"
    section = text.split("### Reading the numbers", 1)[1].split("\n#", 1)[0]
    return docs.READING.sub("", section)


@pytest.mark.parametrize("page", SERVER_PAGES, ids=lambda p: p.stem)
def test_reading_the_numbers_is_generated_from_the_stored_anatomy_and_trace(page):
    text = page.read_text(encoding="utf-8")
    block = docs.READING.search(text)
    assert block, f"{page.name}: no <!-- reading: NAME OP --> block under Reading the numbers"
    anatomy = tracedata.load_anatomy(block["name"], block["op"])
    assert anatomy is not None, f"no stored anatomy: python -m anatomy --docs servers/{page.stem}"
    assert block["body"] == reading.notes(anatomy, tracedata.load(block["name"])), f"{page.name} is stale"
    example = docs.EXAMPLE.search(text)
    assert f"{anatomy['load']['requests_per_s']:,.0f} requests/s" in example["body"], \
        f"{page.name}: the anatomy block and the stored anatomy are not one run"


@pytest.mark.parametrize("page", SERVER_PAGES, ids=lambda p: p.stem)
def test_reading_the_numbers_prose_restates_no_measured_figure(page):
    """A share, a latency or a measured decimal in the prose would go stale at the next --docs: the prose
    explains the generated figures and leaves the numbers to them."""
    prose_text = reading_section(page.read_text(encoding="utf-8"))
    figures = re.findall(r"\d[\d,]*(?:\.\d+)?\s*(?:%|ms\b)|\b\d+\.\d+\b|\b\d{1,3}(?:,\d{3})+\b", prose_text)
    assert not figures, f"{page.name}: measured figures in the prose: {figures}"


@pytest.mark.parametrize("page", SERVER_PAGES, ids=lambda p: p.stem)
def test_a_function_the_reading_prose_names_is_in_the_measured_profile(page):
    """`Config.__getattr__` near the top, held time in `close_graceful`: each function the prose names is
    among the stored anatomy's top on-CPU or held rows, so a re-measurement that moves it out fails here."""
    text = page.read_text(encoding="utf-8")
    block = docs.READING.search(text)
    assert block, f"{page.name}: no <!-- reading: NAME OP --> block under Reading the numbers"
    anatomy = tracedata.load_anatomy(block["name"], block["op"])
    assert anatomy is not None, f"no stored anatomy: python -m anatomy --docs servers/{page.stem}"
    cpu = anatomy["cpu"]
    functions = [row["function"].split(" (")[0] for row in cpu.get("top", []) + cpu.get("top_held", [])]
    named = [n for n in re.findall(r"`([A-Za-z_][\w.<>]*)`", reading_section(text)) if "." in n or "_" in n]
    missing = [n for n in named if not any(n in f for f in functions)]
    assert not missing, f"{page.name} names {missing}, not among the measured rows {functions}"
