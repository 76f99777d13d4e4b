"""Flask's app (servers/apps/flask_app.py)."""
from servers.core.specs import JINJA2_PATHS, PASSES_LOWER_CASE_METHOD, WSGI, Caveat, FrameworkSpec

# HTTP/1.1 conformance (tests/conformance): on the servers that pass a lower-case method on (ServerSpec.passes).
_METHOD_CASE = Caveat("werkzeug-method-case", "HTTP/1.1: werkzeug upper-cases the method: `get /` is served as GET",
                      effects=("accepts-invalid",))
# granian 2.7.9 on 3.13t (its free-threaded variant only): Django's and Falcon's apps on it give the GIL build's answers
_GRANIAN_FT_UNREAD_BODY = Caveat(
    "granian-ft-flask-unread-body",
    "HTTP/1.1: on free-threaded 3.13t (granian 2.7.9), when Flask's routing answers 405 (a method its URL rule does "
    "not allow) to a request with a chunked body, or a Content-Length body that arrives after the head, granian reads "
    "no further request on that connection and holds it: the next one hangs unanswered (a body sent whole with its "
    "head is drained; a view's own 405 does not do it)", effects=("stall",), gil=False)
# pyproject.toml's extras of this module's stacks (python -m servers.generate writes them there).
EXTRAS = {"flask": ("flask>=3.1.3", "werkzeug>=3.1.8", "flask-pymongo>=3.0.1")}
# Where the lessons' source links point: distribution -> (GitHub repository, tag of version v, package folder).
SOURCES = {"flask": ("pallets/flask", "{v}", "src/"), "jinja2": ("pallets/jinja", "{v}", "src/"),
           "markupsafe": ("pallets/markupsafe", "{v}", "src/")}

SPECS = (
    FrameworkSpec(name="flask", framework="flask", title="Flask", interface=WSGI,
                  factory="servers.apps.flask_app:create_app",
                  free_threaded=True,
                  details="Flask-PyMongo's client and redis-py's pool are made when the app is built, in the "
                          "process that serves (after any fork).",
                  pip_packages=("flask", "werkzeug", "jinja2", "markupsafe"), mongo_driver="flask-pymongo", lesson="flask",
                  template_paths=JINJA2_PATHS,
                  default_server="gunicorn-sync",
                  caveats=((PASSES_LOWER_CASE_METHOD, _METHOD_CASE),),
                  combination_caveats=(("granian-wsgi", _GRANIAN_FT_UNREAD_BODY),),
                  # redis-py with hiredis's parser everywhere; on gevent (the Redis comparisons'
                  # Flask stack) also without it (docs/backends/redis.md)
                  redis_variants=("redispy",), variants_on=("gevent",),
                  code_paths=("flask/", "werkzeug/", "blinker/", "itsdangerous/")),
)
