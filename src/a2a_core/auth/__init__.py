"""Caller authentication: one `Authenticator` per ``auth_mode``, chosen from `Settings`.

Behind API Gateway the gateway verifies the credential and the app reads who the caller is from
the request context; served directly (``a2a-serverless dev``) the app checks API keys and JWTs
itself. Either way the result is a `Principal`, whose key owns the tasks it creates.
"""

from __future__ import annotations

from collections.abc import Callable

from a2a_core.auth.base import (
    ANONYMOUS,
    Authenticator,
    AuthError,
    CredentialsMissingError,
    CredentialsRejectedError,
    NoAuthenticator,
    Principal,
)
from a2a_core.settings import Settings, SettingsError

__all__ = [
    "ANONYMOUS",
    "AuthError",
    "Authenticator",
    "CredentialsMissingError",
    "CredentialsRejectedError",
    "NoAuthenticator",
    "Principal",
    "build_authenticator",
]


def build_authenticator(settings: Settings) -> Authenticator:
    """The authenticator for ``settings.auth_mode``; raises `SettingsError` on an unsafe or
    incomplete configuration, so a bad deployment fails at start-up rather than per request."""
    builders: dict[str, Callable[[Settings], Authenticator]] = {
        "none": _none,
        "api_key": _api_key,
        "jwt": _jwt,
        "iam": _iam,
    }
    return builders[settings.auth_mode](settings)


def _none(settings: Settings) -> Authenticator:
    if not settings.allow_unauthenticated:
        raise SettingsError(
            "A2A_AUTH_MODE is none: anyone who can reach the agent could call it. Choose an auth mode "
            "(A2A_AUTH_MODE=api_key|jwt|iam) or confirm with A2A_ALLOW_UNAUTHENTICATED=true"
        )
    return NoAuthenticator()


def _api_key(settings: Settings) -> Authenticator:
    from a2a_core.auth.api_key import ApiKeyAuthenticator

    return ApiKeyAuthenticator(settings.api_keys, trust_context_header=settings.trust_request_context_header)


def _jwt(settings: Settings) -> Authenticator:
    from joserfc.errors import JoseError

    from a2a_core.auth.bearer import BearerAuthenticator, Jwks, TokenValidator

    s = settings
    local = (s.jwt_issuer, s.jwt_audience, s.jwt_jwks_url or s.jwt_jwks_file)
    if not any(local):  # tokens are validated by API Gateway's authorizer only
        return BearerAuthenticator(None, trust_context_header=s.trust_request_context_header)
    if not all(local) or (s.jwt_jwks_url and s.jwt_jwks_file):
        raise SettingsError(
            "A2A_AUTH_MODE is jwt: validating tokens here needs A2A_JWT_ISSUER, A2A_JWT_AUDIENCE and "
            "exactly one of A2A_JWT_JWKS_URL and A2A_JWT_JWKS_FILE"
        )
    assert s.jwt_issuer is not None
    assert s.jwt_audience is not None
    try:
        jwks = Jwks(url=s.jwt_jwks_url) if s.jwt_jwks_url else Jwks.from_file(s.jwt_jwks_file or "")
        validator = TokenValidator(
            jwks,
            issuer=s.jwt_issuer,
            audience=s.jwt_audience,
            algorithms=s.jwt_algorithms,
            leeway=s.jwt_leeway_seconds,
        )
    except (OSError, ValueError, JoseError) as error:
        raise SettingsError(f"A2A_JWT_*: {error}") from None
    return BearerAuthenticator(validator, trust_context_header=s.trust_request_context_header)


def _iam(settings: Settings) -> Authenticator:
    from a2a_core.auth.iam import IamAuthenticator

    return IamAuthenticator(trust_context_header=settings.trust_request_context_header)
