"""The suite's infrastructure behind the entry and command modules of servers/: the catalog, the
shared command line of an entry, its ready line, starting any entry, and the compose model.

Like servers/__init__.py, importing this package imports nothing else (gevent patches first).
"""
