"""The benchmark driver behind `bench.sh`: real load tools over the catalog's entrypoints.

`python -m bench run|report|compare|presets`. It starts entrypoints (and local backends) as
processes through the harness (harness.entry, harness.backends), checks the route contract, runs wrk, ab, hey or vegeta,
and writes one JSON line per run (bench.schema.Result), a Markdown table and an HTML report.

One package per question: planning (what a run will do), run (carrying it out), capacity (the SLO, its
ramp, what the steps add up to), report (a results file as results.md and report.html), free_threading
(docs/free-threading.md's measured section); cli.py drives them.
"""
