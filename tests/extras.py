"""Which entries cannot run on this Python because an extra was left out (`pip install -e '.[flask,test]'`
alone): their tests are skipped, saying which extra installs what is missing."""
from __future__ import annotations

import functools
import importlib.metadata

from servers.core import catalog


@functools.cache
def _installed(distribution: str) -> bool:
    try:
        importlib.metadata.distribution(distribution)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def _extra_of(package: str, name: str) -> str:
    """The extra that installs a package, the one named in the entry's name first (uvloop: sanic's, for sanic)."""
    having = [extra for extra, requirements in catalog.EXTRAS.items()
              if any(r.lower().startswith(package.lower()) for r in requirements)]
    return next((x for x in having if x in name.split("_")), having[0] if having else "all")


def missing(name: str) -> str | None:
    """Why an entry cannot run on this Python (a distribution of it not installed: its extra was left out),
    None when it can. Go entries and the free-threaded ones (their own interpreter) are not this Python's."""
    entry = catalog.get(name)
    if entry.language != "python" or entry.free_threaded:
        return None
    absent = [p for p in entry.packages if not _installed(p)]
    if not absent:
        return None
    wanted = {_extra_of(p, name) for p in absent}
    named = {x for x in wanted if x in name.split("_")}  # sanic's extra brings uvloop too
    return (f"{name} needs {', '.join(absent)}, not installed here: "
            f"pip install -e '.[{','.join(sorted(named or wanted))}]' (or ./setup.sh, which installs every extra)")
