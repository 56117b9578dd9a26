"""Caller authentication at API Gateway, one `AuthMode` at a time.

Every method that reaches the agent (``ANY /`` and ``ANY /{proxy+}``) requires the mode's
credential; the public documents (the agent card, the push JWKS, ``/healthz``, ``/docs`` and the
``GET /`` index) stay open, as explicit ``GET`` methods that take precedence over the proxy.
API Gateway's own refusals carry the same HTTP statuses and ``WWW-Authenticate`` challenges the
app sends when it checks credentials itself (`a2a-serverless dev`, a function URL): a bearer token
that is missing is 401 ``Bearer realm="a2a"``, one that is not valid 401 with
``error="invalid_token"`` (RFC 6750), so a client refreshes its token whichever side refused it.

A gateway response's body is one template for every path (API Gateway substitutes variables in
it but runs no logic), so it is written to read as each binding's error: a JSON-RPC error
response (``id`` null, ``data`` the ErrorInfo 1.0 errors carry, which 0.x readers take as any
``data``) whose ``error`` is also a ``google.rpc.Status`` (``code`` the HTTP status, ``status``
its gRPC name) wherever the response's status is fixed. The default 4xx and 5xx responses, whose
status API Gateway picks, keep the JSON-RPC codes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from aws_cdk import Duration
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from a2a_core.auth import api_key, bearer, iam
from a2a_core.cdk.options import ApiKeyLimits, AuthMode
from a2a_core.web.edge import GRPC_STATUS

# Served to anyone, in every mode (A2A: the card is how a client learns how to authenticate).
PUBLIC_PATHS = (
    "/",
    "/.well-known/agent.json",
    "/.well-known/agent-card.json",
    "/.well-known/jwks.json",
    "/healthz",
    "/docs",
)
# What an `Authorization` header must look like before API Gateway invokes the authorizer;
# anything else is answered 401 without running (and paying for) it.
BEARER_PATTERN = r"^Bearer [-0-9A-Za-z._~+/]+=*$"

INVALID_REQUEST = -32600
INTERNAL_ERROR = -32603


def method_options(mode: AuthMode, authorizer: apigw.IAuthorizer | None) -> dict[str, Any]:
    """How every method that reaches the agent is protected (`Resource.add_method` keywords)."""
    if mode is AuthMode.API_KEY:
        return {"api_key_required": True, "authorization_type": apigw.AuthorizationType.NONE}
    if mode is AuthMode.JWT:
        assert authorizer is not None
        return {"authorizer": authorizer, "authorization_type": apigw.AuthorizationType.CUSTOM}
    if mode is AuthMode.IAM:
        return {"authorization_type": apigw.AuthorizationType.IAM}
    return {"authorization_type": apigw.AuthorizationType.NONE}


def token_authorizer(
    scope: Construct, function: lambda_.IFunction, cache_ttl: Duration
) -> apigw.TokenAuthorizer:
    """A TOKEN authorizer: a missing or malformed header is 401 (without invoking ``function``),
    a token ``function`` denies is 401 ``invalid_token`` (`add_gateway_responses`), and its verdict
    is cached per token for ``cache_ttl``."""
    return apigw.TokenAuthorizer(
        scope,
        "JwtAuthorizer",
        handler=function,
        identity_source=apigw.IdentitySource.header("Authorization"),
        validation_regex=BEARER_PATTERN,
        results_cache_ttl=cache_ttl,
    )


class ApiKeys(Construct):
    """``AuthMode.API_KEY``: one usage plan on the stage (each key's rate limit and quota) and
    its keys. API Gateway generates each key's value; a task's owner is the key's *id*."""

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        rest_api: apigw.RestApi,
        limits: ApiKeyLimits | None,
        names: Sequence[str],
    ) -> None:
        super().__init__(scope, id)
        self.plan = rest_api.add_usage_plan(
            "UsagePlan",
            description="a2a-serverless: what each API key may send",
            throttle=apigw.ThrottleSettings(rate_limit=limits.rate_limit, burst_limit=limits.burst_limit)
            if limits
            else None,
            quota=apigw.QuotaSettings(limit=limits.quota, period=limits.quota_period)
            if limits and limits.quota is not None
            else None,
        )
        self.plan.add_api_stage(stage=rest_api.deployment_stage)
        self.keys: dict[str, apigw.IApiKey] = {}
        for name in names:
            self.add(name)

    def add(self, name: str) -> apigw.IApiKey:
        """A new key on the plan; read its value with ``aws apigateway get-api-key --api-key <id>
        --include-value``."""
        key = apigw.ApiKey(self, f"Key-{name}", description=f"a2a-serverless caller '{name}'")
        self.plan.add_api_key(key)
        self.keys[name] = key
        return key


