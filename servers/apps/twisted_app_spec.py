"""twisted.web's Resources (servers/apps/twisted_app.py), on twisted.web's own Site."""
from servers.core.specs import FrameworkSpec

SPECS = (
    FrameworkSpec(name="twisted", ws_cannot="twisted.web resources only: its server has no WebSocket protocol",
                  framework="twisted", title="twisted.web", interface="twisted",
                  factory="servers.apps.twisted_app:create_resource", pip_packages=("twisted",),
                  lesson="twisted-web", parser_owner=True, code_paths=("twisted/web/resource.py", "twisted/web/server.py"),
                  # twisted.web.template: the Element, the XML loader, the stan tags and the flattener
                  template_paths=("twisted/web/template.py", "twisted/web/_template_util.py",
                                  "twisted/web/_element.py", "twisted/web/_stan.py", "twisted/web/_flatten.py")),
)
