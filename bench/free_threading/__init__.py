"""docs/free-threading.md's measured section (`bench.sh free-threading`): document.py writes it (the entry)
from comparison.py, which reads the free-threaded and GIL builds side by side off a run's report model."""
