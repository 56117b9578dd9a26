"""The service's front door: the REST API (API keys, a JWT authorizer or IAM), the HTTP API, or
a Lambda function URL (the app's own auth; optionally behind CloudFront and WAF).

Created in the service's scope (``scope``), like the rest of its resources.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from aws_cdk import Duration
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct

from a2a_core.cdk import auth as gateway_auth
from a2a_core.cdk.api import AgentApi
from a2a_core.cdk.function_url import AgentFunctionUrl
from a2a_core.cdk.http_api import AgentHttpApi
from a2a_core.cdk.options import (
    ApiKeyLimits,
    AuthMode,
    CustomDomain,
    EdgeOptions,
    FrontDoor,
    JwtIssuer,
    StreamingMode,
)


class FrontDoorParts(NamedTuple):
    api: AgentApi | AgentHttpApi | AgentFunctionUrl
    api_keys: gateway_auth.ApiKeys | None  # with AuthMode.API_KEY on the REST API


def add_front_door(
    scope: Construct,
    kind: FrontDoor,
    *,
    handler: lambda_.Function,
    invoked: lambda_.IFunction | None,
    auth: AuthMode,
    jwt: JwtIssuer | None,
    authorizer_function: lambda_.Function | None,
    streaming: StreamingMode,
    integration_timeout: Duration,
    key_names: Sequence[str],
    api_key_limits: ApiKeyLimits | None,
    throttling_rate_limit: float,
    throttling_burst_limit: int,
    log_retention: logs.RetentionDays,
    custom_domain: CustomDomain | None,
    web_acl_arn: str | None,
    edge: EdgeOptions | None,
    tracing: bool = True,
) -> FrontDoorParts:
    """``invoked``: what callers reach (the SnapStart alias), ``handler`` itself when None."""
    target = invoked or handler
    if kind is FrontDoor.FUNCTION_URL:
        url = AgentFunctionUrl(
            scope,
            "FunctionUrl",
            function=handler,
            invoked=target,
            auth_mode=auth,
            streaming=streaming,
            jwt=jwt,
            api_key_limits=api_key_limits,
            edge=edge,
            custom_domain=custom_domain,
        )
        return FrontDoorParts(url, None)
    if kind is FrontDoor.HTTP_API:
        api = AgentHttpApi(
            scope,
            "HttpApi",
            handler=target,
            auth_mode=auth,
            jwt=jwt,
            integration_timeout=integration_timeout,
            throttling_rate_limit=throttling_rate_limit,
            throttling_burst_limit=throttling_burst_limit,
            log_retention=log_retention,
            custom_domain=custom_domain,
        )
        return FrontDoorParts(api, None)
    rest_api = AgentApi(
        scope,
        "Api",
        handler=target,
        streaming=streaming,
        auth_mode=auth,
        protected=gateway_auth.method_options(
            auth,
            gateway_auth.token_authorizer(scope, authorizer_function, jwt.cache_ttl)
            if authorizer_function is not None and jwt is not None
            else None,
        ),
        integration_timeout=integration_timeout,
        throttling_rate_limit=throttling_rate_limit,
        throttling_burst_limit=throttling_burst_limit,
        log_retention=log_retention,
        custom_domain=custom_domain,
        web_acl_arn=web_acl_arn,
        tracing=tracing,
    )
    api_keys = None
    if auth is AuthMode.API_KEY:
        api_keys = gateway_auth.ApiKeys(
            scope, "ApiKeys", rest_api=rest_api.rest_api, limits=api_key_limits, names=key_names
        )
    return FrontDoorParts(rest_api, api_keys)
