"""Capacity within a latency bound: search.py the SLO and the ramp that searches for it (read by the plan and
the run), tally.py what a run's steps add up to (read by the report). The run carries ramps out
(bench/run/ramper.py); the report lays capacities out (bench/report/capacity_tables.py, capacity_charts.py)."""
