"""The Django app as a WSGI application: function views (Django's docs' way), on the project of
servers/apps/django_project.py (settings, the user-id converter, the JSON error views and the
middleware, which the ASGI app shares); this module is its ROOT_URLCONF.

create_app runs in the serving process (after any fork): settings.configure may run once per
process, and the pooled clients are that process's own.
"""
from __future__ import annotations

from django.core.handlers.wsgi import WSGIHandler
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from servers.apps import contract
from servers.apps.django_project import COMPACT, HANDLERS, configure, found, sorted_fortunes, urls
from servers.apps.operations import SyncOperations
from servers.core.options import Options

ops: SyncOperations  # the worker's, set by create_app


@require_safe
def hello(request: HttpRequest) -> HttpResponse:
    return HttpResponse(contract.HELLO, content_type=contract.TEXT)


@require_safe
def hello_json(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"message": contract.HELLO}, json_dumps_params=COMPACT)


@require_safe
def mongo_pooled(request: HttpRequest, user_id: int) -> JsonResponse:
    return found(ops.mongo_pooled(user_id))


@require_safe
def mongo_per_request(request: HttpRequest, user_id: int) -> JsonResponse:
    return found(ops.mongo_per_request(user_id))


@require_safe
def fortunes(request: HttpRequest) -> HttpResponse:
    rows = ops.fortunes()
    return render(request, "fortunes.html", {"fortunes": sorted_fortunes(rows)})


@require_safe
def redis_pooled(request: HttpRequest) -> JsonResponse:
    return found(ops.redis_pooled())


@require_safe
def redis_per_request(request: HttpRequest) -> JsonResponse:
    return found(ops.redis_per_request())


urlpatterns = urls(globals())
handler400, handler404, handler500 = HANDLERS


def create_app(options: Options) -> WSGIHandler:
    global ops
    configure(options, __name__)
    ops = SyncOperations(options)
    from django.core.wsgi import get_wsgi_application

    return get_wsgi_application()
