"""The Django app as an ASGI application with async views (`async def`), Django's docs' way.

Everything but the views is servers/apps/django_project.py's, shared with the WSGI app: the settings
(this module is their ROOT_URLCONF), the user-id converter, the JSON error handlers and the middleware. The views await
the async drivers (AsyncMongoClient, redis.asyncio) through AsyncOperations, made lazily in the
worker's event loop. Django runs an async view on the event loop; what it still runs in a thread
(sync_to_async) is listed in docs/frameworks/django.md: the hooks of the MiddlewareMixin
middleware (SecurityMiddleware, CommonMiddleware, XFrameOptionsMiddleware) on every request, and
the exception handling of a 404, 500 or 503.
"""
from __future__ import annotations

from django.core.handlers.asgi import ASGIHandler
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from servers.apps import contract
from servers.apps.django_project import COMPACT, HANDLERS, configure, found, sorted_fortunes, urls
from servers.apps.operations import AsyncOperations
from servers.core.options import Options

ops: AsyncOperations  # the worker's, set by create_app


@require_safe
async def hello(request: HttpRequest) -> HttpResponse:
    return HttpResponse(contract.HELLO, content_type=contract.TEXT)


@require_safe
async def hello_json(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"message": contract.HELLO}, json_dumps_params=COMPACT)


@require_safe
async def mongo_pooled(request: HttpRequest, user_id: int) -> JsonResponse:
    return found(await ops.mongo_pooled(user_id))


@require_safe
async def mongo_per_request(request: HttpRequest, user_id: int) -> JsonResponse:
    return found(await ops.mongo_per_request(user_id))


@require_safe
async def fortunes(request: HttpRequest) -> HttpResponse:
    rows = await ops.fortunes()
    return render(request, "fortunes.html", {"fortunes": sorted_fortunes(rows)})


@require_safe
async def redis_pooled(request: HttpRequest) -> JsonResponse:
    return found(await ops.redis_pooled())


@require_safe
async def redis_per_request(request: HttpRequest) -> JsonResponse:
    return found(await ops.redis_per_request())


urlpatterns = urls(globals())
handler400, handler404, handler500 = HANDLERS


def create_app(options: Options) -> ASGIHandler:
    global ops
    configure(options, __name__)
    ops = AsyncOperations(options)
    from django.core.asgi import get_asgi_application

    return get_asgi_application()
