"""The cheaper front door: an API Gateway HTTP API ($1.00 per million requests, REST: $3.50).

It proxies every path to the same API function (payload format 2.0, which Mangum speaks). What it
gives up against the REST API (`a2a_core.cdk.api`): API keys and usage plans (auth is JWT, IAM or none),
response streaming (answers are buffered) and WAF. JWTs are checked by API Gateway's own JWT
authorizer: keys from the issuer's OpenID discovery document, RSA signatures only.
"""

from __future__ import annotations

import jsii
from aws_cdk import Duration, Stack
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_apigatewayv2 as apigwv2
from aws_cdk import aws_apigatewayv2_authorizers as authorizers
from aws_cdk import aws_apigatewayv2_integrations as integrations
from aws_cdk import aws_certificatemanager as acm
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct

from a2a_core.aws import access_logs
from a2a_core.cdk.auth import PUBLIC_PATHS
from a2a_core.cdk.options import AuthMode, CustomDomain, JwtIssuer


class AgentHttpApi(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        handler: lambda_.IFunction,
        auth_mode: AuthMode,
        jwt: JwtIssuer | None,
        integration_timeout: Duration,
        throttling_rate_limit: float,
        throttling_burst_limit: int,
        log_retention: logs.RetentionDays,
        custom_domain: CustomDomain | None = None,
    ) -> None:
        super().__init__(scope, id)
        self.access_logs = logs.LogGroup(self, "AccessLogs", retention=log_retention)
        integration = integrations.HttpLambdaIntegration(
            "Function",
            handler,
            payload_format_version=apigwv2.PayloadFormatVersion.VERSION_2_0,
            timeout=integration_timeout,
            # One permission for the API's routes, rather than one per route.
            scope_permission_to_route=False,
        )
        self.domain: apigwv2.DomainName | None = None
        if custom_domain is not None:
            self.domain = apigwv2.DomainName(
                self,
                "Domain",
                domain_name=custom_domain.domain_name,
                certificate=acm.Certificate.from_certificate_arn(
                    self, "Certificate", custom_domain.certificate_arn
                ),
                security_policy=apigwv2.SecurityPolicy.TLS_1_2,
            )
        self.http_api = apigwv2.HttpApi(
            self,
            "Api",
            description="A2A agent (JSON-RPC 2.0 and agent card)",
            create_default_stage=False,
        )
        self.stage = self.http_api.add_stage(
            "DefaultStage",
            stage_name="$default",
            auto_deploy=True,
            throttle=apigwv2.ThrottleSettings(
                rate_limit=throttling_rate_limit, burst_limit=throttling_burst_limit
            ),
            access_log_settings=_AccessLogs(self.access_logs, access_logs.http_format(auth_mode.value)),
            domain_mapping=apigwv2.DomainMappingOptions(domain_name=self.domain) if self.domain else None,
        )
        authorizer = _authorizer(auth_mode, jwt)
        self.protected_routes = [
            route
            for path in ("/", "/{proxy+}")
            for route in self.http_api.add_routes(
                path=path, methods=[apigwv2.HttpMethod.ANY], integration=integration, authorizer=authorizer
            )
        ]
        self.public_routes = [
            route
            for path in PUBLIC_PATHS
            for route in self.http_api.add_routes(
                path=path,
                methods=[apigwv2.HttpMethod.GET],
                integration=integration,
                authorizer=apigwv2.HttpNoneAuthorizer(),
            )
        ]
        self.custom_domain = custom_domain
        self.web_acl_arn: str | None = None  # WAF cannot be associated with HTTP APIs

    @property
    def url(self) -> str:
        """The agent's public URL (JSON-RPC endpoint), ending in ``/`` (no stage path: $default)."""
        if self.custom_domain is not None:
            return f"https://{self.custom_domain.domain_name}/"
        stack = Stack.of(self)
        return f"https://{self.http_api.api_id}.execute-api.{stack.region}.{stack.url_suffix}/"

    @property
    def custom_domain_target(self) -> str | None:
        return self.domain.regional_domain_name if self.domain is not None else None

    def server_errors(self, period: Duration) -> cloudwatch.Metric:
        return self.http_api.metric_server_error(period=period, statistic="Sum")

    def invoke_arn(self) -> str:
        """``execute-api:Invoke`` on every route of the stage."""
        return self.http_api.arn_for_execute_api("*", "/*", "$default")


def _authorizer(mode: AuthMode, jwt: JwtIssuer | None) -> apigwv2.IHttpRouteAuthorizer:
    if mode is AuthMode.JWT:
        assert jwt is not None
        return authorizers.HttpJwtAuthorizer("JwtAuthorizer", jwt.issuer, jwt_audience=[jwt.audience])
    if mode is AuthMode.IAM:
        return authorizers.HttpIamAuthorizer()
    return apigwv2.HttpNoneAuthorizer()


@jsii.implements(apigwv2.IAccessLogSettings)
class _AccessLogs:
    """HTTP API access logs to a log group, one JSON object per request (`a2a_core.aws.access_logs`)."""

    def __init__(self, group: logs.ILogGroup, fields: dict[str, str]) -> None:
        self._destination = apigwv2.LogGroupLogDestination(group)
        self._fields = fields

    @property
    def destination(self) -> apigwv2.IAccessLogDestination:
        return self._destination

    @property
    def format(self) -> apigw.AccessLogFormat | None:
        return apigw.AccessLogFormat.custom(access_logs.compact(self._fields))
