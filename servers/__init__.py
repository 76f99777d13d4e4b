"""The reference-server suite: one entrypoint module per framework x server stack.

Importing this package imports nothing else: gevent must be able to monkey-patch first.
"""
