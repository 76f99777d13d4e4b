"""What a run will do, decided before anything starts: the command line's or a preset's Settings
(plan.py), the entries and operations they name (selection.py), the named benchmarks (presets.py),
and the order of the runs (rounds.py). Its entry is plan.build; nothing here starts a process."""
