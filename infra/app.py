"""The CDK app `cdk.json` runs: offline, environment-agnostic, checked by cdk-nag on every synth.

It deploys this repository's project (``[tool.a2a-serverless]`` in pyproject.toml: the echo example)
with the packaged construct, as any user's app would. Context (``-c key=value`` or cdk.json):
``a2a:agent`` (another ``package.module:attribute`` of the project, e.g. the multi-turn example),
``a2a:auth`` (``api_key`` (default) | ``jwt`` | ``iam`` | ``none``), ``a2a:api_keys``
(comma-separated key names, default ``default``), ``a2a:jwt_issuer`` + ``a2a:jwt_audience`` +
``a2a:jwt_jwks_url`` (for ``jwt``), ``a2a:allow_unauthenticated`` (``true``, required for ``none``),
``a2a:runtime`` (``python3.13`` (default) | ``python3.14`` | ...), ``a2a:bytecode`` (``auto`` |
``download`` | ``off``), ``a2a:streaming`` (``buffered`` | ``response_stream``; default: buffered
behind API Gateway, streaming behind a function URL), ``a2a:front_door`` (``rest_api`` |
``http_api`` | ``function_url``), ``a2a:edge`` (``true``: CloudFront and WAF in front of the
function URL; ``a2a:edge_web_acl_arn``, ``a2a:edge_waf``), ``a2a:architecture`` (``arm64`` |
``x86_64``), ``a2a:alarm_topic_arn``, ``a2a:domain_name`` + ``a2a:certificate_arn``, ``a2a:push``
(``true`` adds push notifications), ``a2a:max_turn_seconds`` (past what the Lambda worker allows:
the long-turn worker on ECS Fargate), ``a2a:stack_name``, ``a2a:skip_bundling`` (placeholder code, for
tests only).
"""

from __future__ import annotations

import os
from collections.abc import Callable

from aws_cdk import App, Environment, Validations
from aws_cdk import aws_lambda as lambda_
from cdk_nag import AwsSolutionsChecks

from a2a_core.cdk import (
    A2AServiceProps,
    A2AStack,
    AuthMode,
    Bytecode,
    ConfigurationError,
    CustomDomain,
    EdgeOptions,
    FrontDoor,
    JwtIssuer,
    StreamingMode,
    find_project,
)
from a2a_core.cdk.props import DEFAULT_RUNTIME

_ARCHITECTURES = {"arm64": lambda_.Architecture.ARM_64, "x86_64": lambda_.Architecture.X86_64}


def build(app: App) -> A2AStack:
    def context(key: str, default: str | None = None) -> str | None:
        value = app.node.try_get_context(f"a2a:{key}")
        return default if value is None else str(value)

    domain, certificate = context("domain_name"), context("certificate_arn")
    auth = AuthMode(context("auth", AuthMode.API_KEY.value))
    issuer, audience, jwks_url = context("jwt_issuer"), context("jwt_audience"), context("jwt_jwks_url")
    if auth is AuthMode.JWT and not (issuer and audience and jwks_url):
        raise ConfigurationError(
            "a2a:auth=jwt needs a2a:jwt_issuer, a2a:jwt_audience and a2a:jwt_jwks_url (-c key=value)"
        )
    streaming = context("streaming")
    edge = _edge(context) if context("edge", "false") == "true" else None
    project = find_project()
    agent = context("agent")
    props = A2AServiceProps(
        project=project.with_agent(agent) if agent else project,
        auth=auth,
        allow_unauthenticated=context("allow_unauthenticated", "false") == "true",
        jwt=JwtIssuer(issuer, audience, jwks_url) if issuer and audience and jwks_url else None,
        api_keys=[name for name in (context("api_keys") or "").split(",") if name] or None,
        streaming=StreamingMode(streaming) if streaming else None,
        front_door=FrontDoor(context("front_door", FrontDoor.REST_API.value)),
        edge=edge,
        runtime=_runtime(context("runtime", DEFAULT_RUNTIME.name) or DEFAULT_RUNTIME.name),
        bytecode=Bytecode(context("bytecode", Bytecode.AUTO.value)),
        architecture=_ARCHITECTURES[context("architecture", "arm64") or "arm64"],
        custom_domain=CustomDomain(domain, certificate) if domain and certificate else None,
        max_turn_seconds=int(turn) if (turn := context("max_turn_seconds")) else None,
    )
    stack = A2AStack(
        app,
        context("stack_name", "A2AServerless") or "A2AServerless",
        props,
        description="a2a-serverless: an A2A agent (1.0, 0.3, 0.2.5) on API Gateway, Lambda, DynamoDB and SQS",
        alarm_topic_arn=context("alarm_topic_arn"),
        push=context("push", "false") == "true",
        # CloudFront's Lambda@Edge is deployed to us-east-1 from a stack that knows its region.
        env=_deploy_environment() if edge else None,
    )
    Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    return stack


def _edge(context: Callable[[str, str | None], str | None]) -> EdgeOptions:
    return EdgeOptions(
        web_acl_arn=context("edge_web_acl_arn", None), waf=context("edge_waf", "true") == "true"
    )


def _runtime(name: str) -> lambda_.Runtime:
    for runtime in lambda_.Runtime.ALL:
        if runtime.name == name:
            return runtime
    raise ConfigurationError(f"a2a:runtime: no Lambda runtime named {name!r} (e.g. python3.13)")


def _deploy_environment() -> Environment:
    region = os.environ.get("CDK_DEFAULT_REGION")
    if not region:
        raise ConfigurationError(
            "a2a:edge needs the target region: set AWS_REGION (or use a profile with one)"
        )
    return Environment(account=os.environ.get("CDK_DEFAULT_ACCOUNT"), region=region)


def main() -> None:
    app = App()
    build(app)
    app.synth()


if __name__ == "__main__":
    main()
