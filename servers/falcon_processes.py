"""Falcon on werkzeug's development server forking a process per connection (at most --workers).

Each child serves one connection and exits, so pooled clients live only that long.
"""
from servers.core.launch import launch

if __name__ == "__main__":
    launch("falcon_processes")
