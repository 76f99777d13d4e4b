"""What the tools that run stacks (bench, anatomy, the tests) stand on: an entry started as a
process and waited for until its ready line (entry), the local backends a run needs, started,
seeded and stopped (backends), and the machine and versions a run is reported with (machine,
versions). Process primitives are in processes/, the command lines in servers.core.command.
bench and anatomy both use this package and never import each other.
"""
