"""What API Gateway already verified: the request context of the proxy event.

Behind API Gateway the credential is checked before the function runs (the usage plan's API key,
a JWT or Cognito authorizer, SigV4 for IAM); the app only reads who the caller is. The context
comes from the Lambda event Mangum puts in the ASGI scope, or, for an app served by uvicorn
behind the AWS Lambda Web Adapter (response streaming), from the ``x-amzn-request-context``
header, which the adapter always overwrites with the event's context. That header is trusted only
when the deployment says so (`Settings.trust_request_context_header`): on a server clients reach
directly, anyone could send it.

A REST API sends payload format 1.0; an HTTP API and a Lambda function URL send 2.0, whose
context has the request line under ``http``, the SigV4 caller under ``authorizer.iam`` rather
than ``identity``, and no API key (HTTP APIs have none).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

CONTEXT_HEADER = "x-amzn-request-context"


def request_context(
    scope: Mapping[str, Any], headers: Mapping[str, str], *, trust_header: bool
) -> Mapping[str, Any] | None:
    """The API Gateway request context, or None when the request did not come through it."""
    event = scope.get("aws.event")
    if isinstance(event, Mapping):
        context = event.get("requestContext")
        return context if isinstance(context, Mapping) else {}
    raw = headers.get(CONTEXT_HEADER) if trust_header else None
    if raw is None:
        return None
    try:
        context = json.loads(raw)
    except ValueError:
        return {}
    return context if isinstance(context, Mapping) else {}


def is_payload_v2(context: Mapping[str, Any]) -> bool:
    """Whether the context is payload format 2.0 (an HTTP API or a function URL).

    Told by the context's ``http`` section rather than the event's ``version``: the context
    header of the Lambda Web Adapter carries the context alone."""
    return isinstance(context.get("http"), Mapping)


def identity(context: Mapping[str, Any], field: str) -> str | None:
    """``requestContext.identity.<field>`` (payload 1.0) when it is a non-empty string."""
    return _text(context.get("identity"), field)


def iam_caller(context: Mapping[str, Any]) -> str | None:
    """The ARN of the identity that signed the request, as the gateway verified it:
    ``identity.userArn`` (payload 1.0) or ``authorizer.iam.userArn`` (2.0)."""
    authorizer = context.get("authorizer")
    iam = authorizer.get("iam") if isinstance(authorizer, Mapping) else None
    return identity(context, "userArn") or _text(iam, "userArn")


def _text(section: object, field: str) -> str | None:
    value = section.get(field) if isinstance(section, Mapping) else None
    return value if isinstance(value, str) and value else None


def authorizer_claims(context: Mapping[str, Any]) -> Mapping[str, Any]:
    """The verified token's claims: a Cognito authorizer's ``claims``, an HTTP API JWT
    authorizer's ``jwt.claims``, or a Lambda authorizer's context (flat, with ``principalId``)."""
    authorizer = context.get("authorizer")
    if not isinstance(authorizer, Mapping):
        return {}
    jwt = authorizer.get("jwt")
    for nested in (authorizer.get("claims"), jwt.get("claims") if isinstance(jwt, Mapping) else None):
        if isinstance(nested, Mapping):
            return nested
    return authorizer


def authorizer_scopes(context: Mapping[str, Any]) -> frozenset[str]:
    """The verified token's scopes: its ``scope`` or ``scp`` claim and, from an HTTP API JWT
    authorizer, the ``jwt.scopes`` list (which may be null)."""
    authorizer = context.get("authorizer")
    jwt = authorizer.get("jwt") if isinstance(authorizer, Mapping) else None
    listed = jwt.get("scopes") if isinstance(jwt, Mapping) else None
    granted = [item for item in listed if isinstance(item, str)] if isinstance(listed, list) else []
    return scopes(authorizer_claims(context)) | frozenset(granted)


def scopes(claims: Mapping[str, Any]) -> frozenset[str]:
    """OAuth scopes from ``scope`` (space-separated) or ``scp`` (list or string)."""
    value = claims.get("scope", claims.get("scp"))
    if isinstance(value, str):
        # API Gateway renders list claims as "[a b]" in the request context.
        return frozenset(value.strip("[]").split())
    if isinstance(value, list):
        return frozenset(str(item) for item in value)
    return frozenset()
