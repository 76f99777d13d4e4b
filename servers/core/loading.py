"""Importing by catalog path ("module:attr"), and building an app in the serving process."""
from __future__ import annotations

import importlib
from typing import Any

from servers.core.options import Options


def import_string(path: str) -> Any:
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)


def build_app(app_path: str, options: Options) -> Any:
    """The app, in the process (worker) that serves it; on a free-threaded entry, checking the GIL on
    every request (servers.core.gil_guard)."""
    app = import_string(app_path)(options)
    from servers.core import catalog, interpreters  # the catalog reads the specs: not at import time

    entry = catalog.BY_NAME.get(options.name)
    if entry is not None and entry.interpreter == interpreters.FREE_THREADED:
        from servers.core import gil_guard

        app = gil_guard.guard(app, entry.app_spec.interface)
    return app
