"""What the app's routes serve, over one `AgentServer`: JSON-RPC, the 1.0 HTTP+JSON binding, the
cards and the index page, and the one authentication path every guarded route takes
(`Endpoints.guarded`): a caller the authenticator refuses is answered at the door, before its
body is read, so an unauthenticated request never reaches a dispatcher.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import Scope

from a2a_core.auth import Authenticator, AuthError, Principal
from a2a_core.core.caller import Caller
from a2a_core.core.errors import InvalidRequestError
from a2a_core.generations import A2A_JSON
from a2a_core.web import sse
from a2a_core.web.card_http import card_response
from a2a_core.web.edge import JSON, public_url, refusal, version_of

if TYPE_CHECKING:
    from a2a_core.server import AgentServer

Endpoint = Callable[[Request], Awaitable[Response]]
GuardedEndpoint = Callable[[Request, Principal], Awaitable[Response]]


class Endpoints:
    """The handlers of the app's routes over ``service``, guarded by ``authenticator``."""

    def __init__(self, service: AgentServer, authenticator: Authenticator) -> None:
        self.service = service
        self.settings = service.settings
        self.authenticator = authenticator

    def guarded(self, handler: GuardedEndpoint) -> Endpoint:
        """``handler`` behind the authenticator, handed the caller it authenticated."""

        async def endpoint(request: Request) -> Response:
            try:
                principal = await self.authenticator.authenticate(request.scope, request.headers)
            except AuthError as denied:
                return refusal(request.scope, denied.status_code, denied.message, denied.headers())
            return await handler(request, principal)

        return endpoint

    async def jsonrpc(self, request: Request, principal: Principal) -> Response:
        """``POST /``: one JSON-RPC request of the generation ``A2A-Version`` asks for, answered
        with JSON or, for a streaming method, an event stream."""
        version = version_of(request.scope)
        try:
            body = await read_body(request, self.settings.max_body_bytes)
        except BodyTooLargeError as error:
            return Response(self.service.dispatcher.refusal(version, error.refused), media_type=JSON)
        caller = self._caller(request, principal)
        reply = await self.service.dispatcher.dispatch(body, caller, version)
        if isinstance(reply, bytes):
            return Response(reply, media_type=JSON)
        return await self._stream(request, reply)

    async def rest(self, request: Request, principal: Principal) -> Response:
        """Every path the app's own routes do not claim: the A2A 1.0 HTTP+JSON binding (its own
        404s and 405s included)."""
        from a2a_core.protocol.v1.rest import RestResponse, error_response

        try:
            body = await read_body(request, self.settings.max_body_bytes)
        except BodyTooLargeError as error:
            return _rest_response(error_response(error.refused))
        answer = await self.service.protocols.rest.handle(
            request.method,
            _raw_path(request.scope),
            request.query_params.multi_items(),
            body,
            self._caller(request, principal),
            version_of(request.scope),
        )
        if isinstance(answer, RestResponse):
            return _rest_response(answer)
        return await self._stream(request, answer)

    # Every card route is cacheable (spec 8.6.1): Cache-Control, a weak ETag, 304 on If-None-Match.
    async def card_v0(self, request: Request) -> Response:
        """``GET /.well-known/agent.json``: the 0.2.5 card."""
        body = self.service.protocols.cards_v0.card_json(self._url(request))
        return card_response(request.headers, body, max_age=self.settings.card_cache_seconds)

    async def card_v1(self, request: Request) -> Response:
        """``GET /.well-known/agent-card.json``: the 1.0 card (with the 0.3 fields)."""
        body = await self.service.protocols.cards_v1.card_json(self._url(request))
        return card_response(request.headers, body, max_age=self.settings.card_cache_seconds)

    async def extended_card(self, request: Request, principal: Principal) -> Response:
        """``GET /agent/authenticatedExtendedCard``: the extended card, to authenticated callers
        only (and never from a shared cache)."""
        body = self.service.protocols.cards_v0.extended_card_json(self._url(request))
        return card_response(request.headers, body, max_age=self.settings.card_cache_seconds, private=True)

    async def index(self, request: Request) -> Response:
        """``GET /``: where the card and the JSON-RPC endpoint are."""
        url = self._url(request)
        return JSONResponse(
            {"name": self.settings.name, "agentCard": f"{url}.well-known/agent-card.json", "rpc": url}
        )

    async def _stream(self, request: Request, reply: sse.EventStream) -> Response:
        if "aws.event" in request.scope:  # Mangum: API Gateway and function URLs take one body
            return await sse.buffered(reply, budget=self.settings.stream_buffer_seconds)
        return sse.incremental(reply, keepalive=self.settings.stream_keepalive_seconds)

    def _url(self, request: Request) -> str:
        return public_url(self.settings.public_url, request.scope, request.headers)

    def _caller(self, request: Request, principal: Principal) -> Caller:
        return Caller(
            principal=principal.key,
            last_event_id=request.headers.get("last-event-id"),
            base_url=self._url(request),
            extensions=requested_extensions(request.headers),
        )


class BodyTooLargeError(Exception):
    """A request body over the settings' ``max_body_bytes``; ``refused`` is the error a binding
    answers it with."""

    def __init__(self, limit: int) -> None:
        super().__init__(limit)
        self.refused = InvalidRequestError(
            f"Request body exceeds the {limit}-byte limit", data={"maxBodyBytes": limit}
        )


async def read_body(request: Request, limit: int) -> bytes:
    """The request's body, refused with `BodyTooLargeError` as soon as it is known to exceed
    ``limit`` bytes (from its ``Content-Length``, or while it is read)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise BodyTooLargeError(limit)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise BodyTooLargeError(limit)
        chunks.append(chunk)
    return b"".join(chunks)


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


def _rest_response(answer: Any) -> Response:
    return Response(answer.body, status_code=answer.status, media_type=A2A_JSON, headers=dict(answer.headers))
