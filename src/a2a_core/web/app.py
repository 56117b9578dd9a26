"""The HTTP surface: Starlette routes shared by uvicorn (local) and Mangum (Lambda).

``POST /`` is JSON-RPC for every generation (``A2A-Version`` picks 0.2.5/0.3 or 1.0); every path
the other routes do not claim goes to the A2A 1.0 HTTP+JSON binding (``/message:send``,
``/tasks/{id}``, ...); ``/.well-known/agent-card.json`` is the 1.0 card (with the 0.3 fields) and
``/.well-known/agent.json`` the 0.2.5 one. What each route serves is `a2a_core.web.handlers`'.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from importlib import resources

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from a2a_core.auth import Authenticator
from a2a_core.server import AgentServer
from a2a_core.web.edge import (
    CARD_PATH,
    DOCS_PATH,
    EXTENDED_CARD_PATH,
    HEALTH_PATH,
    JSON,
    JSONRPC_PATH,
    JWKS_PATH,
    LEGACY_CARD_PATH,
    refusal,
)
from a2a_core.web.handlers import Endpoints

logger = logging.getLogger(__name__)

HTTP_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"]


def create_app(
    service: AgentServer,
    *,
    authenticator: Authenticator,
    lifespan: Callable[[Starlette], AbstractAsyncContextManager[None]] | None = None,
) -> Starlette:
    """The app serving ``service``, every caller authenticated by ``authenticator`` (the
    composition root's choice: `a2a_core.compose.app.compose_app` builds it from the settings)."""
    serve = Endpoints(service, authenticator)
    extended = [Route(EXTENDED_CARD_PATH, serve.guarded(serve.extended_card), methods=["GET"])]
    own = [
        Route(JSONRPC_PATH, serve.guarded(serve.jsonrpc), methods=["POST"]),
        Route(JSONRPC_PATH, serve.index, methods=["GET"]),
        Route(LEGACY_CARD_PATH, serve.card_v0, methods=["GET"]),
        Route(CARD_PATH, serve.card_v1, methods=["GET"]),
        Route(HEALTH_PATH, _healthz, methods=["GET"]),
        Route(DOCS_PATH, _docs, methods=["GET"]),
        *(extended if service.cards.extended else []),
        *_push_routes(service),
    ]
    return Starlette(
        routes=[
            *own,
            *_not_allowed(own),
            # Every other path is the 1.0 HTTP+JSON binding's (with its own 404s and 405s).
            Route("/{path:path}", serve.guarded(serve.rest), methods=HTTP_METHODS),
        ],
        exception_handlers={HTTPException: _http_error, Exception: _internal_error},
        lifespan=lifespan,
    )


def _not_allowed(routes: list[Route]) -> list[Route]:
    """405 (not the HTTP+JSON binding's 404) for the other methods on the app's own paths."""
    allowed: dict[str, set[str]] = {}
    for route in routes:
        allowed.setdefault(route.path, set()).update(route.methods or ())

    def refuse(allow: str) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            raise HTTPException(405, headers={"Allow": allow})

        return endpoint

    return [
        Route(
            path, refuse(", ".join(sorted(methods - {"HEAD"}))), methods=sorted(set(HTTP_METHODS) - methods)
        )
        for path, methods in allowed.items()
    ]


def _push_routes(service: AgentServer) -> list[Route]:
    """``GET /.well-known/jwks.json`` while push is on (404 otherwise): the notification keys."""
    if service.push is None:
        return []
    cached: list[bytes] = []

    async def jwks(request: Request) -> Response:
        if not cached:  # one KMS GetPublicKey per cold start
            from a2a_core.push.signing import jwks as document

            cached.append(json.dumps(await document(service.push_signers)).encode())
        return Response(cached[0], media_type=JSON, headers={"Cache-Control": "public, max-age=300"})

    return [Route(JWKS_PATH, jwks, methods=["GET"])]


async def _healthz(request: Request) -> Response:
    return JSONResponse({"status": "ok"})


# The page inlines its CSS and JS; the policy makes "loads nothing from elsewhere" a guarantee.
_DOCS_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
}


async def _docs(request: Request) -> Response:
    return HTMLResponse(_docs_html(), headers=_DOCS_HEADERS)


@functools.cache
def _docs_html() -> bytes:
    return (resources.files("a2a_core") / "static" / "docs.html").read_bytes()


async def _http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own refusals (a method no route of the path takes, a target no route matches),
    written as every other refusal at the door is."""
    assert isinstance(exc, HTTPException)
    allow = (exc.headers or {}).get("Allow")
    path = request.url.path
    message = f"{request.method} is not allowed on {path}; use {allow}" if allow else f"{exc.detail}: {path}"
    return refusal(request.scope, exc.status_code, message, exc.headers)


async def _internal_error(request: Request, exc: Exception) -> Response:
    logger.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return JSONResponse({"error": "Internal Server Error"}, status_code=500)
