"""Process primitives the whole suite stands on: stopping a process tree (tree), bounded runs of a
tool and interrupt-safe spawning (bounded), a free loopback port (ports) and the Go builds (gobuild).

Imports nothing of the project, so backends/, servers/ and the harness above them may all use it.
"""
