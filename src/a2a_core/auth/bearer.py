"""``auth_mode=jwt``: ``Authorization: Bearer <JWT>`` from an OIDC/OAuth issuer.

Behind API Gateway a JWT (Cognito or Lambda) authorizer validates the token; the app reads its
claims from the request context. Served directly, the app validates the token itself: signature
against the issuer's JWKS (an allowlist of asymmetric algorithms, keys by ``kid``), ``iss``,
``aud``, ``exp`` and ``nbf`` with a small leeway, and a ``sub``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from joserfc import jwt
from joserfc.errors import InvalidKeyIdError, JoseError
from joserfc.jwk import KeySet

from a2a_core.auth import gateway
from a2a_core.auth.base import (
    Authenticator,
    AuthError,
    CredentialsMissingError,
    CredentialsRejectedError,
    Principal,
    TokenInvalidError,
)

logger = logging.getLogger(__name__)

CHALLENGE = 'Bearer realm="a2a"'
# RFC 6750 3.1: a token that was sent and is not valid; the client should get a new one.
INVALID_CHALLENGE = (
    'Bearer realm="a2a", error="invalid_token", error_description="The access token is not valid"'
)
NOT_VALID = (
    "Authentication required: the bearer token is not valid (expired, or not issued for this agent); "
    "get a new one"
)
# How long past its exp a token API Gateway's authorizer vouched for is still accepted (clock skew).
CONTEXT_EXPIRY_LEEWAY_SECONDS = 30.0
# Asymmetric only: with a shared-secret algorithm a published (public) key would forge tokens.
ALLOWED_ALGORITHMS = frozenset(
    {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}
)

FetchJwks = Callable[[str], Awaitable[Mapping[str, Any]]]


class AuthUnavailableError(AuthError):
    """The issuer's keys cannot be fetched: the token cannot be checked either way."""

    status_code = 503


