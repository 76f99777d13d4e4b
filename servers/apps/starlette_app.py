"""The Starlette app: the route contract as Starlette writes it, an ASGI app served by any ASGI server.

Routes with path parameters in a Starlette(routes=[...]); responses are PlainTextResponse and
JSONResponse, whose render() runs json.dumps inside each request with compact separators (the
contract's bytes as they come). Errors go through the app's exception_handlers: Starlette's router
raises HTTPException for 404 and for 405 (with its Allow header), BackendUnavailable answers 503,
and anything else 500 from ServerErrorMiddleware's handler (the traceback goes to the log only).
The pooled clients are made lazily inside the worker's event loop by the backends modules.
/fortunes renders templates/fortunes.html through Jinja2Templates.TemplateResponse (Starlette's
templating: Jinja2 with select_autoescape, so .html is escaped; text/html; charset=utf-8).
"""
from __future__ import annotations

from operator import itemgetter
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route
from starlette.templating import Jinja2Templates

from backends.errors import BackendUnavailable
from backends.ids import parse_user_id
from servers.apps import contract
from servers.apps.operations import AsyncOperations
from servers.core.options import Options


def _found(value: dict | None) -> JSONResponse:
    if value is None:
        raise HTTPException(status_code=404)
    return JSONResponse(value)


def _user_id(request: Request) -> int:
    user_id = parse_user_id(request.path_params["raw_id"])
    if user_id is None:
        raise HTTPException(status_code=404)
    return user_id


async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
    return JSONResponse({"error": contract.error_message(exc.status_code)}, status_code=exc.status_code,
                        headers=exc.headers)


async def backend_unavailable(request: Request, exc: BackendUnavailable) -> JSONResponse:
    return JSONResponse({"error": contract.BACKEND_UNAVAILABLE}, status_code=503)


async def internal_error(request: Request, exc: Exception) -> JSONResponse:
    return JSONResponse({"error": contract.INTERNAL_ERROR}, status_code=500)


templates = Jinja2Templates(directory=Path(__file__).with_name("templates"))


def create_app(options: Options) -> Starlette:
    ops = AsyncOperations(options)

    async def hello(request: Request) -> PlainTextResponse:
        return PlainTextResponse(contract.HELLO)

    async def hello_json(request: Request) -> JSONResponse:
        return JSONResponse({"message": contract.HELLO})

    async def mongo_pooled(request: Request) -> JSONResponse:
        return _found(await ops.mongo_pooled(_user_id(request)))

    async def mongo_per_request(request: Request) -> JSONResponse:
        return _found(await ops.mongo_per_request(_user_id(request)))

    async def fortunes(request: Request):
        rows = await ops.fortunes()
        rows.append({"id": 0, "message": contract.ADDITIONAL_FORTUNE})
        rows.sort(key=itemgetter("message"))
        return templates.TemplateResponse(request, "fortunes.html", {"fortunes": rows})

    async def redis_pooled(request: Request) -> JSONResponse:
        return _found(await ops.redis_pooled())

    async def redis_per_request(request: Request) -> JSONResponse:
        return _found(await ops.redis_per_request())

    routes = [
        Route("/", hello),
        Route("/json", hello_json),
        Route("/mongo/pooled/{raw_id}", mongo_pooled),
        Route("/mongo/per-request/{raw_id}", mongo_per_request),
        Route("/fortunes", fortunes),
        Route("/redis/pooled", redis_pooled),
        Route("/redis/per-request", redis_per_request),
    ]
    exception_handlers = {
        HTTPException: http_error,
        BackendUnavailable: backend_unavailable,
        Exception: internal_error,  # ServerErrorMiddleware: answers, then re-raises to the server's log
    }
    return Starlette(routes=routes, exception_handlers=exception_handlers)
