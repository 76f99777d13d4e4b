"""Sizes shared by adapters, so that stacks of the same model compare on the same footing."""

THREADS_PER_WORKER = 16  # gunicorn gthread, tornado WSGIContainer's executor, twisted's WSGI pool
LISTEN_BACKLOG = 1024  # sockets we bind ourselves (stdlib and wsgiref keep their own 5: a finding)
