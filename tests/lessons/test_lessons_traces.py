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


def try_it_strace(text: str) -> str:
    """A page's "strace one request" item of its Try it section."""
    section = text.split("## Try it", 1)[1].split("\n## ", 1)[0]
    return next((item for item in section.split("\n- ") if "**strace one request.**" in item), "")


@pytest.mark.parametrize("page", SERVER_PAGES, ids=lambda p: p.stem)
def test_the_try_it_strace_names_the_entry_whose_trace_its_facts_link(page):
    """tornado.md's Try it straced flask_tornado while its linked row was the native tornado entry's: where
    the item links a trace row, the entry it starts is the one the page's table traces."""
    text = page.read_text(encoding="utf-8")
    item = try_it_strace(text)
    if "#trace-" not in item:
        return
    started = re.search(r"pgrep -f servers\.(\w+)", item)
    assert started, f"{page.name}: the strace item links a trace row but names no entry (pgrep -f servers.NAME)"
    traced = docs.TRACE.search(text)["name"]
    assert started[1] == traced, f"{page.name}: Try it straces {started[1]}, the table traces {traced}"


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
    writes = tracerender.count_words(rows["writes"])
    assert not tracerender.contradictions(f"[{writes} writes](#trace-writes)", trace)
    assert tracerender.contradictions(f"[{max(rows['writes'].values) + 1} writes](#trace-writes)", trace)
    idle = min(rows["idle"].values)
    assert not tracerender.contradictions(f"[after {idle:.0f} s](#trace-idle)", trace)
    assert tracerender.contradictions(f"[after {idle + 25:.0f} s](#trace-idle)", trace)
    assert tracerender.contradictions("[after 5 s](#trace-no-such-row)", trace)


def _request(n: int, new: bool, sizes: list[int]) -> dict:
    write = {"count": len(sizes), "calls": {"writev": len(sizes)}, "threads": ["T"], "bytes": sizes}
    return {"n": n, "connection": 1, "new_connection": new, "head_bytes": 134, "body_bytes": 13,
            "read": {"count": 1, "calls": {"recvfrom": 1}, "threads": ["T"], "empty": 0}, "write": write,
            **({"accept": {"count": 1, "calls": {"accept4": 1}, "threads": ["T"]}} if new else {}), "sequence": []}


def _run(sizes: list[list[int]], idle: float) -> dict:
    closed = {"after_s": idle, "how": "FIN", "closer": {}, "answer": ""}
    return {"took_s": 1.0, "processes": [], "requests": [_request(i + 1, i == 0, s) for i, s in enumerate(sizes)],
            "idle": closed, "silent": closed, "stalled": closed,
            "slow": {"pieces": 3, "gap_s": 1.3, "answered_s": 2.6, "status": "HTTP/1.1 200 OK", "outcome": "answered",
                     "ended_s": 2.6, "closer": {}, "calls": {}, "other_latency_s": 0.02},
            "sigterm": {"open_connection": "idle keep-alive", "client_sees": "FIN", "client_after_s": 0.0,
                        "tree_gone_s": 0.2, "new_connection_after_0.2_s": "refused"}}


def _trace(*runs: dict) -> dict:
    return {"entry": "flask_granian", "versions": {"granian": "2.8.9"}, "machine": "m", "date": "d", "command": "c",
            "bound_s": 40.0, "requests_per_run": 2, "runs": list(runs)}


TOGETHER, APART = [147], [134, 13]


def test_a_fact_that_varied_is_rendered_as_what_varied_and_how_often():
    """granian wrote head and body in one writev on 2 of 4 responses, the head alone when the body was not
    ready: the row says both, with how often, and a constant says over how many samples it held."""
    trace = _trace(_run([TOGETHER, APART], 30.0), _run([APART, TOGETHER], 30.1))
    rows = {row.id: row for row in tracerender.rows(trace)}
    assert rows["writes"].varied and rows["writes"].values == [1, 2, 2, 1]
    assert rows["writes"].text.startswith("1 (1 writev): head and body together (147 B) on 2 of 4 responses; "
                                          "2 (2 writev): head (134 B), then body (13 B) on 2; by T"), rows["writes"].text
    assert rows["reads"].text.startswith("1 (1 recvfrom), on each of 4 requests"), rows["reads"].text
    assert rows["idle"].text == "30.0–30.1 s (FIN, nothing sent), in each of 2 runs", rows["idle"].text
    steady = {row.id: row for row in tracerender.rows(_trace(_run([TOGETHER, TOGETHER], 30.0)))}
    assert not steady["writes"].varied and "on each of 2 responses" in steady["writes"].text


def test_a_link_that_states_a_varied_count_as_a_constant_is_caught():
    trace = _trace(_run([TOGETHER, APART], 30.0), _run([APART, TOGETHER], 30.0))
    assert tracerender.contradictions("[1 writev](#trace-writes)", trace)  # the old claim
    assert not tracerender.contradictions("[1 or 2 writes](#trace-writes)", trace)
    assert tracerender.contradictions("[1 or 3 writes](#trace-writes)", trace)
    steady = _trace(_run([TOGETHER, TOGETHER], 30.0))
    assert not tracerender.contradictions("[1 writev](#trace-writes)", steady)


def test_a_link_that_states_an_outcome_no_run_saw_is_caught():
    """gunicorn-gevent.md said a connection made 0.2 s after SIGTERM was [still served]: one run's outcome,
    which depends on where in the worker's one-second loop the signal lands; three runs were refused."""
    trace = _trace(_run([TOGETHER], 30.0))
    assert tracerender.contradictions("[still served](#trace-sigterm)", trace)
    assert not tracerender.contradictions("[refused](#trace-sigterm)", trace)
    assert not tracerender.contradictions("[the FIN](#trace-sigterm)", trace)


def test_a_fresh_trace_outside_the_stored_samples_disagrees():
    """What the `trace` marker's test checks: a stored constant that a fresh run breaks (one sample's
    claim), or a timeout no stored run came near, is reported; a fresh run among the stored variants is not."""
    stored_constant = _trace(_run([TOGETHER, TOGETHER], 30.0))
    fresh = _trace(_run([APART, TOGETHER], 30.2))
    assert any("writes" in p for p in tracerender.disagreements(stored_constant, fresh))
    stored_varied = _trace(_run([TOGETHER, APART], 30.0), _run([TOGETHER, TOGETHER], 30.0))
    assert not tracerender.disagreements(stored_varied, fresh)
    assert any("idle" in p for p in tracerender.disagreements(stored_varied, _trace(_run([APART, TOGETHER], 5.0))))


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
@pytest.mark.timeout(5 * wiretrace.BOUND_S + 60)  # up to five bounded waits (idle, silent, stalled, slow, SIGTERM)
@pytest.mark.parametrize("name", docs.traced_entries())
def test_a_fresh_trace_agrees_with_the_stored_one(name, tmp_path):
    """Re-record one run of the trace (strace; up to about a minute and a half a stack) and compare the
    facts a page states with the stored samples: a count the stored runs never took (a fact they show as
    a constant that varies), or a timeout no stored run came near, fails."""
    stored = tracedata.load(name)
    fresh = wiretrace.run(name, bound=stored["bound_s"], workdir=tmp_path, runs=1)
    problems = tracerender.disagreements(stored, fresh)
    assert not problems, "\n".join(problems)


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
