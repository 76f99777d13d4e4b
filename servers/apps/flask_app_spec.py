"""Flask's app (servers/apps/flask_app.py)."""
from servers.adapters.granian_server_spec import EMPTY_PATH
from servers.core.specs import WSGI, Caveat, FrameworkSpec

# HTTP/1.1 conformance (tests/conformance): on the servers whose parser passes the request on.
_METHOD_CASE = Caveat("werkzeug-method-case", "HTTP/1.1: werkzeug upper-cases the method: `get /` is served as GET",
                      effects=("refuse-shape",))
# The servers that pass a method that is no token on (CPython's http.server, wsgiref, gevent's WSGIServer, cheroot)
METHOD_NOT_TOKEN = Caveat("method-not-token", "HTTP/1.1: the server passes a method that is no token (`G@T /`) on to "
                                              "the app, which answers it 405, where the server should refuse it (400)",
                                              effects=("refuse-shape",))
METHOD_NOT_TOKEN_SERVERS = ("werkzeug", "werkzeug-threaded", "werkzeug-processes", "gevent", "wsgiref", "cheroot")
# granian 2.7.9 on 3.13t (its free-threaded variant only): Django's and Falcon's apps on it give the GIL build's answers
_GRANIAN_FT_UNREAD_BODY = Caveat(
    "granian-ft-flask-unread-body",
    "HTTP/1.1: on free-threaded 3.13t (granian 2.7.9), when Flask's routing answers 405 (a method its URL rule does "
    "not allow) to a request with a chunked body, or a Content-Length body that arrives after the head, granian reads "
    "no further request on that connection: the next one hangs unanswered (a body sent whole with its head is "
    "drained; a view's own 405 does not do it)", effects=("desync",), gil=False)
# What uWSGI hands on that an app answers unless it refuses it itself (Falcon's does): Flask's and the bare app's
UWSGI_HTTP09 = Caveat("uwsgi-http09",
                      "HTTP/1.1: uWSGI hands the app a request line without a version (HTTP/0.9), with tabs, after an "
                      "empty line or with a method that is no token: the app answers it (Flask 200 to `GET /` "
                      "without a version)", effects=("refuse-shape",))

# pyproject.toml's extras of this module's stacks (python -m servers.generate writes them there).
EXTRAS = {"flask": ("flask>=3.1.3", "werkzeug>=3.1.8", "flask-pymongo>=3.0.1")}
# Where the lessons' source links point: distribution -> (GitHub repository, tag of version v, package folder).
SOURCES = {"flask": ("pallets/flask", "{v}", "src/")}

SPECS = (
    FrameworkSpec(name="flask", framework="flask", title="Flask", interface=WSGI,
                  factory="servers.apps.flask_app:create_app",
                  free_threaded=True,
                  details="Flask-PyMongo's client and redis-py's pool are made when the app is built, in the "
                          "process that serves (after any fork).",
                  pip_packages=("flask", "werkzeug"), mongo_driver="flask-pymongo", lesson="flask",
                  default_server="gunicorn-sync",
                  combination_caveats=(*((server, _METHOD_CASE) for server in (
                      "werkzeug", "werkzeug-threaded", "werkzeug-processes", "gevent", "tornado-wsgi", "twisted-wsgi",
                      "wsgiref", "uwsgi", "granian-wsgi")), ("uwsgi", UWSGI_HTTP09), ("granian-wsgi", EMPTY_PATH),
                      ("granian-wsgi", _GRANIAN_FT_UNREAD_BODY),
                      *((server, METHOD_NOT_TOKEN) for server in METHOD_NOT_TOKEN_SERVERS)),
                  # redis-py with hiredis's parser everywhere; on gevent (the Redis comparisons'
                  # Flask stack) also without it (docs/backends/redis.md)
                  redis_variants=("redispy",), variants_on=("gevent",),
                  code_paths=("flask/", "werkzeug/", "blinker/", "itsdangerous/")),
)
