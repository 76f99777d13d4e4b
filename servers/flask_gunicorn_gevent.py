"""Flask on gunicorn's gevent workers: each worker monkey-patches, then runs a greenlet per connection.

Blocking pymongo and redis-py calls yield to gevent's hub, so one worker serves many requests at once.
"""
from servers.core.launch import launch

if __name__ == "__main__":
    launch("flask_gunicorn_gevent")
