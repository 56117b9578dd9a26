"""Who is calling, the authenticator port, and the ways a call is refused (401, 403, 429).

A refusal is an `AuthError` carrying its HTTP status, message and headers (a bearer token's per
RFC 6750: 401 with a challenge whether it is missing or not valid); the app writes it in
the shape of the request's generation and binding (`a2a_core.web.edge.refusal`).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

PrincipalKind = Literal["api_key", "jwt", "iam", "anonymous"]


@dataclass(frozen=True)
class Principal:
    """An authenticated caller: ``id`` is the API key id, ``iss|sub`` of a JWT, or an IAM ARN."""

    kind: PrincipalKind
    id: str
    scopes: frozenset[str] = frozenset()

    @property
    def key(self) -> str:
        """The owner recorded on the caller's tasks; kinds are prefixed so ids never collide."""
        return "anonymous" if self.kind == "anonymous" else f"{self.kind}:{self.id}"


ANONYMOUS = Principal("anonymous", "anonymous")


class AuthError(Exception):
    """A call refused before it reaches the dispatcher; the message is safe to show the caller
    and never contains the credential."""

    status_code = 401

    def __init__(self, message: str, *, challenge: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.challenge = challenge

    def headers(self) -> dict[str, str]:
        return {"WWW-Authenticate": self.challenge} if self.challenge else {}


class CredentialsMissingError(AuthError):
    """No credentials (or none in the scheme the card declares): 401 with a challenge."""


class CredentialsRejectedError(AuthError):
    """Credentials were sent but are not valid here: 403."""

    status_code = 403


class TokenInvalidError(AuthError):
    """A bearer token was sent but is not valid (expired, forged, another issuer's or audience's):
    401 with a challenge that says so (RFC 6750 3.1 ``invalid_token``), on which a client gets a
    new token; 403 is for a valid token without the rights (``insufficient_scope``)."""


class RateLimitedError(AuthError):
    """The caller sent more than its rate limit allows: 429 with ``Retry-After`` (seconds)."""

    status_code = 429

    def __init__(self, retry_after: float) -> None:
        self.retry_after = max(1, math.ceil(retry_after))
        super().__init__(f"Rate limit exceeded: retry after {self.retry_after} s")

    def headers(self) -> dict[str, str]:
        return {"Retry-After": str(self.retry_after)}


class Authenticator(ABC):
    """Turns a request into a `Principal`, or raises an `AuthError`.

    ``scope`` is the ASGI scope (behind API Gateway, Mangum puts the Lambda event in
    ``scope["aws.event"]``); ``headers`` are the request headers, case-insensitive. Never logs
    or echoes a credential.
    """

    @abstractmethod
    async def authenticate(self, scope: Mapping[str, Any], headers: Mapping[str, str]) -> Principal: ...


class NoAuthenticator(Authenticator):
    """``auth_mode=none``: everyone is the same anonymous caller (and shares its tasks)."""

    async def authenticate(self, scope: Mapping[str, Any], headers: Mapping[str, str]) -> Principal:
        return ANONYMOUS
