"""Handing an app path and its Options to a server process we do not fork ourselves (uWSGI's
workers load the app by import path): through one environment variable."""
from __future__ import annotations

import dataclasses
import json
import os

from servers.core.options import Options

VARIABLE = "REFSUITE_APP"


def to_environ(app_path: str, options: Options) -> dict[str, str]:
    return {VARIABLE: json.dumps({"app_path": app_path, "options": dataclasses.asdict(options)})}


def from_environ() -> tuple[str, Options]:
    handed = json.loads(os.environ[VARIABLE])
    return handed["app_path"], Options(**handed["options"])
