"""The bare WSGI callable (servers/apps/bare_app.py): the server alone.

The framework's share of a request is flask_X or falcon_X minus bare_X. It answers hello and json
only, which keeps the test suite's time bounded (no backend routes to test on eight more stacks),
and runs on the servers people deploy or compare (the werkzeug threaded/processes variants add
nothing a server-alone row needs).
"""
from servers.apps.flask_app_spec import METHOD_NOT_TOKEN, METHOD_NOT_TOKEN_SERVERS
from servers.core.specs import WSGI, FrameworkSpec

SPECS = (
    FrameworkSpec(name="bare", framework="bare", title="Bare WSGI callable", interface=WSGI,
                  factory="servers.apps.bare_app:create_app",
                  free_threaded=True,
                  details="The app is servers.apps.bare_app: a plain PEP 3333 callable (hello and json only), "
                          "the server alone.",
                  ops=("hello", "json"),
                  servers=("werkzeug", "gunicorn-sync", "gunicorn-gthread", "gunicorn-gevent", "gevent",
                           "tornado-wsgi", "twisted-wsgi", "wsgiref"),
                  combination_caveats=tuple((server, METHOD_NOT_TOKEN) for server in METHOD_NOT_TOKEN_SERVERS
                                            if server != "werkzeug-threaded" and server != "werkzeug-processes")),
)
