"""Importing by catalog path ("module:attr"), and building an app in the serving process."""
from __future__ import annotations

import importlib
from typing import Any

from servers.core.options import Options


def import_string(path: str) -> Any:
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)


def build_app(app_path: str, options: Options) -> Any:
    return import_string(app_path)(options)
