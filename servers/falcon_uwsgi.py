"""Falcon on uWSGI: the master binds and forks --workers processes; each worker speaks HTTP itself
(--http-socket, no router process in front) and handles one request at a time, blocking on
backend calls, then closes the connection (no keep-alive).

Each worker builds the app after the fork (--lazy-apps); backlog 1024 (--listen). SIGTERM stops
master and workers (--die-on-term; without it uWSGI takes SIGTERM as "reload"); the master
replaces a worker that dies.
"""
from servers.core.launch import launch

if __name__ == "__main__":
    launch("falcon_uwsgi")
