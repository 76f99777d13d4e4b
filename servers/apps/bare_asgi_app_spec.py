"""The bare ASGI callable (servers/apps/bare_asgi_app.py): the ASGI servers alone, and their parser owner.

The framework's share of a request on an ASGI server is starlette_X (or fastapi_X...) minus
bare_asgi_X. It answers hello and json only, and the reflection route (servers/apps/reflection.py).
"""
from servers.core.specs import ASGI, FrameworkSpec

SPECS = (
    FrameworkSpec(name="bare_asgi", websocket="the ASGI specification's websocket scope: websocket.accept, then each websocket.receive event sent back as websocket.send; /ws/broadcast keeps the worker's send callables in a set",
                  framework="bare", title="Bare ASGI callable", interface=ASGI,
                  factory="servers.apps.bare_asgi_app:create_app",
                  free_threaded=True, parser_owner=True,
                  details="The app is servers.apps.bare_asgi_app: a plain ASGI application callable (lifespan; "
                          "hello and json only), the server alone plus the reflection route (/reflect answers "
                          "with the method, target, version, header fields and body the server handed the app).",
                  ops=("hello", "json")),
)
