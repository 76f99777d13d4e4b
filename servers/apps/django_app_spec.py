"""Django's WSGI application (servers/apps/django_app.py)."""
from servers.core.specs import PASSES_ANY_HOST, PASSES_LOWER_CASE_METHOD, WSGI, Caveat, FrameworkSpec

# A request without Host reaches Django with an empty one on granian, in either interface.
GRANIAN_EMPTY_HOST = Caveat(
    "granian-empty-host",
    "granian hands a request that has no Host an empty one (HTTP_HOST '' in WSGI, an empty host header in "
    "ASGI), which Django's get_host refuses: an HTTP/1.0 request without Host is answered 400, not 200",
    # the hostile catalogue always sends an HTTP/1.0 request without Host (a conformance case too)
    evidence=(("test_hostile_requests_are_refused_not_crashing[{name}]", True),), effects=("over-strict",))
# Django takes REQUEST_METHOD (scope["method"]) upper-cased: on the servers that pass a lower-case method on
# (ServerSpec.passes; gunicorn and uvicorn refuse it first).
METHOD_UPPER = Caveat(
    "django-method-upper",
    "HTTP/1.1: a server that passes a lower-case method on (granian, daphne) has Django upper-case it "
    "(HttpRequest.method): `get / HTTP/1.1` is served as GET (200), not refused", effects=("accepts-invalid",))
# HTTP/1.1 conformance (tests/conformance): on every server that hands the app any Host (ServerSpec.passes).
HOST_REG_NAME = Caveat(
    "django-host-reg-name",
    "HTTP/1.1: Django answers 400 to a valid Host, `0.0.0.0=5000` (a reg-name may hold sub-delims, RFC 3986 "
    "3.2.2), and to an empty one (RFC 9112 3.2 has a client send it where the target has no authority): "
    "get_host's pattern allows letters, digits, dots and dashes only", effects=("over-strict",))
# get_host validates the Host value (its syntax, ALLOWED_HOSTS): a repeated Host, joined into one value,
# fails it too. A missing Host falls back on SERVER_NAME (the scope's server in ASGI): served.
HOST_CHECKS = ("twice", "invalid")
# Django's template engine and its escaping (django.utils.html.escape, SafeString): the anatomy's template layer.
TEMPLATE_PATHS = ("django/template/", "django/utils/html.py", "django/utils/safestring.py")

# pyproject.toml's extras of this module's stacks (python -m servers.generate writes them there).
# 5.2 LTS: Django 6 needs Python 3.12.
EXTRAS = {"django": ("django>=5.2.19",)}
# Where the lessons' source links point: distribution -> (GitHub repository, tag of version v, package folder).
SOURCES = {"django": ("django/django", "{v}", ""), "asgiref": ("django/asgiref", "{v}", "")}

SPECS = (
    FrameworkSpec(name="django", framework="django", title="Django's WSGI application", interface=WSGI,
                  factory="servers.apps.django_app:create_app",
                  free_threaded=True,
                  details="WSGIHandler runs the middleware chain (SecurityMiddleware, CommonMiddleware, "
                          "XFrameOptionsMiddleware, the contract's error middleware), the URL resolver (a path "
                          "converter for the id) and a function view returning HttpResponse or JsonResponse "
                          "(json.dumps per request, compact). Settings configured in code in the process that "
                          "serves (after any fork); pymongo and redis-py pools made there.",
                  pip_packages=("django", "asgiref"), lesson="django", code_paths=("django/", "asgiref/"),
                  template_paths=TEMPLATE_PATHS,
                  servers=("gunicorn-sync", "gunicorn-gthread", "granian-wsgi"),
                  host_checks=HOST_CHECKS,
                  combination_caveats=(("granian-wsgi", GRANIAN_EMPTY_HOST),),
                  caveats=((PASSES_ANY_HOST, HOST_REG_NAME), (PASSES_LOWER_CASE_METHOD, METHOD_UPPER))),
)
