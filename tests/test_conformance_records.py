"""The conformance records against the code and the catalog (records/<entry>.json, tests/conformance/pinning.py):
each describes the code as it is (its hashes), pins every cell its stack runs, every non-passing cell of a
production stack is one of its caveats with that effect (and every caveat's cell still does not pass), and
docs/conformance.md is what the records render to. No server runs here: the records were written by
CONFORMANCE_RECORD=1 ./test.sh -m reliability tests/reliability/test_reliability_conformance.py."""
from __future__ import annotations

import pytest

from conformance import __main__ as page, cases, grid, known, pinning, verdict
from servers.core import catalog

RERUN = ("CONFORMANCE_RECORD=1 ./test.sh -m reliability tests/reliability/test_reliability_conformance.py -k {}")
SECTIONS = page.sections()
RECORDED = [e for e in catalog.ENTRIES if SECTIONS.get(e.name)]


@pytest.mark.parametrize("entry", RECORDED, ids=lambda e: e.name)
def test_a_record_describes_the_code_it_ran(entry):
    changed = grid.stale(entry, SECTIONS[entry.name])
    assert not changed, (f"records/{entry.name}.json was written for other code: {', '.join(changed)}; "
                         f"rerun it: {RERUN.format(entry.name)}")


@pytest.mark.parametrize("entry", RECORDED, ids=lambda e: e.name)
def test_a_record_pins_every_cell_its_stack_runs(entry):
    section = SECTIONS[entry.name]
    assert section["run"].get("role") == grid.role(entry), f"{entry.name}: recorded as {section['run'].get('role')}"
    ran = {c.id for c in grid.selected(entry)}
    assert set(section["cases"]) == ran, (sorted(ran - set(section["cases"])), sorted(set(section["cases"]) - ran))
    for case_id, cell in section["cases"].items():
        assert set(pinning.COMPARED) <= set(cell), (entry.name, case_id, cell)
        assert (cell["effect"] is None) == (cell["verdict"] == verdict.PASS), (entry.name, case_id, cell)
        assert cell["effect"] in (None, *verdict.EFFECTS), (entry.name, case_id, cell)
        if grid.racy(entry, case_id):
            assert "runs" in cell and sum(cell["runs"].values()) == grid.RACY_RUNS, (entry.name, case_id)
        else:
            assert "runs" not in cell, (f"{entry.name}: {case_id}'s answers differed while recording ({cell['runs']}): "
                                        "declare its race on the caveat it belongs to (known.py racy, race)")
    for front, cells in section.get("columns", {}).items():
        assert front in section["run"].get("fronts", {}), f"{entry.name}: the {front} column without its version"


@pytest.mark.parametrize("entry", [e for e in catalog.ENTRIES if not e.dev_only], ids=lambda e: e.name)
def test_every_failing_cell_of_a_production_stack_is_a_caveat_of_it(entry):
    """A cell that does not pass is a known limitation the catalog names on that stack, with that effect."""
    cells = grid.cells(entry.name, SECTIONS)
    uncovered = {case_id: cell["effect"] for case_id, cell in cells.items()
                 if cell.get("effect") and not grid.covering(entry, case_id, cell["effect"])}
    assert not uncovered, (f"{entry.name}: cells without a caveat of this stack declaring their effect "
                           f"(tests/conformance/known.py, Caveat.effects in the spec): {uncovered}")


def _holders(key: str) -> list[catalog.Entry]:
    return [e for e in catalog.ENTRIES if key in e.caveats]


@pytest.mark.parametrize("key", sorted(known.KNOWN))
def test_each_caveat_case_still_fails_somewhere(key):
    """Each case a caveat lists does not pass on at least one stack that carries the caveat: a case its stacks
    all pass now is taken out of it (the caveat no longer shows there)."""
    cells = {entry.name: grid.cells(entry.name, SECTIONS) for entry in _holders(key) if SECTIONS.get(entry.name)}
    passing = [case_id for case_id in known.KNOWN[key].cases
               if cells and not any(c.get(case_id, {}).get("effect") for c in cells.values())]
    assert not passing, f"caveat {key!r} no longer shows for {passing}: take those cases out of it (known.py)"


@pytest.mark.parametrize("key", sorted(known.KNOWN))
def test_each_stack_with_a_caveat_shows_it(key):
    """Per stack: every stack that carries the caveat fails at least one of its cases (a caveat that none of a stack's
    cells shows is not that stack's). The cases are the caveat's over all its stacks: one may pass on a bare app that
    reads every body and fail on a framework stack that leaves it unread (known.py says so)."""
    silent = []
    for entry in _holders(key):
        cells = grid.cells(entry.name, SECTIONS)
        if cells and not any(cells.get(case_id, {}).get("effect") for case_id in known.KNOWN[key].cases):
            silent.append(entry.name)
    assert not silent, f"caveat {key!r} shows on none of its cases on {silent}: take it off those stacks"


def test_each_caveat_declares_only_effects_its_cells_show():
    """No effect is declared that none of the caveat's cells shows (the coverage test above holds the other way)."""
    for key, spec in known.KNOWN.items():
        seen = set()
        for entry in _holders(key):
            for case_id, cell in grid.cells(entry.name, SECTIONS).items():
                if case_id in spec.cases and cell.get("effect"):
                    seen.add(cell["effect"])
        if seen:
            assert set(catalog.CAVEAT_EFFECTS[key]) <= seen, (
                f"caveat {key!r} declares {catalog.CAVEAT_EFFECTS[key]}, its cells show {sorted(seen)}: "
                "take the others out of its spec (Caveat.effects)")


def test_the_page_is_the_records():
    assert page.PAGE.read_text() == page.render(), "docs/conformance.md is stale: python -m tests.conformance"


def test_every_case_is_in_the_grid_somewhere():
    assert {c.id for c in cases.CASES} == {c.id for c in grid.selected(grid.entries(grid.OWNER)[0])}
    assert all(grid.role(e) in (grid.OWNER, grid.FRAMEWORK, grid.VARIANT) for e in catalog.ENTRIES)
