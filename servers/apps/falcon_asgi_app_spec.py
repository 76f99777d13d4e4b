"""Falcon's ASGI app (servers/apps/falcon_asgi_app.py)."""
from servers.apps.falcon_app_spec import HEAD
from servers.core.specs import ASGI, JINJA2_PATHS, PASSES_HEAD, Caveat, FrameworkSpec

SPECS = (
    FrameworkSpec(name="falcon_asgi", websocket="on_websocket responders (falcon.asgi's WebSocket docs): ws.accept(), then ws.receive_data() and send_text/send_data",
                  framework="falcon", title="Falcon's ASGI app (falcon.asgi)", interface=ASGI,
                  factory="servers.apps.falcon_asgi_app:create_app",
                  free_threaded=True,
                  details="Falcon routes to `async def on_get` responders and serializes resp.media per "
                          "request. Mongo through AsyncMongoClient and Redis through "
                          "redis.asyncio, made in the worker's loop.",
                  pip_packages=("falcon", "jinja2", "markupsafe"), lesson="falcon", code_paths=("falcon/",),
                  template_paths=JINJA2_PATHS,
                  left_out=(("granian-asgi", "granian 2.8 gives an HTTP/1.0 request http_version \"1\" (ASGI "
                                             "says \"1.0\"): Falcon answers 500"),),
                  combination_caveats=(("uvicorn", Caveat(
                      "http-version-500",
                      "uvicorn (httptools) hands HTTP/0.9 and HTTP/2.0 request lines to the app, and Falcon's "
                      "ASGI app refuses such a scope by raising: uvicorn answers them 500, not 400",
                      # the barrage is random: a run may send no HTTP/0.9 or 2.0 line
                      evidence=(("test_hostile_requests_are_refused_not_crashing[{name}]", False),))),
                                       ("hypercorn", Caveat(
                      "falcon-asgi-http-version",
                      "HTTP/1.1: Hypercorn hands an HTTP/1.2 request line to the app as http_version 1.2, and "
                      "Falcon's ASGI app refuses such a scope by raising: Hypercorn answers it 500",
                      effects=("crash",)))),
                  caveats=((PASSES_HEAD, HEAD),)),
)
