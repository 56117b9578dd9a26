"""The HTTP surface: Starlette routes shared by uvicorn (local) and Mangum (Lambda)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from a2a_core import sse
from a2a_core.agent_card import public_url
from a2a_core.engine import Caller
from a2a_core.errors import InvalidRequestError
from a2a_core.jsonrpc import error_body
from a2a_core.service import A2AService

logger = logging.getLogger(__name__)
JSON = "application/json"


class _BodyTooLargeError(Exception):
    pass


def create_app(
    service: A2AService,
    *,
    lifespan: Callable[[Starlette], AbstractAsyncContextManager[None]] | None = None,
) -> Starlette:
    settings = service.settings
    limit = settings.max_body_bytes

    async def jsonrpc(request: Request) -> Response:
        try:
            body = await _read_body(request, limit)
        except _BodyTooLargeError:
            error = InvalidRequestError(
                f"Request body exceeds the {limit}-byte limit", data={"maxBodyBytes": limit}
            )
            return Response(error_body(None, error), media_type=JSON)
        caller = Caller(last_event_id=request.headers.get("last-event-id"))
        reply = await service.dispatcher.dispatch(body, caller)
        if isinstance(reply, bytes):
            return Response(reply, media_type=JSON)
        if "aws.event" in request.scope:  # Mangum: API Gateway takes one response body
            return await sse.buffered(reply, budget=settings.stream_buffer_seconds)
        return sse.incremental(reply, keepalive=settings.stream_keepalive_seconds)

    async def card(request: Request) -> Response:
        url = public_url(settings.public_url, request.scope, request.headers)
        return Response(service.cards.card_json(url), media_type=JSON)

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
            Route("/.well-known/agent.json", card, methods=["GET"]),
            Route("/.well-known/agent-card.json", card, methods=["GET"]),
            Route("/healthz", healthz, methods=["GET"]),
        ],
        exception_handlers={HTTPException: _http_error, Exception: _internal_error},
        lifespan=lifespan,
    )


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


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return JSONResponse({"error": exc.detail}, status_code=exc.status_code, headers=exc.headers)


async def _internal_error(request: Request, exc: Exception) -> Response:
    logger.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return JSONResponse({"error": "Internal Server Error"}, status_code=500)
