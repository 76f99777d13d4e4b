"""A results file as reports: reports.write is the entry. model.py aggregates the runs once (answers.py ranks
the stacks by capacity, conditions.py says where they ran and whether the machine was quiet); tables.py
lays the model out as cells, which results_md.py (results.md) and report_html.py (report.html, with charts.py's
and capacity_charts.py's figures) render; capacity_tables.py are the capacity sections' cells,
significance.py the bootstrap behind each ranked step, compare.py two result files side by side (matches.py pairs them),
screenshot.py the report's first screen as a PNG. Nothing here runs a benchmark."""
