"""The bare RSGI callable (servers/apps/bare_rsgi_app.py): granian's RSGI interface alone, and its parser owner.

Emmett's share of a request on granian is emmett_granian minus bare_rsgi_granian. It answers hello and
json only, and the reflection route (servers/apps/reflection.py).
"""
from servers.core.specs import RSGI, FrameworkSpec

SPECS = (
    FrameworkSpec(name="bare_rsgi", ws_cannot="not written yet: RSGI's WebSocket protocol (scope.proto \"ws\", protocol.accept()) is issue 47's next part",
                  framework="bare", title="Bare RSGI callable", interface=RSGI,
                  factory="servers.apps.bare_rsgi_app:create_app",
                  free_threaded=True, parser_owner=True,
                  details="The app is servers.apps.bare_rsgi_app: a plain RSGI application callable (hello and json "
                          "only), the server alone plus the reflection route (/reflect answers with the method, "
                          "target, version, header fields and body the server handed the app).",
                  ops=("hello", "json")),
)
