"""The HTTP surface: Starlette routes shared by uvicorn (local) and Mangum (Lambda).

``POST /`` is JSON-RPC for every generation (``A2A-Version`` picks 0.2.5/0.3 or 1.0); every path
the other routes do not claim goes to the A2A 1.0 HTTP+JSON binding (``/message:send``,
``/tasks/{id}``, ...); ``/.well-known/agent-card.json`` is the 1.0 card (with the 0.3 fields) and
``/.well-known/agent.json`` the 0.2.5 one.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from importlib import resources
from typing import Any
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route
from starlette.types import Scope

from a2a_core.auth import Authenticator, AuthError, build_authenticator
from a2a_core.core.caller import Caller
from a2a_core.core.errors import InvalidRequestError
from a2a_core.generations import A2A_JSON
from a2a_core.server import AgentServer
from a2a_core.web import sse
from a2a_core.web.card_http import card_response
from a2a_core.web.edge import (
    CARD_PATH,
    DOCS_PATH,
    EXTENDED_CARD_PATH,
    HEALTH_PATH,
    JSON,
    JSONRPC_PATH,
    JWKS_PATH,
    LEGACY_CARD_PATH,
    public_url,
    refusal,
    version_of,
)

logger = logging.getLogger(__name__)


class _BodyTooLargeError(Exception):
    pass


def _too_large(limit: int) -> InvalidRequestError:
    return InvalidRequestError(f"Request body exceeds the {limit}-byte limit", data={"maxBodyBytes": limit})


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
            return _denied(request, denied)
        version = version_of(request.scope)
        try:
            body = await _read_body(request, limit)
        except _BodyTooLargeError:
            refusal = service.dispatcher.refusal(version, _too_large(limit))
            return Response(refusal, media_type=JSON)
        reply = await service.dispatcher.dispatch(body, _caller(request, principal.key), version)
        if isinstance(reply, bytes):
            return Response(reply, media_type=JSON)
        return await stream(request, reply)

    async def rest(request: Request) -> Response:
        try:
            principal = await authenticator.authenticate(request.scope, request.headers)
        except AuthError as denied:
            return _denied(request, denied)
        from a2a_core.protocol.v1.rest import RestResponse, error_response

        try:
            body = await _read_body(request, limit)
        except _BodyTooLargeError:
            return _rest_response(error_response(_too_large(limit)))
        answer = await service.protocols.rest.handle(
            request.method,
            _raw_path(request.scope),
            request.query_params.multi_items(),
            body,
            _caller(request, principal.key),
            version_of(request.scope),
        )
        if isinstance(answer, RestResponse):
            return _rest_response(answer)
        return await stream(request, answer)

    async def stream(request: Request, reply: sse.EventStream) -> Response:
        if "aws.event" in request.scope:  # Mangum: API Gateway and function URLs take one body
            return await sse.buffered(reply, budget=settings.stream_buffer_seconds)
        return sse.incremental(reply, keepalive=settings.stream_keepalive_seconds)

    def _caller(request: Request, principal: str) -> Caller:
        return Caller(
            principal=principal,
            last_event_id=request.headers.get("last-event-id"),
            base_url=public_url(settings.public_url, request.scope, request.headers),
            extensions=requested_extensions(request.headers),
        )

    # Every card route is cacheable (spec 8.6.1): Cache-Control, a weak ETag, 304 on If-None-Match.
    async def card(request: Request) -> Response:
        url = public_url(settings.public_url, request.scope, request.headers)
        body = service.protocols.cards_v0.card_json(url)
        return card_response(request.headers, body, max_age=settings.card_cache_seconds)

    async def card_v1(request: Request) -> Response:
        url = public_url(settings.public_url, request.scope, request.headers)
        body = await service.protocols.cards_v1.card_json(url)
        return card_response(request.headers, body, max_age=settings.card_cache_seconds)

    async def extended_card(request: Request) -> Response:
        try:
            await authenticator.authenticate(request.scope, request.headers)
        except AuthError as denied:
            return _denied(request, denied)
        url = public_url(settings.public_url, request.scope, request.headers)
        body = service.protocols.cards_v0.extended_card_json(url)
        return card_response(request.headers, body, max_age=settings.card_cache_seconds, private=True)

    async def index(request: Request) -> Response:
        url = public_url(settings.public_url, request.scope, request.headers)
        return JSONResponse(
            {"name": settings.name, "agentCard": f"{url}.well-known/agent-card.json", "rpc": url}
        )

    async def healthz(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    own = [
        Route(JSONRPC_PATH, jsonrpc, methods=["POST"]),
        Route(JSONRPC_PATH, index, methods=["GET"]),
        Route(LEGACY_CARD_PATH, card, methods=["GET"]),
        Route(CARD_PATH, card_v1, methods=["GET"]),
        Route(HEALTH_PATH, healthz, methods=["GET"]),
        Route(DOCS_PATH, _docs, methods=["GET"]),
        *([Route(EXTENDED_CARD_PATH, extended_card, methods=["GET"])] if service.cards.extended else []),
        *_push_routes(service),
    ]
    return Starlette(
        routes=[
            *own,
            *_not_allowed(own),
            # Every other path is the 1.0 HTTP+JSON binding's (with its own 404s and 405s).
            Route("/{path:path}", rest, methods=HTTP_METHODS),
        ],
        exception_handlers={HTTPException: _http_error, Exception: _internal_error},
        lifespan=lifespan,
    )


HTTP_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"]


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


# What may stand unescaped in a path segment besides letters, digits and "/": RFC 3986's
# sub-delims, ":" (the `:verb` of google.api.http paths) and "@".
_PATH_SAFE = "/:@!$&'()*+,;=~"


def _raw_path(scope: Scope) -> str:
    """The path still percent-encoded, as the HTTP+JSON routes want it (an id may hold ``/``).

    Servers give ``raw_path``. Mangum does not: its ``path`` is decoded, as ASGI's is, so it is
    encoded again (an escaped ``/`` in an id is lost by then; non-ASCII ids and ``%`` survive).
    """
    raw = scope.get("raw_path")
    if raw:
        return bytes(raw).decode("latin-1")
    return quote(str(scope["path"]), safe=_PATH_SAFE)


# The extensions a caller asks for: 1.0's header, and 0.3's name for it (a2a-sdk 0.3 sends it).
_EXTENSION_HEADERS = ("a2a-extensions", "x-a2a-extensions")


def requested_extensions(headers: Headers) -> tuple[str, ...]:
    """The extension URIs the request's ``A2A-Extensions`` headers list (comma-separated, any
    number of header fields), each once, in order."""
    found = (
        uri.strip()
        for name in _EXTENSION_HEADERS
        for value in headers.getlist(name)
        for uri in value.split(",")
    )
    return tuple(dict.fromkeys(uri for uri in found if uri))


def _denied(request: Request, denied: AuthError) -> Response:
    return refusal(request.scope, denied.status_code, denied.message, denied.headers())


def _rest_response(answer: Any) -> Response:
    return Response(answer.body, status_code=answer.status, media_type=A2A_JSON, headers=dict(answer.headers))


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
