"""Django's WSGI application (servers/apps/django_app.py)."""
from servers.core.specs import WSGI, Caveat, FrameworkSpec

# A request without Host reaches Django with an empty one on granian, in either interface.
GRANIAN_EMPTY_HOST = Caveat(
    "granian-empty-host",
    "granian hands a request that has no Host an empty one (HTTP_HOST '' in WSGI, an empty host header in "
    "ASGI), which Django's get_host refuses: an HTTP/1.0 request without Host is answered 400, not 200")

SPECS = (
    FrameworkSpec(name="django", framework="django", title="Django's WSGI application", interface=WSGI,
                  factory="servers.apps.django_app:create_app",
                  details="WSGIHandler runs the middleware chain (SecurityMiddleware, CommonMiddleware, "
                          "XFrameOptionsMiddleware, the contract's error middleware), the URL resolver (a path "
                          "converter for the id) and a function view returning HttpResponse or JsonResponse "
                          "(json.dumps per request, compact). Settings configured in code in the process that "
                          "serves (after any fork); pymongo and redis-py pools made there.",
                  pip_packages=("django", "asgiref"), lesson="django", code_paths=("django/", "asgiref/"),
                  servers=("gunicorn-sync", "gunicorn-gthread", "granian-wsgi"),
                  combination_caveats=(("granian-wsgi", GRANIAN_EMPTY_HOST),)),
)
