"""Flask on gunicorn's sync workers: --workers forked processes, one request at a time each.

Sync workers close the connection after every response (no keep-alive); each worker builds the
app after the fork, so Flask-PyMongo's client is the worker's own.
"""
from servers.core.launch import launch

if __name__ == "__main__":
    launch("flask_gunicorn")
