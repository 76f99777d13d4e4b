"""Falcon on werkzeug's development server, single-threaded.

One thread accepts and serves one HTTP/1.0 request at a time. No debugger, no reloader.
"""
from servers.core.launch import launch

if __name__ == "__main__":
    launch("falcon_dev")
