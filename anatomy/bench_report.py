"""`python -m anatomy --bench-report OUT NAME:OP ...`: an anatomy of each benchmarked stack, for
report.html (what `./bench.sh run ... --anatomy` runs as a process after the benchmark's runs).

Each entry is started again and observed (session.run) on the operation named with it, the first
one it was benchmarked on; the sections go to OUT/anatomy.html, which bench.report.reports appends to
report.html (so `bench.sh report` keeps them), and the JSON to OUT/anatomy.json.
"""
from __future__ import annotations

import json
from pathlib import Path

from anatomy import report, session

SECONDS = 6.0


def write_sections(stacks: list[tuple[str, str]], out: Path, seconds: float = SECONDS, log=print) -> Path | None:
    """One section per (entry, operation); None when none could be measured."""
    sections, data = [], []
    for name, op in stacks:
        log(f"anatomy of {name} {op} ({seconds:g} s)")
        try:
            result = session.run(session.Settings(name=name, op=op, seconds=seconds, workdir=out / "anatomy"))
        except Exception as exc:  # noqa: BLE001 - one stack's failure must not lose the report
            log(f"anatomy of {name} failed: {exc}")
            continue
        sections.append(report.as_html_section(result, report.flame_svg(result)))
        data.append(json.loads(report.as_json(result)))
    if not sections:
        return None
    (out / "anatomy.json").write_text(json.dumps(data, indent=2), encoding="utf-8")
    path = out / "anatomy.html"
    path.write_text('<h2 id="anatomy">Anatomy: how each stack served the load</h2>\n'
                    '<p class="note">python -m anatomy: processes and roles, connections, CPU by layer '
                    '(py-spy; pprof for Go), measured after the benchmark; docs/ explains each stack.</p>\n'
                    + "\n".join(sections) + "\n", encoding="utf-8")
    return path
