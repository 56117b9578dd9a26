"""The public front door: a regional REST API proxying every path to the API function.

Methods that reach the agent (``ANY /`` and ``ANY /{proxy+}``) carry the auth mode's protection;
the public documents are explicit ``GET`` methods without it (see `a2a_core.cdk.auth`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aws_cdk import Duration, Stack
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_certificatemanager as acm
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_wafv2 as wafv2
from constructs import Construct

from a2a_core.aws import access_logs
from a2a_core.cdk import auth
from a2a_core.cdk.options import AuthMode, CustomDomain, StreamingMode

STAGE = "prod"
_TRANSFER_MODES = {
    StreamingMode.BUFFERED: apigw.ResponseTransferMode.BUFFERED,
    StreamingMode.RESPONSE_STREAM: apigw.ResponseTransferMode.STREAM,
}


class AgentApi(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        handler: lambda_.IFunction,
        streaming: StreamingMode,
        auth_mode: AuthMode,
        protected: Mapping[str, Any],
        integration_timeout: Duration,
        throttling_rate_limit: float,
        throttling_burst_limit: int,
        log_retention: logs.RetentionDays,
        custom_domain: CustomDomain | None = None,
        web_acl_arn: str | None = None,
        tracing: bool = True,
    ) -> None:
        super().__init__(scope, id)
        self.access_logs = logs.LogGroup(self, "AccessLogs", retention=log_retention)
        self.rest_api = apigw.RestApi(
            self,
            "Api",
            default_integration=apigw.LambdaIntegration(
                handler,
                timeout=integration_timeout,
                response_transfer_mode=_TRANSFER_MODES[streaming],
            ),
            description="A2A agent (JSON-RPC 2.0 and agent card)",
            endpoint_configuration=apigw.EndpointConfiguration(types=[apigw.EndpointType.REGIONAL]),
            # Execution logs need the account-wide API Gateway CloudWatch role, which one stack
            # must not own; access logs below record every request.
            cloud_watch_role=False,
            deploy_options=apigw.StageOptions(
                stage_name=STAGE,
                access_log_destination=apigw.LogGroupLogDestination(self.access_logs),
                access_log_format=apigw.AccessLogFormat.custom(
                    access_logs.compact(access_logs.rest_format(auth_mode.value))
                ),
                throttling_rate_limit=throttling_rate_limit,
                throttling_burst_limit=throttling_burst_limit,
                tracing_enabled=tracing,
            ),
        )
        # The stack outputs the agent's URL itself (`url`, which knows about the custom domain).
        self.rest_api.node.try_remove_child("Endpoint")
        root = self.rest_api.root
        self.protected_methods = [
            root.add_method("ANY", **protected),
            root.add_proxy(any_method=False).add_method("ANY", **protected),
        ]
        self.public_methods = [
            root.resource_for_path(path).add_method("GET", authorization_type=apigw.AuthorizationType.NONE)
            for path in auth.PUBLIC_PATHS
        ]
        auth.add_gateway_responses(self.rest_api, auth_mode)
        self.domain: apigw.DomainName | None = None
        if custom_domain is not None:
            self.domain = self.rest_api.add_domain_name(
                "Domain",
                domain_name=custom_domain.domain_name,
                certificate=acm.Certificate.from_certificate_arn(
                    self, "Certificate", custom_domain.certificate_arn
                ),
                endpoint_type=apigw.EndpointType.REGIONAL,
                security_policy=apigw.SecurityPolicy.TLS_1_2,
            )
        if web_acl_arn is not None:
            wafv2.CfnWebACLAssociation(
                self,
                "WebAcl",
                resource_arn=self.rest_api.deployment_stage.stage_arn,
                web_acl_arn=web_acl_arn,
            )
        self.custom_domain = custom_domain
        self.web_acl_arn = web_acl_arn

    @property
    def custom_domain_target(self) -> str | None:
        return self.domain.domain_name_alias_domain_name if self.domain is not None else None

    def server_errors(self, period: Duration) -> cloudwatch.Metric:
        return self.rest_api.metric_server_error(period=period, statistic="Sum")

    def invoke_arn(self) -> str:
        """``execute-api:Invoke`` on every method of the stage."""
        return self.rest_api.arn_for_execute_api("*", "/*", STAGE)

    @property
    def url(self) -> str:
        """The agent's public URL (JSON-RPC endpoint), ending in ``/``.

        Built from the API id and the stage *name* rather than `RestApi.url` (which references the
        stage), so the API function can carry it in its environment without a dependency cycle.
        """
        if self.custom_domain is not None:
            return f"https://{self.custom_domain.domain_name}/"
        stack = Stack.of(self)
        return f"https://{self.rest_api.rest_api_id}.execute-api.{stack.region}.{stack.url_suffix}/{STAGE}/"
