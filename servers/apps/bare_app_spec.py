"""The bare WSGI callable (servers/apps/bare_app.py): the server alone, and its parser owner.

The framework's share of a request is flask_X or falcon_X minus bare_X. It answers hello and json
only, which keeps the test suite's time bounded (no backend routes to test on every WSGI server),
and the reflection route (servers/apps/reflection.py): it runs on every WSGI server of the catalog
but werkzeug's forking one, which shares the threaded one's parser and connection loop
(servers/adapters/werkzeug_dev_spec.py says why).
"""
from servers.core.specs import WSGI, FrameworkSpec

_SERVERS = ("werkzeug", "werkzeug-threaded", "gunicorn-sync", "gunicorn-gthread", "gunicorn-gevent", "gevent",
            "tornado-wsgi", "twisted-wsgi", "wsgiref", "granian-wsgi", "uwsgi", "waitress", "cheroot")

SPECS = (
    FrameworkSpec(name="bare", framework="bare", title="Bare WSGI callable", interface=WSGI,
                  factory="servers.apps.bare_app:create_app",
                  free_threaded=True, parser_owner=True,
                  details="The app is servers.apps.bare_app: a plain PEP 3333 callable (hello and json only), "
                          "the server alone plus the reflection route (/reflect answers with the method, target, "
                          "version, header fields and body the server handed the app).",
                  ops=("hello", "json"), servers=_SERVERS),
)
