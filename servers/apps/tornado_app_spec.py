"""tornado's RequestHandlers (servers/apps/tornado_app.py), on tornado's own HTTPServer."""
from servers.core.specs import FrameworkSpec

SPECS = (
    FrameworkSpec(name="tornado", framework="tornado", title="tornado", interface="tornado",
                  factory="servers.apps.tornado_app:create_app", pip_packages=("tornado",), lesson="tornado",
                  parser_owner=True,
                  code_paths=("tornado/web.py", "tornado/routing.py", "tornado/escape.py")),
)
