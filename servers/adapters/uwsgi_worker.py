"""The module each uWSGI worker imports (`--module servers.adapters.uwsgi_worker:application`,
with --lazy-apps: after the fork): the app named by servers.adapters.handoff, with the Date and
Server headers uWSGI's --http-socket leaves out."""
import os

from servers.adapters.handoff import from_environ
from servers.core.loading import build_app
from servers.adapters.wsgi_headers import with_default_headers

try:
    application = with_default_headers(build_app(*from_environ()), server="uWSGI")
except KeyboardInterrupt:
    # The master stops its workers with SIGINT: one that comes while the app is still loading is
    # a stop, not a failed app (which would make --need-app end uWSGI with exit code 22).
    os._exit(0)
