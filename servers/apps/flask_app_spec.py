"""Flask's app (servers/apps/flask_app.py)."""
from servers.core.specs import WSGI, FrameworkSpec

SPECS = (
    FrameworkSpec(name="flask", framework="flask", title="Flask", interface=WSGI,
                  factory="servers.apps.flask_app:create_app",
                  details="Flask-PyMongo's client and redis-py's pool are made when the app is built, in the "
                          "process that serves (after any fork).",
                  pip_packages=("flask", "werkzeug"), mongo_driver="flask-pymongo", lesson="flask",
                  default_server="gunicorn-sync",
                  code_paths=("flask/", "werkzeug/", "blinker/", "itsdangerous/")),
)
