"""Flask on gunicorn's gthread workers: each of --workers processes runs a pool of 16 threads.

Connections are kept alive; a blocking driver call holds one thread of its worker's pool.
"""
from servers.core.launch import launch

if __name__ == "__main__":
    launch("flask_gunicorn_gthread")
