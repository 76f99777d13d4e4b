"""tornado's RequestHandlers (servers/apps/tornado_app.py), on tornado's own HTTPServer."""
from servers.core.specs import FrameworkSpec

SPECS = (
    FrameworkSpec(name="tornado", websocket="WebSocketHandler subclasses (its websocket docs): on_message writes each message back with binary= as it came",
                  framework="tornado", title="tornado", interface="tornado",
                  factory="servers.apps.tornado_app:create_app", pip_packages=("tornado",), lesson="tornado",
                  parser_owner=True,
                  code_paths=("tornado/web.py", "tornado/routing.py", "tornado/escape.py"),
                  # tornado.template, the module it compiles the template into (named after the template)
                  # and the one function of tornado/escape.py that escapes every {{ }}
                  template_paths=("tornado/template.py", "fortunes_html.generated.py",
                                  "tornado/escape.py#xhtml_escape")),
)
