"""The HTTP API front door: routes, API Gateway's JWT or IAM authorization, stage, logs, domain,
and the props it cannot honour refused. ``http`` (conftest) is JWT with a custom domain and push.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from aws_cdk import App, Stack
from aws_cdk import aws_iam as iam
from aws_cdk.assertions import Match, Template

from a2a_core.auth import build_authenticator
from a2a_core.auth.bearer import BearerAuthenticator
from a2a_core.auth.iam import IamAuthenticator
from a2a_core.cdk import A2AService, A2AServiceProps
from a2a_core.cdk.assets import SKIP_BUNDLING_CONTEXT
from a2a_core.cdk.auth import PUBLIC_PATHS
from a2a_core.cdk.options import AuthMode, ConfigurationError, FrontDoor, JwtIssuer, StreamingMode
from a2a_core.cdk.testing import logical_id, properties
from a2a_core.settings import Settings
from infra import app as infra_app

ISSUER = JwtIssuer("https://issuer.example.com/", "agent", "https://issuer.example.com/keys")


def _service(**props: Any) -> A2AService:
    context = {SKIP_BUNDLING_CONTEXT: True, "aws:cdk:enable-path-metadata": True}
    stack = Stack(App(context=context), "Stack")
    return A2AService(stack, "Service", A2AServiceProps(**{"front_door": FrontDoor.HTTP_API, **props}))


def _routes(template: Template) -> dict[str, dict[str, Any]]:
    return {
        body["Properties"]["RouteKey"]: body["Properties"]
        for body in template.find_resources("AWS::ApiGatewayV2::Route").values()
    }


def _api_environment(template: Template) -> dict[str, Any]:
    function = properties(template, "AWS::Lambda::Function", "/Functions/Api/Resource")
    return dict(function["Environment"]["Variables"])


def test_every_route_proxies_payload_2_to_the_api_function(http: Template) -> None:
    function = logical_id(http, "AWS::Lambda::Function", "/Functions/Api/Resource")
    http.resource_count_is("AWS::ApiGateway::RestApi", 0)
    http.has_resource_properties("AWS::ApiGatewayV2::Api", {"ProtocolType": "HTTP"})
    (integration,) = http.find_resources("AWS::ApiGatewayV2::Integration")
    http.has_resource_properties(
        "AWS::ApiGatewayV2::Integration",
        {
            "IntegrationType": "AWS_PROXY",
            "IntegrationUri": {"Fn::GetAtt": [function, "Arn"]},
            "PayloadFormatVersion": "2.0",
            "TimeoutInMillis": 29_000,
        },
    )
    routes = _routes(http)
    assert set(routes) == {"ANY /", "ANY /{proxy+}", *(f"GET {path}" for path in PUBLIC_PATHS)}
    for route in routes.values():
        assert route["Target"] == {"Fn::Join": ["", ["integrations/", {"Ref": integration}]]}
    (permission,) = http.find_resources(
        "AWS::Lambda::Permission", {"Properties": {"FunctionName": {"Fn::GetAtt": [function, "Arn"]}}}
    ).values()
    api = logical_id(http, "AWS::ApiGatewayV2::Api", "/HttpApi/Api/Resource")
    assert {"Ref": api} in permission["Properties"]["SourceArn"]["Fn::Join"][1]


def test_jwt_routes_are_checked_by_api_gateways_jwt_authorizer(http: Template) -> None:
    authorizer = logical_id(http, "AWS::ApiGatewayV2::Authorizer", "/HttpApi/Api/JwtAuthorizer/Resource")
    http.has_resource_properties(
        "AWS::ApiGatewayV2::Authorizer",
        {
            "AuthorizerType": "JWT",
            "IdentitySource": ["$request.header.Authorization"],
            "JwtConfiguration": {
                "Issuer": "https://login.example.com/tenant/",
                "Audience": ["api://research-agent"],
            },
        },
    )
    routes = _routes(http)
    for key in ("ANY /", "ANY /{proxy+}"):
        assert routes[key]["AuthorizationType"] == "JWT"
        assert routes[key]["AuthorizerId"] == {"Ref": authorizer}
    for path in PUBLIC_PATHS:
        assert routes[f"GET {path}"]["AuthorizationType"] == "NONE"
    # No Lambda authorizer, usage plan or gateway responses: HTTP APIs have none of them.
    assert not [name for name in http.find_resources("AWS::Lambda::Function") if "Authorizer" in name]
    for resource_type in ("AWS::ApiGateway::UsagePlan", "AWS::ApiGateway::GatewayResponse"):
        http.resource_count_is(resource_type, 0)


def test_the_default_stage_throttles_and_writes_json_access_logs(http: Template) -> None:
    logs = logical_id(http, "AWS::Logs::LogGroup", "/HttpApi/AccessLogs/Resource")
    log_format = properties(http, "AWS::ApiGatewayV2::Stage", "/HttpApi/Api/DefaultStage/Resource")
    assert log_format["StageName"] == "$default"
    assert log_format["AutoDeploy"] is True
    assert log_format["DefaultRouteSettings"] == {"ThrottlingRateLimit": 50, "ThrottlingBurstLimit": 100}
    assert log_format["AccessLogSettings"]["DestinationArn"] == {"Fn::GetAtt": [logs, "Arn"]}
    fields = json.loads(log_format["AccessLogSettings"]["Format"])
    assert fields["requestId"] == "$context.requestId"
    assert fields["status"] == "$context.status"
    assert fields["caller"] == "$context.authorizer.claims.sub"  # the JWT's subject
    assert fields["error"] == "$context.integrationErrorMessage"


def test_custom_domain_is_mapped_and_its_target_is_an_output(http: Template) -> None:
    domain = logical_id(http, "AWS::ApiGatewayV2::DomainName", "/HttpApi/Domain/Resource")
    http.has_resource_properties(
        "AWS::ApiGatewayV2::DomainName",
        {
            "DomainName": "agent.example.com",
            "DomainNameConfigurations": [
                Match.object_like({"EndpointType": "REGIONAL", "SecurityPolicy": "TLS_1_2"})
            ],
        },
    )
    http.has_resource_properties(
        "AWS::ApiGatewayV2::ApiMapping", {"DomainName": {"Ref": domain}, "Stage": "$default"}
    )
    http.has_output("CustomDomainTarget", {"Value": {"Fn::GetAtt": [domain, "RegionalDomainName"]}})
    assert _api_environment(http)["A2A_PUBLIC_URL"] == "https://agent.example.com/"


def test_the_agent_url_has_no_stage_path() -> None:
    template = Template.from_stack(Stack.of(_service(auth=AuthMode.IAM)))
    api = logical_id(template, "AWS::ApiGatewayV2::Api", "/HttpApi/Api/Resource")
    assert _api_environment(template)["A2A_PUBLIC_URL"] == {
        "Fn::Join": [
            "",
            [
                "https://",
                {"Ref": api},
                ".execute-api.",
                {"Ref": "AWS::Region"},
                ".",
                {"Ref": "AWS::URLSuffix"},
                "/",
            ],
        ]
    }


def test_5xx_from_the_http_api_raise_an_alarm(http: Template) -> None:
    api = logical_id(http, "AWS::ApiGatewayV2::Api", "/HttpApi/Api/Resource")
    http.has_resource_properties(
        "AWS::CloudWatch::Alarm",
        {
            "Namespace": "AWS/ApiGateway",
            "MetricName": "5xx",
            "Dimensions": [{"Name": "ApiId", "Value": {"Ref": api}}],
            "Threshold": 0,
        },
    )


def test_iam_routes_and_grant_invoke() -> None:
    service = _service(auth=AuthMode.IAM)
    caller = iam.Role(Stack.of(service), "Caller", assumed_by=iam.AccountRootPrincipal())
    service.grant_invoke(caller)
    template = Template.from_stack(Stack.of(service))
    routes = _routes(template)
    assert routes["ANY /"]["AuthorizationType"] == "AWS_IAM"
    assert routes["ANY /{proxy+}"]["AuthorizationType"] == "AWS_IAM"
    api = logical_id(template, "AWS::ApiGatewayV2::Api", "/HttpApi/Api/Resource")
    template.has_resource_properties(
        "AWS::IAM::Policy",
        {
            "PolicyDocument": {
                "Statement": [
                    Match.object_like(
                        {
                            "Action": "execute-api:Invoke",
                            "Resource": {"Fn::Join": ["", Match.array_with([{"Ref": api}, "/$default/*/*"])]},
                        }
                    )
                ]
            }
        },
    )


@pytest.mark.parametrize(
    ("props", "authenticator"),
    [
        ({"auth": AuthMode.JWT, "jwt": ISSUER}, BearerAuthenticator),
        ({"auth": AuthMode.IAM}, IamAuthenticator),
    ],
)
def test_the_app_accepts_the_environment(props: dict[str, Any], authenticator: type) -> None:
    variables = {
        key: value
        for key, value in _api_environment(Template.from_stack(Stack.of(_service(**props)))).items()
        if isinstance(value, str)
    }
    assert "A2A_TRUST_REQUEST_CONTEXT_HEADER" not in variables
    assert isinstance(build_authenticator(Settings.from_env(variables, backend="memory")), authenticator)


@pytest.mark.parametrize(
    ("props", "named"),
    [
        ({"auth": AuthMode.API_KEY}, "has no API keys"),
        ({"auth": AuthMode.IAM, "streaming": StreamingMode.RESPONSE_STREAM}, "cannot stream"),
        ({"auth": AuthMode.IAM, "web_acl_arn": "arn:aws:wafv2:eu-west-1:1:regional/webacl/a/1"}, "WAF"),
    ],
)
def test_what_an_http_api_cannot_do_is_refused(props: dict[str, Any], named: str) -> None:
    with pytest.raises(ConfigurationError, match=named):
        _service(**props)


def test_the_app_reads_the_front_door_from_context(tmp_path: Path) -> None:
    app = App(
        outdir=str(tmp_path),
        context={SKIP_BUNDLING_CONTEXT: "true", "a2a:front_door": "http_api", "a2a:auth": "iam"},
    )
    service = infra_app.build(app).service
    assert service.front_door is FrontDoor.HTTP_API
    assert service.api_keys is None
