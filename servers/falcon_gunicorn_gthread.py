"""Falcon on gunicorn's gthread workers: a pool of 16 threads in each of --workers processes.

Connections are kept alive; a blocking driver call holds one pool thread.
"""
from servers.core.launch import launch

if __name__ == "__main__":
    launch("falcon_gunicorn_gthread")
