"""Authorizer Lambda: the REST API's JWT ``TOKEN`` authorizer (auth mode ``jwt``).

Composition root: settings, the issuer's JWKS (fetched on first use, then cached) and the token
validator are built once per cold start, at import. It needs neither the agent nor any AWS
client. The policy handling lives in `a2a_core.aws.authorizer`.
"""

from __future__ import annotations

import asyncio
import gc
import os

from a2a_core.auth.bearer import Jwks, TokenValidator
from a2a_core.aws.authorizer import token_authorizer_handler
from a2a_core.settings import Settings, SettingsError


def build(settings: Settings) -> TokenValidator:
    required = {
        "A2A_JWT_ISSUER": settings.jwt_issuer,
        "A2A_JWT_AUDIENCE": settings.jwt_audience,
        "A2A_JWT_JWKS_URL": settings.jwt_jwks_url,
    }
    missing = [name for name, value in required.items() if not value]
    if missing:
        raise SettingsError(f"the JWT authorizer needs {', '.join(required)}; missing: {', '.join(missing)}")
    assert settings.jwt_issuer is not None
    assert settings.jwt_audience is not None
    assert settings.jwt_jwks_url is not None
    try:
        return TokenValidator(
            Jwks(url=settings.jwt_jwks_url),
            issuer=settings.jwt_issuer,
            audience=settings.jwt_audience,
            algorithms=settings.jwt_algorithms,
            leeway=settings.jwt_leeway_seconds,
        )
    except ValueError as error:
        raise SettingsError(f"A2A_JWT_ALGORITHMS: {error}") from None


validator = build(Settings.from_env())
loop = asyncio.new_event_loop()  # the container's: the JWKS cache outlives an invocation
handler = token_authorizer_handler(validator, loop=loop)
if "AWS_LAMBDA_FUNCTION_NAME" in os.environ:  # in Lambda (not a process loading it for a test):
    gc.freeze()  # what the cold start built lives as long as the container; collections skip it
