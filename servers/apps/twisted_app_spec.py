"""twisted.web's Resources (servers/apps/twisted_app.py), on twisted.web's own Site."""
from servers.core.specs import FrameworkSpec

SPECS = (
    FrameworkSpec(name="twisted", framework="twisted", title="twisted.web", interface="twisted",
                  factory="servers.apps.twisted_app:create_resource", pip_packages=("twisted",),
                  lesson="twisted-web", parser_owner=True, code_paths=("twisted/web/resource.py", "twisted/web/server.py")),
)
