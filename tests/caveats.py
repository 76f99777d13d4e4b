"""The catalog's caveats as expected failures: a caveat's evidence (Caveat.evidence, catalog.CAVEAT_EVIDENCE)
names the tests that show it on the stacks it qualifies, in any part of the suite; each is marked an
expected failure there (strict: it must keep failing, so a stack that starts to cope drops the caveat)."""
from __future__ import annotations

import fnmatch

from servers.core import catalog


def known_limitation(test_name: str) -> tuple[bool, str] | None:
    """(strict, reason) when a caveat of the test's stack names the test as its evidence."""
    for entry in catalog.ENTRIES:
        if f"[{entry.name}" not in test_name:
            continue  # every pattern names the stack first: skip the fnmatch of thousands of tests
        for key in entry.caveats:
            for pattern, strict in catalog.CAVEAT_EVIDENCE.get(key, ()):
                if fnmatch.fnmatchcase(test_name, _brackets_literal(pattern.format(name=entry.name))):
                    return strict, f"catalog caveat {key!r}: {catalog.CAVEATS[key]}"
    return None


def _brackets_literal(pattern: str) -> str:
    """A test id's [...] is literal text, not an fnmatch character class; * stays a wildcard."""
    return "".join({"[": "[[]", "]": "[]]"}.get(char, char) for char in pattern)
