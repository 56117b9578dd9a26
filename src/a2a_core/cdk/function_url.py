"""The cheapest front door: a Lambda function URL on the API function (no charge per request).

Every path goes to the same app. With response streaming (the default here) the URL's invoke
mode is ``RESPONSE_STREAM`` and the function runs uvicorn behind the Lambda Web Adapter, so a
stream reaches the client event by event for up to 15 minutes; buffered, Mangum answers with one
body. Nothing in front of a function URL knows API keys or JWTs, so the app checks them itself
(``A2A_FRONT_DOOR=function_url``: keys hashed in the task table, per-key rate limits, JWTs
against the issuer's JWKS); with ``AuthMode.IAM`` the URL's ``AWS_IAM`` auth checks SigV4 and
the signer is the caller. The URL is public (auth type ``NONE``) only for modes the app
authenticates, or ``AuthMode.NONE`` with the explicit opt-out. With `EdgeOptions`, CloudFront
(and WAF) sits in front and the URL takes only CloudFront's signed requests (`a2a_core.cdk.edge`).
"""

from __future__ import annotations

import json

from aws_cdk import Duration
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from a2a_core.cdk.edge import AgentEdge
from a2a_core.cdk.options import ApiKeyLimits, AuthMode, CustomDomain, EdgeOptions, JwtIssuer, StreamingMode

_INVOKE_MODES = {
    StreamingMode.BUFFERED: lambda_.InvokeMode.BUFFERED,
    StreamingMode.RESPONSE_STREAM: lambda_.InvokeMode.RESPONSE_STREAM,
}


class AgentFunctionUrl(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        function: lambda_.Function,
        invoked: lambda_.IFunction | None = None,
        auth_mode: AuthMode,
        streaming: StreamingMode,
        jwt: JwtIssuer | None = None,
        api_key_limits: ApiKeyLimits | None = None,
        edge: EdgeOptions | None = None,
        custom_domain: CustomDomain | None = None,
    ) -> None:
        """``invoked``: what the URL invokes, when not ``function`` itself (its SnapStart alias);
        the app's settings go to ``function``'s environment either way."""
        super().__init__(scope, id)
        self.function = function
        self.invoked = invoked or function
        self.auth_mode = auth_mode
        # AWS_IAM: Lambda checks SigV4 before the function runs (IAM callers, or CloudFront's OAC).
        signed = auth_mode is AuthMode.IAM or edge is not None
        self.function_url = self.invoked.add_function_url(
            auth_type=lambda_.FunctionUrlAuthType.AWS_IAM if signed else lambda_.FunctionUrlAuthType.NONE,
            invoke_mode=_INVOKE_MODES[streaming],
        )
        for name, value in _app_environment(auth_mode, jwt, api_key_limits).items():
            function.add_environment(name, value)
        self.edge: AgentEdge | None = None
        if edge is not None:
            self.edge = AgentEdge(
                self, "Edge", function_url=self.function_url, options=edge, domain=custom_domain
            )
            if auth_mode is AuthMode.JWT:
                # CloudFront's signature takes the Authorization header; the viewer's bearer token
                # arrives as x-a2a-authorization, which the Lambda Web Adapter moves back.
                function.add_environment("AWS_LWA_AUTHORIZATION_SOURCE", AgentEdge.BEARER_HEADER)
        self.custom_domain = custom_domain
        self.web_acl_arn = self.edge.web_acl_arn if self.edge is not None else None

    @property
    def url(self) -> str:
        """The agent's public URL, ending in ``/``: CloudFront's with `EdgeOptions`, else the
        function URL's (``https://<id>.lambda-url.<region>.on.aws/``)."""
        return self.edge.url if self.edge is not None else self.function_url.url

    @property
    def custom_domain_target(self) -> str | None:
        return self.edge.custom_domain_target if self.edge is not None else None

    def server_errors(self, period: Duration) -> cloudwatch.Metric:
        return cloudwatch.Metric(
            namespace="AWS/Lambda",
            metric_name="Url5xxCount",
            dimensions_map={"FunctionName": self.function.function_name},
            period=period,
            statistic="Sum",
        )

    def grant_invoke(self, grantee: iam.IGrantable) -> iam.Grant:
        """``lambda:InvokeFunctionUrl`` and (since October 2025 both are needed)
        ``lambda:InvokeFunction`` through the URL, for ``AuthMode.IAM``."""
        return self.invoked.grant_invoke_url(grantee)


def _app_environment(
    auth_mode: AuthMode, jwt: JwtIssuer | None, limits: ApiKeyLimits | None
) -> dict[str, str]:
    """What the app needs to check credentials itself (`a2a_core.settings.Settings`)."""
    environment = {"A2A_FRONT_DOOR": "function_url"}
    if auth_mode is AuthMode.JWT:
        assert jwt is not None
        environment |= {
            "A2A_JWT_ISSUER": jwt.issuer,
            "A2A_JWT_AUDIENCE": jwt.audience,
            "A2A_JWT_JWKS_URL": jwt.jwks_url,
            "A2A_JWT_ALGORITHMS": json.dumps(list(jwt.algorithms)),
        }
    if auth_mode is AuthMode.API_KEY and limits is not None:
        environment |= {
            "A2A_API_KEY_RATE_LIMIT": str(limits.rate_limit),
            "A2A_API_KEY_BURST_LIMIT": str(limits.burst_limit),
        }
    return environment
