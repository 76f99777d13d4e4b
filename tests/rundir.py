"""The test run's directory, made by the run's controller and shared by every parallel worker: the on-demand
backends' state, the `alone` locks, the workers' groups, and what each worker leaves for the controller."""
from __future__ import annotations

import os
from pathlib import Path

ENV = "REFSUITE_TEST_RUN_DIR"


def path() -> Path | None:
    """The run's directory; None outside a pytest run of this suite."""
    return Path(os.environ[ENV]) if os.environ.get(ENV) else None
