"""The CDK app `cdk.json` runs: offline, environment-agnostic, checked by cdk-nag on every synth.

Context (``-c key=value`` or cdk.json): ``a2a:agent`` (``package.module:attribute``),
``a2a:agent_packages`` (comma-separated directories of your packages, to bundle),
``a2a:streaming`` (``buffered`` | ``response_stream``), ``a2a:architecture`` (``arm64`` |
``x86_64``), ``a2a:alarm_topic_arn``, ``a2a:domain_name`` + ``a2a:certificate_arn``,
``a2a:push`` (``true`` adds push notifications), ``a2a:stack_name``, ``a2a:skip_bundling``
(placeholder code, for tests only).
"""

from __future__ import annotations

from aws_cdk import App, Validations
from aws_cdk import aws_lambda as lambda_
from cdk_nag import AwsSolutionsChecks

from infra.options import CustomDomain, StreamingMode
from infra.stack import A2AStack

DEFAULT_AGENT = "a2a_core.examples.echo:agent"
_ARCHITECTURES = {"arm64": lambda_.Architecture.ARM_64, "x86_64": lambda_.Architecture.X86_64}


def build(app: App) -> A2AStack:
    def context(key: str, default: str | None = None) -> str | None:
        value = app.node.try_get_context(f"a2a:{key}")
        return default if value is None else str(value)

    domain, certificate = context("domain_name"), context("certificate_arn")
    stack = A2AStack(
        app,
        context("stack_name", "A2AServerless") or "A2AServerless",
        description="a2a-serverless: an A2A 0.2.5 agent on API Gateway, Lambda, DynamoDB and SQS",
        agent=context("agent", DEFAULT_AGENT) or DEFAULT_AGENT,
        agent_packages=[path for path in (context("agent_packages") or "").split(",") if path],
        # No other auth mode exists yet: the default stack is public, and says so explicitly.
        allow_unauthenticated=True,
        streaming=StreamingMode(context("streaming", StreamingMode.BUFFERED.value)),
        architecture=_ARCHITECTURES[context("architecture", "arm64") or "arm64"],
        alarm_topic_arn=context("alarm_topic_arn"),
        custom_domain=CustomDomain(domain, certificate) if domain and certificate else None,
        push=context("push", "false") == "true",
    )
    Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    return stack


def main() -> None:
    app = App()
    build(app)
    app.synth()


if __name__ == "__main__":
    main()
