"""The catalog's caveats as a docs page (docs/caveats.md, written by `python -m servers.generate`): each
known limitation once, under its key (the anchor docs/catalog.md's limits column links), with the specs
that declare it, its evidence and the stacks it qualifies.
"""
from __future__ import annotations

from servers.core import catalog

EVIDENCE = "reliability test"


def _declared_by() -> dict[str, list[str]]:
    """Caveat key -> who declares it: a server spec ('gunicorn-sync'), or an app on a server ('flask on gevent')."""
    out: dict[str, list[str]] = {}
    for server in catalog.SERVERS.values():
        for caveat in server.caveats:
            out.setdefault(caveat.key, []).append(f"server {server.name}")
    for app in catalog.APPS.values():
        for on, caveat in app.combination_caveats:
            out.setdefault(caveat.key, []).append(f"{app.name} on {on}")
        for needs, caveat in app.caveats:
            out.setdefault(caveat.key, []).append(f"{app.name} on every server that passes {needs} on" if needs
                                                  else f"{app.name} on every server")
    return out


def markdown() -> str:
    declared = _declared_by()
    sections = []
    for key, text in catalog.CAVEATS.items():
        stacks = [e.name for e in catalog.ENTRIES if key in e.caveats]
        facts = [f"Declared by: {', '.join(declared.get(key, ['?']))}."]
        evidence = catalog.CAVEAT_EVIDENCE.get(key)
        if evidence:
            tests = ", ".join(f"`{pattern.replace('{name}', 'STACK')}`" + (" (must keep failing)" if strict else "") for pattern, strict in evidence)
            facts.append(f"Shown by the reliability tests {tests}.")
        if catalog.CAVEAT_H2SPEC.get(key):
            cases = ", ".join(f"`{case}`" for case in catalog.CAVEAT_H2SPEC[key])
            facts.append(f"An HTTP/2 caveat: the h2spec cases {cases} fail, as [the HTTP/2 grid](http2-grid.md) records.")
        if catalog.CAVEAT_EFFECTS.get(key):
            facts.append("An HTTP/1.1 conformance caveat: its cases are in `tests/conformance/known.py`, "
                         "its reproductions on [the conformance page](conformance.md).")
        names = ", ".join(f"`{name}`" for name in stacks) or "none now"
        sections.append(f"### {key}\n\n{text}\n\n{' '.join(facts)}\n\nStacks ({len(stacks)}): {names}.")
    return "\n\n".join(sections)
