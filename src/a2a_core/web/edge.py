"""The HTTP edge: what the app knows of a request before any binding reads it (the URL it reached
us at, `public_url`; its binding, `binding_of`; its generation, `version_of`), and the one place a
refusal made there is written (`refusal`).

A request is refused at the door for who sent it (auth: 401, 403, 429), or, by ``a2a-serverless
dev``, for where it came from (Host 421, Origin 403) or what it declares (content type 415); a
path asked with an HTTP method no route of it takes (405), or a target no route matches (404), is
refused too. Every such refusal is written by
`refusal` as the request's generation and binding write their errors, with the refusal's HTTP
status and headers (``WWW-Authenticate``, ``Retry-After``, ``Allow``):

- JSON-RPC (``POST /``, and the app's other own paths beside it): an Invalid Request error
  (-32600), id null, in the generation ``A2A-Version`` asks for: 0.x's ``{code, message}``, 1.0's
  with its ``data`` (the ``google.rpc.ErrorInfo`` every 1.0 error carries). A version that is not
  served is answered in 1.0's shape, as the dispatcher answers it.
- HTTP+JSON (every other path: the 1.0 binding's routes): a ``google.rpc.Status`` body whose
  ``code`` is the HTTP status and ``status`` its gRPC name. It names no A2A reason: these are not
  A2A errors, and a client should see the HTTP refusal they are.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from starlette.datastructures import Headers, QueryParams
from starlette.responses import Response
from starlette.types import Scope

from a2a_core.core.errors import InvalidRequestError, VersionNotSupportedError
from a2a_core.generations import A2A_JSON, HTTP_JSON, JSONRPC
from a2a_core.protocol.jsonrpc import error_body
from a2a_core.protocol.versions import Version, requested_version

JSON = "application/json"

# The app's own paths: JSON-RPC, and the cards, keys, docs and health check served beside it.
JSONRPC_PATH = "/"
CARD_PATH = "/.well-known/agent-card.json"
LEGACY_CARD_PATH = "/.well-known/agent.json"
EXTENDED_CARD_PATH = "/agent/authenticatedExtendedCard"
JWKS_PATH = "/.well-known/jwks.json"
HEALTH_PATH = "/healthz"
DOCS_PATH = "/docs"
APP_PATHS = frozenset(
    {JSONRPC_PATH, CARD_PATH, LEGACY_CARD_PATH, EXTENDED_CARD_PATH, JWKS_PATH, HEALTH_PATH, DOCS_PATH}
)

# google.rpc.Code names for the refusals' HTTP statuses (google/rpc/code.proto's mapping; 415 and
# 421 have none there: a content type refused is a bad argument, a foreign Host a denied door).
GRPC_STATUS = {
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    405: "UNIMPLEMENTED",
    415: "INVALID_ARGUMENT",
    421: "PERMISSION_DENIED",
    429: "RESOURCE_EXHAUSTED",
    503: "UNAVAILABLE",
}


def binding_of(path: str) -> str:
    """The binding a path belongs to: JSON-RPC for the app's own paths, else HTTP+JSON."""
    return JSONRPC if path in APP_PATHS else HTTP_JSON


def version_of(scope: Scope) -> Version | VersionNotSupportedError:
    """The codec the request's ``A2A-Version`` asks for, or the error saying it is not served."""
    query = QueryParams(scope.get("query_string", b"")).multi_items()
    try:
        return requested_version(Headers(scope=scope).items(), query)
    except VersionNotSupportedError as error:
        return error


def refusal(scope: Scope, status: int, message: str, headers: Mapping[str, str] | None = None) -> Response:
    """The answer to a request refused at the door (see the module doc); ``message`` is safe to
    show the caller and says what to change."""
    if binding_of(str(scope.get("path", ""))) == HTTP_JSON:
        error = {"code": status, "status": GRPC_STATUS.get(status, "FAILED_PRECONDITION"), "message": message}
        body = json.dumps({"error": error}).encode()
        return Response(body, status, headers=dict(headers or {}), media_type=A2A_JSON)
    refused = InvalidRequestError(message)
    if version_of(scope) is Version.V0_3:
        body = error_body(None, refused)
    else:
        from a2a_core.protocol.v1.errors import jsonrpc_error_body

        body = jsonrpc_error_body(None, refused)
    return Response(body, status, headers=dict(headers or {}), media_type=JSON)


def public_url(configured: str | None, scope: Mapping[str, Any], headers: Mapping[str, str]) -> str:
    """The JSON-RPC endpoint URL as the caller reached it, unless one is configured.

    Behind API Gateway the stage is part of the path the client used (``/prod/``) but not of the
    path Lambda sees, so it is taken from the event's request context. An HTTP API's ``$default``
    stage, a custom domain and a function URL (``<id>.lambda-url.<region>.on.aws``) have none.
    """
    if configured:
        return configured.rstrip("/") + "/"
    event = scope.get("aws.event")
    if isinstance(event, dict):
        context = event.get("requestContext") or {}
        domain = context.get("domainName")
        stage = context.get("stage")
        if domain:
            on_default_host = domain.endswith(".amazonaws.com")
            prefix = f"/{stage}" if on_default_host and stage and stage != "$default" else ""
            return f"https://{domain}{prefix}/"
    proto = headers.get("x-forwarded-proto", scope.get("scheme", "http")).split(",")[0].strip()
    host = headers.get("x-forwarded-host") or headers.get("host")
    if not host:
        server = scope.get("server") or ("127.0.0.1", 80)
        host = f"{server[0]}:{server[1]}"
    root = str(scope.get("root_path", "")).rstrip("/")
    return f"{proto}://{host.split(',')[0].strip()}{root}/"
