"""A setting's server options, handed from the suite to an entry's adapter through the environment.

A Setting (servers/core/specs.py) is extra environment for an entry: a server's own variables
(SANIC_KEEP_ALIVE) or keyword options for the server's API, carried as JSON in ENV. The adapter
merges given() over its defaults, so one entry runs under any declared setting with no new flag.
"""
from __future__ import annotations

import json
import os

ENV = "REFSUITE_SERVER_OPTIONS"


def environment(options: dict) -> dict[str, str]:
    return {ENV: json.dumps(options, sort_keys=True)} if options else {}


def given() -> dict:
    """The options the entry was started with ({} when none)."""
    return json.loads(os.environ.get(ENV) or "{}")
