"""Django's ASGI application with async views (servers/apps/django_asgi_app.py)."""
from servers.apps.django_app_spec import GRANIAN_EMPTY_HOST, HOST_CHECKS, HOST_REG_NAME, METHOD_UPPER, TEMPLATE_PATHS
from servers.core.specs import ASGI, PASSES_ANY_HOST, PASSES_LOWER_CASE_METHOD, Caveat, FrameworkSpec

# Shown by tests/lessons (a thread per request) and by the reliability suite's 256 connections; Django's own way
# of running a request, so on every ASGI server.
THREAD_PER_REQUEST = Caveat(
    "django-asgi-threads",
    "Django's ASGI handler runs each request's middleware hooks in a thread started for that request "
    "(asgiref's ThreadSensitiveContext): 256 keep-alive connections make about as many threads in the "
    "workers, which on 2 cores can push some requests past 2 s",
    # timing-dependent, as connection-bursts: the threads do not always push a request past 2 s
    evidence=(("test_holds_256_connections[{name}-*]", False),))

SPECS = (
    FrameworkSpec(name="django_asgi", ws_cannot="Django's ASGIHandler serves the http scope only; its WebSockets are Channels' (a package of its own, on daphne by its docs), not written here yet",
                  framework="django", title="Django's ASGI application (async views)",
                  interface=ASGI, factory="servers.apps.django_asgi_app:create_app",
                  free_threaded=True,
                  details="ASGIHandler reads the body, then runs the same middleware and URL resolver as the "
                          "WSGI app and awaits an async view (AsyncMongoClient, redis.asyncio, made in the "
                          "worker's loop). Django runs each MiddlewareMixin hook through sync_to_async, in a "
                          "thread that each request's ThreadSensitiveContext starts anew.",
                  pip_packages=("django", "asgiref"), lesson="django", code_paths=("django/", "asgiref/"),
                  template_paths=TEMPLATE_PATHS,
                  host_checks=HOST_CHECKS,
                  caveats=(("", THREAD_PER_REQUEST), (PASSES_ANY_HOST, HOST_REG_NAME),
                           (PASSES_LOWER_CASE_METHOD, METHOD_UPPER)),
                  combination_caveats=(
                      ("granian-asgi", GRANIAN_EMPTY_HOST),
                      ("granian-asgi", Caveat(
                          "granian-aborted-500",
                          "a request whose body the client cuts short makes Django's ASGI handler return without "
                          "an answer (RequestAborted on http.disconnect, as ASGI allows), and granian then "
                          "answers 500",
                          # the hostile catalogue always sends bodies cut short (a conformance case too)
                          evidence=(("test_hostile_requests_are_refused_not_crashing[{name}]", True),))))),
)
