"""Falcon on gunicorn's gevent workers: monkey-patched workers, a greenlet per connection.

Blocking pymongo and redis-py calls yield to gevent's hub.
"""
from servers.core.launch import launch

if __name__ == "__main__":
    launch("falcon_gunicorn_gevent")