def add_gateway_responses(rest_api: apigw.RestApi, mode: AuthMode) -> None:
    """Error bodies both bindings read for everything API Gateway answers itself (module doc)."""
    _respond(rest_api, "Default4xx", apigw.ResponseType.DEFAULT_4_XX, INVALID_REQUEST)
    _respond(rest_api, "Default5xx", apigw.ResponseType.DEFAULT_5_XX, INTERNAL_ERROR)
    if mode is AuthMode.JWT:
        # The authorizer denies a token that is not valid (expired, forged, another issuer's).
        _respond(
            rest_api,
            "AccessDenied",
            apigw.ResponseType.ACCESS_DENIED,
            INVALID_REQUEST,
            bearer.NOT_VALID,
            status=401,
            challenge=bearer.INVALID_CHALLENGE,
        )
    else:
        _respond(
            rest_api,
            "AccessDenied",
            apigw.ResponseType.ACCESS_DENIED,
            INVALID_REQUEST,
            "Access denied: the credentials are not valid for this agent",
            status=403,
        )
    if mode is AuthMode.API_KEY:
        # API Gateway cannot tell a missing key from a wrong one: both are INVALID_API_KEY (403).
        _respond(
            rest_api,
            "InvalidApiKey",
            apigw.ResponseType.INVALID_API_KEY,
            INVALID_REQUEST,
            f"Access denied: send a valid API key in the {api_key.HEADER} header",
            status=403,
            challenge=api_key.CHALLENGE,
        )
    if mode is AuthMode.JWT:
        _respond(
            rest_api,
            "Unauthorized",
            apigw.ResponseType.UNAUTHORIZED,
            INVALID_REQUEST,
            "Authentication required: send a bearer token (Authorization: Bearer <JWT>)",
            status=401,
            challenge=bearer.CHALLENGE,
        )
        _respond(
            rest_api,
            "AuthorizerFailure",
            apigw.ResponseType.AUTHORIZER_FAILURE,
            INTERNAL_ERROR,
            "Cannot verify tokens right now: the issuer's keys are unavailable; retry later",
            status=503,
        )
    if mode is AuthMode.IAM:
        # Every path the agent serves has a method (the proxy), so a missing token means an unsigned
        # request; only a path that is not the agent's (POST /healthz, /docs/x) gets it otherwise.
        _respond(
            rest_api,
            "MissingSignature",
            apigw.ResponseType.MISSING_AUTHENTICATION_TOKEN,
            INVALID_REQUEST,
            "Authentication required: sign the request with AWS Signature Version 4 (execute-api)",
            status=401,
            challenge=iam.CHALLENGE,
        )


_REASONS = {INVALID_REQUEST: "INVALID_REQUEST", INTERNAL_ERROR: "INTERNAL_ERROR"}


def error_template(code: int, message: str | None, *, status: int | None = None) -> str:
    """A refusal both bindings read (module doc); without a message, API Gateway's own
    (``$context.error.messageString`` is it, JSON-quoted). With a fixed HTTP ``status`` the error
    is also a google.rpc.Status (its code is ``status``); else its code is the JSON-RPC ``code``."""
    quoted = json.dumps(message) if message is not None else "$context.error.messageString"
    info = {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        "reason": _REASONS[code],
        "domain": "a2a-protocol.org",
        "metadata": {"requestId": "$context.requestId"},
    }
    named = f'"code":{status},"status":{json.dumps(GRPC_STATUS[status])}' if status else f'"code":{code}'
    return (
        f'{{"jsonrpc":"2.0","id":null,"error":{{{named},"message":{quoted},'
        f'"data":[{json.dumps(info, separators=(",", ":"))}]}}}}'
    )


def _respond(
    rest_api: apigw.RestApi,
    id: str,
    response_type: apigw.ResponseType,
    code: int,
    message: str | None = None,
    *,
    status: int | None = None,
    challenge: str | None = None,
) -> None:
    rest_api.add_gateway_response(
        id,
        type=response_type,
        status_code=str(status) if status else None,
        response_headers={"WWW-Authenticate": f"'{challenge}'"} if challenge else None,
        templates={"application/json": error_template(code, message, status=status)},
    )
