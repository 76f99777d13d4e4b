"""The grid's controls: for each attack probe, a build known vulnerable to it and one known fixed, run with the
same probe and judge as the grid's endpoints. A probe whose judge does not call the first down or degraded and
the second held proves nothing and leaves the grid (docs/http2-grid.md shows its controls, not its verdicts).

A control is one of ours, started like an entry (a ready line on stdout, stopped with its tree):
- Go (controls/go, gocontrol.py): GET / and the reflection route served by golang.org/x/net/http2 itself,
  pinned per build in a go.xnet-<version>.mod to the x/net release before and after an upstream fix;
- Python (faulty.py): a small server on python-hyper's h2 with one deliberate fault, where no vulnerable
  release is still served and installable with today's h2 (as tests/conformance/miniserver.py is for HTTP/1.1).

pairs.py says which control pair stands for which probe, and why each is vulnerable or fixed.
"""
