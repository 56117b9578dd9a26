"""Response streaming: the API function runs uvicorn behind the AWS Lambda Web Adapter layer.

The layer's wrapper starts the bundle's ``run.sh`` (uvicorn serving the same Starlette app) and
relays API Gateway's streaming invocations to it over a local port.
"""

from __future__ import annotations

from aws_cdk import Aws
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

# Published by AWS from this account in every commercial region (China regions use other
# accounts: pass the layer ARN there).
WEB_ADAPTER_ACCOUNT = "753240598075"
WEB_ADAPTER_VERSION = 26
WEB_ADAPTER_PORT = "8080"
HANDLER = "run.sh"  # the bundle's start script, run by the adapter's wrapper

ENVIRONMENT = {
    # uvicorn sees API Gateway's request context (who the caller is) only as this header, which
    # the adapter sets from the event, overwriting any a client sent.
    "A2A_TRUST_REQUEST_CONTEXT_HEADER": "true",
    "AWS_LAMBDA_EXEC_WRAPPER": "/opt/bootstrap",
    "AWS_LWA_INVOKE_MODE": "response_stream",
    "AWS_LWA_PORT": WEB_ADAPTER_PORT,
    "AWS_LWA_READINESS_CHECK_PATH": "/healthz",
}


def layer(scope: Construct, architecture: lambda_.Architecture, arn: str | None) -> lambda_.ILayerVersion:
    """The adapter layer for ``architecture`` (or the layer at ``arn``)."""
    suffix = "Arm64" if architecture.name == "arm64" else "X86"
    return lambda_.LayerVersion.from_layer_version_arn(
        scope,
        "WebAdapter",
        arn
        or f"arn:{Aws.PARTITION}:lambda:{Aws.REGION}:{WEB_ADAPTER_ACCOUNT}:layer:"
        f"LambdaAdapterLayer{suffix}:{WEB_ADAPTER_VERSION}",
    )
