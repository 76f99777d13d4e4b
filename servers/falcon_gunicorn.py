"""Falcon on gunicorn's sync workers: --workers forked processes, one request at a time each.

No keep-alive with sync workers; each worker builds the app (and its pooled clients) after the fork.
"""
from servers.core.launch import launch

if __name__ == "__main__":
    launch("falcon_gunicorn")
