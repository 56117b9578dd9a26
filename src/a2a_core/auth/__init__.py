"""Caller authentication: one `Authenticator` per ``auth_mode``, chosen from `Settings`.

Behind API Gateway the gateway verifies the credential and the app reads who the caller is from
the request context; served directly (``a2a-serverless dev``) the app checks API keys and JWTs
itself. Either way the result is a `Principal`, whose key owns the tasks it creates.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from a2a_core.auth.base import (
    ANONYMOUS,
    Authenticator,
    AuthError,
    CredentialsMissingError,
    CredentialsRejectedError,
    NoAuthenticator,
    Principal,
)
from a2a_core.settings import ENV_PREFIX, Settings, SettingsError

if TYPE_CHECKING:
    from a2a_core.auth.key_store import ApiKeyStore
    from a2a_core.auth.rate_limit import RateBuckets

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


def build_authenticator(
    settings: Settings, *, api_keys: ApiKeyStore | None = None, rate_buckets: RateBuckets | None = None
) -> Authenticator:
    """The authenticator for ``settings.auth_mode``; raises `SettingsError` on an unsafe or
    incomplete configuration, so a bad deployment fails at start-up rather than per request.

    Behind a function URL (``front_door=function_url``) API keys are looked up in ``api_keys``
    and rate limited with ``rate_buckets``; nothing else uses them."""
    if settings.front_door == "function_url" and settings.auth_mode == "api_key":
        return _stored_keys(settings, api_keys, rate_buckets)
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


def _stored_keys(settings: Settings, keys: ApiKeyStore | None, buckets: RateBuckets | None) -> Authenticator:
    from a2a_core.auth.rate_limit import LeasedRateLimiter, Limit
    from a2a_core.auth.stored_keys import StoredKeyAuthenticator

    if keys is None or buckets is None:
        raise SettingsError(
            "A2A_AUTH_MODE is api_key behind a function URL: the app checks keys itself and needs the "
            "key store and rate buckets (the AWS backend's task table)"
        )
    s = settings
    return StoredKeyAuthenticator(
        keys,
        LeasedRateLimiter(buckets, lease_seconds=s.api_key_lease_seconds),
        default_limit=Limit(s.api_key_rate_limit, s.api_key_burst_limit),
        cache_seconds=s.api_key_cache_seconds,
    )


def _jwt(settings: Settings) -> Authenticator:
    from a2a_core.auth.bearer import BearerAuthenticator
    from a2a_core.auth.issuer_settings import token_validator

    s = settings
    in_app = s.front_door == "function_url"  # no authorizer in front: the token is checked here
    if not (s.jwt_issuer or s.jwt_audience or s.jwt_jwks_url or s.jwt_jwks_file) and not in_app:
        # Tokens are validated by API Gateway's authorizer only.
        return BearerAuthenticator(None, trust_context_header=s.trust_request_context_header)
    validator = token_validator(s, checker=f"{ENV_PREFIX}AUTH_MODE=jwt with tokens checked by the app")
    if in_app:
        return BearerAuthenticator(validator, from_gateway=False)
    return BearerAuthenticator(validator, trust_context_header=s.trust_request_context_header)


def _iam(settings: Settings) -> Authenticator:
    from a2a_core.auth.iam import IamAuthenticator

    return IamAuthenticator(trust_context_header=settings.trust_request_context_header)
