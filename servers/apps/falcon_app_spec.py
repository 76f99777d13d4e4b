"""Falcon's WSGI app (servers/apps/falcon_app.py)."""
from servers.core.specs import JINJA2_PATHS, PASSES_HEAD, WSGI, Caveat, FrameworkSpec

# HTTP/1.1 conformance (tests/conformance): Falcon routes HEAD to an on_head responder only; its apps have on_get.
HEAD = Caveat("falcon-head", "HTTP/1.1: Falcon answers HEAD 405 where a resource has no on_head responder (RFC 9110 "
                             "9.1: a general-purpose server MUST support HEAD): `HEAD /` is refused",
              effects=("over-strict",))

# pyproject.toml's extras of this module's stacks (python -m servers.generate writes them there).
# Falcon has no template engine: /fortunes renders with Jinja2, as Falcon's FAQ shows.
EXTRAS = {"falcon": ("falcon>=4.4.0", "werkzeug>=3.1.8", "jinja2>=3.1.6")}
# Where the lessons' source links point: distribution -> (GitHub repository, tag of version v, package folder).
SOURCES = {"falcon": ("falconry/falcon", "{v}", "")}

SPECS = (
    FrameworkSpec(name="falcon", framework="falcon", title="Falcon", interface=WSGI,
                  factory="servers.apps.falcon_app:create_app",
                  free_threaded=True,
                  details="pymongo's client and redis-py's pool are made when the app is built, in the "
                          "process that serves (after any fork).",
                  pip_packages=("falcon", "jinja2", "markupsafe"), lesson="falcon", code_paths=("falcon/",),
                  template_paths=JINJA2_PATHS, default_server="gunicorn-sync",
                  caveats=((PASSES_HEAD, HEAD),)),
)
