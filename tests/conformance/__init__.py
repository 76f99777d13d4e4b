"""HTTP/1.1 conformance of every stack's parser: cases from RFC 9112/9110 (cases.py), a raw-socket
runner and judge (wire.py), nginx in front as the mitigation (nginx.py), and the grid in
docs/conformance.md (report.py; `python -m tests.conformance`). The tests are
tests/reliability/test_reliability_conformance.py."""
