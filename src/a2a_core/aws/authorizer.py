"""The JWT Lambda authorizer of the REST API (``TOKEN`` type): a bearer token -> an IAM policy.

`functions/authorizer` is a thin composition root around `token_authorizer_handler`; the token
is checked by the very `TokenValidator` that ``a2a-serverless dev`` uses.

API Gateway turns each outcome into the caller's answer:

- no ``Bearer`` token: the exception ``Unauthorized``, which API Gateway maps to 401;
- a token that is not valid: a ``Deny`` policy, which API Gateway answers ``ACCESS_DENIED``: 401
  with ``error="invalid_token"`` (RFC 6750) by the construct's gateway response;
- the issuer's keys unavailable: any other exception, 500 (``AUTHORIZER_FAILURE``);
- a valid token: an ``Allow`` policy and a context the API function reads the caller from.

API Gateway caches a policy per token and reuses it for every method and path of the stage, so
both verdicts cover the whole stage. Context values must be strings, numbers or booleans.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Mapping
from typing import Any

from aws_lambda_powertools import Logger

from a2a_core.auth import gateway
from a2a_core.auth.base import CredentialsMissingError, TokenInvalidError
from a2a_core.auth.bearer import AuthUnavailableError, TokenValidator, bearer_token

AuthorizerHandler = Callable[[dict[str, Any], Any], dict[str, Any]]
logger = Logger()  # service name from POWERTOOLS_SERVICE_NAME

UNAUTHORIZED = "Unauthorized"  # the one message API Gateway answers with 401
NOBODY = "anonymous"
# arn:<partition>:execute-api:<region>:<account>:<apiId>/<stage>/<METHOD>/<path...>; the path
# is whatever the caller requested, so only the prefix is read.
_METHOD_ARN = re.compile(
    r"(arn:aws[a-z-]*:execute-api:[a-z0-9-]+:[0-9]{12}:[A-Za-z0-9]+/[A-Za-z0-9_-]+)/[A-Z]+/"
)


class KeysUnavailableError(Exception):
    """The token cannot be checked either way: API Gateway answers 500 (``AUTHORIZER_FAILURE``)."""


def token_authorizer_handler(
    validator: TokenValidator, *, loop: asyncio.AbstractEventLoop | None = None
) -> AuthorizerHandler:
    """The authorizer's Lambda handler. Every invocation runs on ``loop`` (by default a new one):
    the JWKS cache, and the asyncio lock that guards it, live as long as the container."""
    runner = loop or asyncio.new_event_loop()

    # log_event=False whatever POWERTOOLS_LOGGER_LOG_EVENT says: the event is the token.
    @logger.inject_lambda_context(log_event=False)
    def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        token = event.get("authorizationToken")
        try:
            token = bearer_token(token if isinstance(token, str) else "")
        except CredentialsMissingError:
            raise Exception(UNAUTHORIZED) from None  # API Gateway matches this exact message
        method_arn = event.get("methodArn")
        match = _METHOD_ARN.match(method_arn) if isinstance(method_arn, str) else None
        if match is None:
            logger.warning("denied: the method ARN is malformed")
            return policy(NOBODY, "Deny", "*")
        stage = f"{match.group(1)}/*"
        try:
            claims = runner.run_until_complete(validator.validate(token))
        except TokenInvalidError:
            logger.info("denied: the token is not valid")
            return policy(NOBODY, "Deny", stage)
        except AuthUnavailableError:
            logger.error("cannot check tokens: the issuer's keys (JWKS) are unavailable")
            raise KeysUnavailableError("the issuer's keys are unavailable") from None
        principal_id = f"{claims['iss']}|{claims['sub']}"
        logger.info("allowed", principal_id=principal_id)
        return policy(principal_id, "Allow", stage, caller_context(claims))

    return handler


def caller_context(claims: Mapping[str, Any]) -> dict[str, str | int]:
    """What the API function reads the caller from (`a2a_core.auth.bearer`), flat and scalar."""
    return {
        "iss": str(claims["iss"]),
        "sub": str(claims["sub"]),
        "scope": " ".join(sorted(gateway.scopes(claims))),
        "exp": int(claims["exp"]),
    }


def policy(
    principal_id: str, effect: str, resource: str, context: Mapping[str, str | int] | None = None
) -> dict[str, Any]:
    statement = {"Action": "execute-api:Invoke", "Effect": effect, "Resource": resource}
    answer: dict[str, Any] = {
        "principalId": principal_id,
        "policyDocument": {"Version": "2012-10-17", "Statement": [statement]},
    }
    if context is not None:
        answer["context"] = dict(context)
    return answer
