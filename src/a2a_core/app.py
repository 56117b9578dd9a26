"""The HTTP surface: Starlette routes shared by uvicorn (local) and Mangum (Lambda)."""

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

from a2a_core import sse
from a2a_core.agent_card import CARD_0_2, CARD_0_3, public_url
from a2a_core.auth import Authenticator, AuthError, build_authenticator
from a2a_core.core.caller import Caller
from a2a_core.core.errors import InvalidRequestError
from a2a_core.jsonrpc import error_body
from a2a_core.server import AgentServer

logger = logging.getLogger(__name__)
JSON = "application/json"
EXTENDED_CARD_PATH = "/agent/authenticatedExtendedCard"


class _BodyTooLargeError(Exception):
    pass


def create_app(
    service: AgentServer,
    *,
    lifespan: Callable[[Starlette], AbstractAsyncContextManager[None]] | None = None,
    authenticator: Authenticator | None = None,
) -> Starlette:
    """``authenticator``: built from the settings when not given (API keys behind a function
    URL need their stores, so that composition root passes one)."""
    settings = service.settings
    limit = settings.max_body_bytes
    # A bad auth configuration fails here, at start-up.
    authenticator = authenticator or build_authenticator(settings)

    async def jsonrpc(request: Request) -> Response:
        try:  # before the body is read: an unauthenticated caller never reaches the dispatcher
            principal = await authenticator.authenticate(request.scope, request.headers)
        except AuthError as denied:
            return denied.response()
        try:
            body = await _read_body(request, limit)
        except _BodyTooLargeError:
            error = InvalidRequestError(
                f"Request body exceeds the {limit}-byte limit", data={"maxBodyBytes": limit}
            )
            return Response(error_body(None, error), media_type=JSON)
        caller = Caller(principal=principal.key, last_event_id=request.headers.get("last-event-id"))
        reply = await service.dispatcher.dispatch(body, caller)
        if isinstance(reply, bytes):
            return Response(reply, media_type=JSON)
        if "aws.event" in request.scope:  # Mangum: API Gateway and function URLs take one body
            return await sse.buffered(reply, budget=settings.stream_buffer_seconds)
        return sse.incremental(reply, keepalive=settings.stream_keepalive_seconds)

    def card(version: str) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            url = public_url(settings.public_url, request.scope, request.headers)
            return Response(service.cards.card_json(url, version), media_type=JSON)

        return endpoint

    async def extended_card(request: Request) -> Response:
        try:
            await authenticator.authenticate(request.scope, request.headers)
        except AuthError as denied:
            return denied.response()
        url = public_url(settings.public_url, request.scope, request.headers)
        return Response(service.cards.extended_card_json(url), media_type=JSON)

    async def index(request: Request) -> Response:
        url = public_url(settings.public_url, request.scope, request.headers)
        return JSONResponse(
            {"name": settings.name, "agentCard": f"{url}.well-known/agent-card.json", "rpc": url}
        )

    async def healthz(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    return Starlette(
        routes=[
            Route("/", jsonrpc, methods=["POST"]),
            Route("/", index, methods=["GET"]),
            Route("/.well-known/agent.json", card(CARD_0_2), methods=["GET"]),
            Route("/.well-known/agent-card.json", card(CARD_0_3), methods=["GET"]),
            Route("/healthz", healthz, methods=["GET"]),
            Route("/docs", _docs, methods=["GET"]),
            *([Route(EXTENDED_CARD_PATH, extended_card, methods=["GET"])] if service.cards.extended else []),
            *_push_routes(service),
        ],
        exception_handlers={HTTPException: _http_error, Exception: _internal_error},
        lifespan=lifespan,
    )


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

    return [Route("/.well-known/jwks.json", jwks, methods=["GET"])]


async def _read_body(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise _BodyTooLargeError
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise _BodyTooLargeError
        chunks.append(chunk)
    return b"".join(chunks)


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
    assert isinstance(exc, HTTPException)
    return JSONResponse({"error": exc.detail}, status_code=exc.status_code, headers=exc.headers)


async def _internal_error(request: Request, exc: Exception) -> Response:
    logger.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return JSONResponse({"error": "Internal Server Error"}, status_code=500)
