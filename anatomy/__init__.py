"""Anatomy of a stack: how it serves a request, measured from outside while wrk loads it.

census (processes, roles, threads, CPU, RSS), connections (client, listen, accept queue, backend),
pyspy / pprof (CPU samples), layers (which layer a sample belongs to), flame (the SVG), session (one
run), report (text, JSON, HTML). The command is `python -m anatomy`.
"""
