"""HTTP/1.1 conformance of every stack's parser, observed where it lives: cases from RFC 9112/9110 (cases.py), a
strict reference parser (reference.py), the observation of one connection (observe.py), the judge's taxonomy
(verdict.py), where each cell runs and what a stack inherits (grid.py, inheritance.py), the pinned records
(pinning.py), the caveats' cases (known.py), fronts (nginx.py, haproxy.py) and the page (report.py;
`python -m tests.conformance`). The grid runs in tests/reliability/test_reliability_conformance.py."""
