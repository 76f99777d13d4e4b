"""A control server as a process: started and stopped like a catalog entry (harness.entry.EntryProcess: its
ready line, its stderr, its whole tree stopped), on a command line of its own instead of the catalog's."""
from __future__ import annotations

from harness.entry import EntryProcess
from h2grid.controls.pairs import Control


class ControlProcess(EntryProcess):
    def __init__(self, control: Control, args: list[str], prefix: list[str] | None = None):
        super().__init__(control.key, args, prefix=prefix)
        self.control = control

    def command(self) -> list[str]:
        return [*self.prefix, *self.control.argv(), *self.args]
