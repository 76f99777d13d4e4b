"""The Django project both Django apps share (django_app.py, WSGI; django_asgi_app.py, ASGI): the
route contract written as Django's docs write a small single-module project, all but the views.

Settings are configured in code (settings.configure, then django.setup) with ROOT_URLCONF the app's
module: `urlpatterns` of path() routes, the id matched by a registered path converter whose
to_python refuses what is not an id in 0..2**63-1 (a ValueError there is Django's "no match", so a
bad id is the resolver's 404; urls() maps ROUTES onto an app module's views). Views are functions
under @require_safe (GET and HEAD) returning HttpResponse and JsonResponse, which runs json.dumps
inside each request, with compact separators.
Errors are Django's: Http404 and the resolver's miss go to handler404, an uncaught exception to
handler500, a bad Host (a SuspiciousOperation) to handler400, all answering the contract's JSON;
one middleware of our own gives require_safe's empty 405 the contract's JSON body (keeping Allow)
and turns BackendUnavailable into a 503 (process_exception: Django's hook for that).

No DEBUG, no database, no INSTALLED_APPS: the Mongo and Redis routes go through the shared backend
access (Django's ORM speaks no Mongo). MIDDLEWARE is startproject's list less what needs a database
(sessions, auth, messages) and CSRF (no forms, no cookies: with it, a POST is refused 403 before
the view could answer 405). ALLOWED_HOSTS is DJANGO_ALLOWED_HOSTS (comma-separated), by default
"*" as TechEmpower's Django has it: the suite's stacks are reached by any name (loopback, compose
services, another host), and a Host Django cannot parse is still a 400 (get_host, called by
CommonMiddleware on every request). A deployment lists its domains there. Neither Date nor Server
comes from Django: the server adds them (gunicorn, granian, uvicorn all do).

create_app runs in the serving process (after any fork): settings.configure may run once per
process, and the pooled clients are that process's own.
"""
from __future__ import annotations

import logging
import os
import secrets
from operator import itemgetter
from pathlib import Path

import django
from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.urls import path, register_converter
from django.utils.deprecation import MiddlewareMixin

from backends.errors import BackendUnavailable
from backends.ids import parse_user_id
from servers.apps import contract
from servers.core.options import Options

COMPACT = {"separators": (",", ":")}  # JsonResponse's json_dumps_params
TEMPLATES_DIR = Path(__file__).with_name("templates") / "django"


def configure(options: Options, urlconf: str) -> None:
    """Django's settings, in code; once per process, before any request."""
    settings.configure(
        DEBUG=False,
        SECRET_KEY=os.environ.get("DJANGO_SECRET_KEY") or secrets.token_urlsafe(50),  # nothing here signs
        ALLOWED_HOSTS=os.environ.get("DJANGO_ALLOWED_HOSTS", "*").split(","),
        ROOT_URLCONF=urlconf,
        INSTALLED_APPS=[],
        DATABASES={},
        MIDDLEWARE=[
            "django.middleware.security.SecurityMiddleware",
            "django.middleware.common.CommonMiddleware",  # also sets Content-Length
            "django.middleware.clickjacking.XFrameOptionsMiddleware",
            "servers.apps.django_project.ContractErrorsMiddleware",  # innermost: its 405 gets Content-Length
        ],
        TEMPLATES=[{
            "BACKEND": "django.template.backends.django.DjangoTemplates",
            "DIRS": [TEMPLATES_DIR],
            "OPTIONS": {"context_processors": ["django.template.context_processors.request"]},
        }],
        USE_TZ=True,
        LOGGING={
            "version": 1,
            "disable_existing_loggers": False,
            "filters": {"tracebacks": {"()": "servers.apps.django_project.TracebacksOnly"}},
            "handlers": {"stderr": {"class": "logging.StreamHandler", "filters": ["tracebacks"]}},
            "loggers": {"django.request": {"handlers": ["stderr"], "level": "ERROR", "propagate": False}},
        },
    )
    django.setup()


class TracebacksOnly(logging.Filter):
    """Django logs every 4xx and 5xx response to django.request; only an uncaught exception's
    traceback goes to stderr (Django's default sends it to mail_admins alone without DEBUG), not a
    line per 503 while a backend is down."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.exc_info is not None


class UserIdConverter:
    """<user_id:...>: ASCII digits only ([0-9], not \\d), an int in 0..2**63-1."""

    regex = "[0-9]+"

    def to_python(self, value: str) -> int:
        user_id = parse_user_id(value)
        if user_id is None:
            raise ValueError(f"not a user id: {value!r}")
        return user_id

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(UserIdConverter, "user_id")


def error(status: int) -> JsonResponse:
    return JsonResponse({"error": contract.error_message(status)}, status=status, json_dumps_params=COMPACT)


def found(value: dict | None) -> JsonResponse:
    if value is None:
        raise Http404
    return JsonResponse(value, json_dumps_params=COMPACT)


def sorted_fortunes(rows: list[dict]) -> list[dict]:
    """The rows read, the request's row added, sorted by message: what /fortunes renders."""
    rows.append({"id": 0, "message": contract.ADDITIONAL_FORTUNE})
    rows.sort(key=itemgetter("message"))
    return rows


# The error views (handler400, handler404, handler500 below).
def bad_request(request: HttpRequest, exception: Exception) -> JsonResponse:
    return error(400)


def not_found(request: HttpRequest, exception: Exception) -> JsonResponse:
    return error(404)


def server_error(request: HttpRequest) -> JsonResponse:
    return error(500)


class ContractErrorsMiddleware(MiddlewareMixin):
    """A 405 with the contract's JSON body and BackendUnavailable as 503, on WSGI and ASGI alike."""

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        return error(503) if isinstance(exception, BackendUnavailable) else None

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        if response.status_code != 405:
            return response
        replaced = error(405)
        replaced["Allow"] = response["Allow"]
        return replaced

    async def __acall__(self, request: HttpRequest) -> HttpResponse:
        # MiddlewareMixin would run process_response through sync_to_async (a thread hop per
        # request); it does no I/O, so it runs on the event loop.
        return self.process_response(request, await self.get_response(request))


# The contract's routes: (path() route, the view's name in an app module).
ROUTES = (("", "hello"), ("json", "hello_json"), ("mongo/pooled/<user_id:user_id>", "mongo_pooled"),
          ("mongo/per-request/<user_id:user_id>", "mongo_per_request"), ("fortunes", "fortunes"),
          ("redis/pooled", "redis_pooled"),
          ("redis/per-request", "redis_per_request"))


def urls(views: dict) -> list:
    """An app module's urlpatterns: ROUTES onto its views (its globals())."""
    return [path(route, views[name]) for route, name in ROUTES]


# An app module's handler400, handler404 and handler500 (the error views above).
HANDLERS = (bad_request, not_found, server_error)