class Jwks:
    """The issuer's signing keys, from a document (a file read at start-up) or a URL.

    A URL is fetched on first use and again after ``max_age`` seconds; sooner, at most once per
    ``min_refresh_seconds``, when a token names a ``kid`` the set lacks (a key rotation) or while
    no fetch has succeeded yet (an outage at start-up).
    """

    def __init__(
        self,
        *,
        document: Mapping[str, Any] | None = None,
        url: str | None = None,
        fetch: FetchJwks | None = None,
        max_age: float = 600.0,
        min_refresh_seconds: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if (document is None) == (url is None):
            raise ValueError("Jwks needs exactly one of document and url")
        self._keys = KeySet.import_key_set(dict(document)) if document is not None else None  # type: ignore[arg-type]
        self._url = url
        self._fetch = fetch or fetch_jwks
        self._max_age = max_age
        self._min_refresh = min_refresh_seconds
        self._clock = clock
        self._fetched_at: float | None = None
        self._lock = asyncio.Lock()

    @classmethod
    def from_file(cls, path: str | Path) -> Jwks:
        return cls(document=json.loads(Path(path).read_text()))

    async def key_set(self, *, refresh: bool = False) -> KeySet:
        if self._url is None:
            assert self._keys is not None
            return self._keys
        async with self._lock:
            age = None if self._fetched_at is None else self._clock() - self._fetched_at
            # Keyless after a failed first fetch: try again soon rather than after max_age.
            retry = refresh or self._keys is None
            if age is None or age > self._max_age or (retry and age >= self._min_refresh):
                await self._load(self._url)
        if self._keys is None:
            raise AuthUnavailableError("Cannot verify tokens right now: the issuer's keys are unavailable")
        return self._keys

    async def _load(self, url: str) -> None:
        try:
            document = await self._fetch(url)
            self._keys = KeySet.import_key_set(dict(document))  # type: ignore[arg-type]
        except Exception as error:  # noqa: BLE001 (keep the last good keys; the cause goes to the log)
            logger.warning("cannot load the JWKS from %s: %s", url, type(error).__name__)
        self._fetched_at = self._clock()


async def fetch_jwks(url: str) -> Mapping[str, Any]:
    import httpx

    async with httpx.AsyncClient(timeout=5.0, follow_redirects=False) as client:
        response = await client.get(url, headers={"accept": "application/json"})
        response.raise_for_status()
        document: Mapping[str, Any] = response.json()
        return document


class TokenValidator:
    """Checks a JWT the way an API Gateway JWT authorizer would; returns its claims."""

    def __init__(
        self,
        jwks: Jwks,
        *,
        issuer: str,
        audience: str,
        algorithms: Sequence[str] = ("RS256", "ES256"),
        leeway: float = 30.0,
        now: Callable[[], float] = time.time,
    ) -> None:
        if not algorithms:  # joserfc would fall back to its own defaults
            raise ValueError("no algorithms: name the ones the issuer signs with (RS256, ES256, ...)")
        refused = sorted(set(algorithms) - ALLOWED_ALGORITHMS)
        if refused:
            raise ValueError(
                f"algorithms {refused} are not allowed (use asymmetric ones: RS*, PS*, ES*, EdDSA)"
            )
        self.jwks = jwks
        self.issuer = issuer
        self.audience = audience
        self.algorithms = list(algorithms)
        self.leeway = leeway
        self._now = now

    async def validate(self, token: str) -> Mapping[str, Any]:
        try:
            try:
                decoded = jwt.decode(token, await self.jwks.key_set(), algorithms=self.algorithms)
            except InvalidKeyIdError:  # perhaps a key the issuer rotated in since we fetched
                decoded = jwt.decode(token, await self.jwks.key_set(refresh=True), algorithms=self.algorithms)
            jwt.JWTClaimsRegistry(
                now=lambda: int(self._now()),
                leeway=int(self.leeway),
                iss={"essential": True, "value": self.issuer},
                aud={"essential": True, "value": self.audience},
                exp={"essential": True},
                sub={"essential": True},
            ).validate(decoded.claims)
            subject = decoded.claims["sub"]
            if not isinstance(subject, str) or not subject:  # it names the caller: "" is nobody
                raise ValueError("sub must be a non-empty string")
        except (JoseError, ValueError, TypeError, KeyError) as error:
            # The error names the failed check, never the token.
            logger.info("bearer token refused: %s", type(error).__name__)
            raise TokenInvalidError(NOT_VALID, challenge=INVALID_CHALLENGE) from None
        claims: Mapping[str, Any] = decoded.claims
        return claims


class BearerAuthenticator(Authenticator):
    def __init__(
        self,
        validator: TokenValidator | None,
        *,
        trust_context_header: bool = False,
        from_gateway: bool = True,
        now: Callable[[], float] = time.time,
    ) -> None:
        """``validator`` None: only tokens API Gateway already validated are accepted.
        ``from_gateway`` False (behind a function URL): every token is validated here, whatever
        request context comes with it."""
        self.validator = validator
        self._trust_header = trust_context_header
        self._from_gateway = from_gateway
        self._now = now

    async def authenticate(self, scope: Mapping[str, Any], headers: Mapping[str, str]) -> Principal:
        context = gateway.request_context(scope, headers, trust_header=self._trust_header)
        if context is not None and self._from_gateway:
            claims = gateway.authorizer_claims(context)
            subject = claims.get("sub") or claims.get("principalId")
            if not isinstance(subject, str) or not subject:
                raise CredentialsMissingError(
                    "Authentication required: API Gateway passed no token claims", challenge=CHALLENGE
                )
            self._refuse_expired(claims.get("exp"))
            return Principal("jwt", f"{claims.get('iss', '')}|{subject}", gateway.authorizer_scopes(context))
        token = bearer_token(headers.get("authorization", ""))
        if self.validator is None:
            raise CredentialsRejectedError("Access denied: tokens are checked by API Gateway, not here")
        claims = await self.validator.validate(token)
        return Principal("jwt", f"{claims['iss']}|{claims['sub']}", gateway.scopes(claims))

    def _refuse_expired(self, exp: object) -> None:
        # A Lambda authorizer's result is cached per token (up to an hour), so the gateway can let
        # an expired token through. Its context values arrive as strings; Cognito renders exp as a
        # date, which is left to Cognito.
        if isinstance(exp, str) and exp.isascii() and exp.isdigit():
            exp = int(exp)
        if isinstance(exp, bool) or not isinstance(exp, int | float):
            return
        if exp < self._now() - CONTEXT_EXPIRY_LEEWAY_SECONDS:
            logger.info("bearer token refused: the authorizer context has expired")
            raise TokenInvalidError(
                "Authentication required: the bearer token has expired; get a new one",
                challenge=INVALID_CHALLENGE,
            )


def bearer_token(authorization: str) -> str:
    """The token of an ``Authorization: Bearer <token>`` header; `CredentialsMissingError` if
    the header is empty or another scheme."""
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise CredentialsMissingError(
            "Authentication required: send a bearer token (Authorization: Bearer <JWT>)", challenge=CHALLENGE
        )
    return token.strip()
