"""The backend's own ceiling beside every backend run: what Mongo or Redis serves to a direct
client loop (backends.ceiling) at the run's concurrency, measured once per backend and
concurrency, just before the first run that needs it. Recorded in Result.backend_ceiling; the
reports show each row's requests/s as a share of it, so the bound (stack or backend) is visible.
"""
from __future__ import annotations

from servers.core import catalog

from bench.plan import RunSpec

MAX_DURATION_S = 3.0


class Ceilings:
    """ceilings.for_run(run) -> the ceiling dict for that run's backend and concurrency, or {}."""

    def __init__(self, urls: dict[str, str], users: int, note=lambda text, style=None: None):
        self.urls = urls  # backend -> URL; a backend without one (not needed, or not reachable) is skipped
        self.users = users
        self.note = note
        self._measured: dict[tuple[str, int], dict] = {}

    def for_run(self, run: RunSpec) -> dict:
        # The ceiling's loop is the lookup routes' query (a find_one by id, a GET): /fortunes reads a
        # whole collection, which it does not measure, so that run gets none.
        backend = next((b for b, ops in catalog.POOLED_PAIRS.items() if run.operation in ops), None)
        # Open-loop runs offer a rate, not a concurrency: their bound is the rate.
        if not backend or not self.urls.get(backend) or run.rate or not run.connections:
            return {}
        key = (backend, run.connections)
        if key not in self._measured:
            self._measured[key] = self._measure(backend, run.connections, min(run.duration_s or 0, MAX_DURATION_S)
                                                or MAX_DURATION_S)
        return dict(self._measured[key])

    def _measure(self, backend: str, concurrency: int, duration_s: float) -> dict:
        try:
            from backends.ceiling import CeilingError, measure
        except ImportError as exc:
            return {"backend": backend, "concurrency": concurrency, "error": f"backends.ceiling: {exc}"}
        self.note(f"measuring the {backend} ceiling at concurrency {concurrency} ...")
        try:
            ceiling = measure(backend, self.urls[backend], concurrency, duration_s, self.users)
        except (CeilingError, OSError, ValueError, KeyError) as exc:
            self.note(f"{backend} ceiling: {exc}", "yellow")
            return {"backend": backend, "concurrency": concurrency, "error": str(exc)}
        self.note(ceiling.line())
        return ceiling.as_dict()
