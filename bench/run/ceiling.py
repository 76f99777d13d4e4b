"""The backend's own ceiling beside every backend run: what Mongo or Redis serves to a direct
client loop (backends.ceiling) asking what the route asks (a lookup, or /fortunes' whole collection),
measured once per backend, query and concurrency, just before the first run that needs it. A closed
loop's is measured at its concurrency; an open loop's steps (a capacity ramp's, a --rate run's) offer a
rate, not a concurrency, and are held against the ceiling at OPEN_LOOP_CONCURRENCY, the most the backend
served there. Recorded in Result.backend_ceiling; a run at BACKEND_BOUND of it or more is void
(bench/selfcheck.py), and the reports show each row's requests/s as a share of it, so the bound (stack or
backend) is visible.
"""
from __future__ import annotations

from servers.core import catalog

from bench import defaults
from bench.planning.plan import RunSpec

MAX_DURATION_S = 3.0
OPEN_LOOP_CONCURRENCY = defaults.CONNECTIONS  # an open loop's steps are held against the ceiling at this concurrency


class Ceilings:
    """ceilings.for_run(run) -> the ceiling dict for that run's backend and concurrency, or {}."""

    def __init__(self, urls: dict[str, str], users: int, note=lambda text, style=None: None):
        self.urls = urls  # backend -> URL; a backend without one (not needed, or not reachable) is skipped
        self.users = users
        self.note = note
        self._measured: dict[tuple[str, int], dict] = {}

    def for_run(self, run: RunSpec) -> dict:
        """The ceiling of run's backend for what its route asks, at its concurrency (an open loop's: at
        OPEN_LOOP_CONCURRENCY); {} for a route without a backend, or a backend without a URL here."""
        from backends.ceiling import query_of

        backend = catalog.backend_of(run.operation)
        if not backend or not self.urls.get(backend):
            return {}
        open_loop = bool(run.rate or run.mode)
        concurrency = OPEN_LOOP_CONCURRENCY if open_loop or not run.connections else run.connections
        key = (backend, query_of(run.operation), concurrency)
        if key not in self._measured:
            self._measured[key] = self._measure(*key, min(run.duration_s or 0, MAX_DURATION_S) or MAX_DURATION_S)
        return dict(self._measured[key])

    def _measure(self, backend: str, query: str, concurrency: int, duration_s: float) -> dict:
        try:
            from backends.ceiling import CeilingError, measure
        except ImportError as exc:
            return {"backend": backend, "query": query, "concurrency": concurrency, "error": f"backends.ceiling: {exc}"}
        what = "" if query == "lookup" else f" ({query})"
        self.note(f"measuring the {backend}{what} ceiling at concurrency {concurrency} ...")
        try:
            ceiling = measure(backend, self.urls[backend], concurrency, duration_s, self.users, query)
        except (CeilingError, OSError, ValueError, KeyError) as exc:
            self.note(f"{backend}{what} ceiling: {exc}", "yellow")
            return {"backend": backend, "query": query, "concurrency": concurrency, "error": str(exc)}
        self.note(ceiling.line())
        return ceiling.as_dict()
