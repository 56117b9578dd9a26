"""The REST API: regional proxy, throttling, access logs, custom domain, WAF and streaming."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest
from aws_cdk.assertions import Capture, Match, Template

from a2a_core.cdk.auth import PUBLIC_PATHS
from a2a_core.cdk.service import A2AService
from a2a_core.cdk.testing import logical_id, properties, routes
from a2a_core.cdk.web_adapter import WEB_ADAPTER_ACCOUNT, WEB_ADAPTER_VERSION


def _api_function(template: Template) -> str:
    return logical_id(template, "AWS::Lambda::Function", "/Functions/Api/Resource")


def _methods(template: Template) -> Mapping[str, Any]:
    return template.find_resources("AWS::ApiGateway::Method")


def test_api_is_a_regional_rest_api(default: Template) -> None:
    default.has_resource_properties(
        "AWS::ApiGateway::RestApi", {"EndpointConfiguration": {"Types": ["REGIONAL"]}}
    )
    default.resource_count_is("AWS::ApiGateway::Account", 0)  # no account-wide CloudWatch role


def test_every_path_and_method_proxies_to_the_api_function_buffered(default: Template) -> None:
    api, function = (
        logical_id(default, "AWS::ApiGateway::RestApi", "/Api/Api/Resource"),
        _api_function(default),
    )
    paths = Capture()
    assert set(routes(default)) == {
        ("/", "ANY"),
        ("/{proxy+}", "ANY"),
        *(("/" + path.lstrip("/"), "GET") for path in PUBLIC_PATHS),
    }
    for method in _methods(default).values():
        assert method["Properties"]["Integration"] == {
            "Type": "AWS_PROXY",
            "IntegrationHttpMethod": "POST",
            "ResponseTransferMode": "BUFFERED",
            "TimeoutInMillis": 29_000,
            "Uri": {
                "Fn::Join": [
                    "",
                    [
                        "arn:",
                        {"Ref": "AWS::Partition"},
                        ":apigateway:",
                        {"Ref": "AWS::Region"},
                        ":lambda:path/2015-03-31/functions/",
                        {"Fn::GetAtt": [function, "Arn"]},
                        "/invocations",
                    ],
                ]
            },
        }
    default.has_resource_properties(
        "AWS::ApiGateway::Resource", {"PathPart": paths, "RestApiId": {"Ref": api}}
    )
    assert paths.as_string() == "{proxy+}"


def test_api_gateway_may_invoke_the_api_function_from_this_api_only(default: Template) -> None:
    api, function = (
        logical_id(default, "AWS::ApiGateway::RestApi", "/Api/Api/Resource"),
        _api_function(default),
    )
    permissions = default.find_resources("AWS::Lambda::Permission")
    assert permissions
    for permission in permissions.values():
        props = permission["Properties"]
        assert props["FunctionName"] == {"Fn::GetAtt": [function, "Arn"]}
        assert props["Principal"] == "apigateway.amazonaws.com"
        assert {"Ref": api} in props["SourceArn"]["Fn::Join"][1]


def test_stage_throttles_traces_and_writes_access_logs(default: Template, full: Template) -> None:
    for template, rate, burst in ((default, 50, 100), (full, 5, 10)):
        logs = logical_id(template, "AWS::Logs::LogGroup", "/Api/AccessLogs/Resource")
        log_format = Capture()
        template.has_resource_properties(
            "AWS::ApiGateway::Stage",
            {
                "StageName": "prod",
                "TracingEnabled": True,
                "MethodSettings": [
                    Match.object_like(
                        {
                            "HttpMethod": "*",
                            "ResourcePath": "/*",
                            "ThrottlingRateLimit": rate,
                            "ThrottlingBurstLimit": burst,
                        }
                    )
                ],
                "AccessLogSetting": {
                    "DestinationArn": {"Fn::Join": ["", Match.array_with([{"Ref": logs}])]},
                    "Format": log_format,
                },
            },
        )
        # One compact JSON object per request, naming the caller as the auth mode knows it.
        fields = json.loads(log_format.as_string())
        assert fields["requestId"] == "$context.requestId"
        assert fields["status"] == "$context.status"
        assert fields["path"] == "$context.path"
        assert fields["error"] == "$context.error.responseType"
        assert " " not in log_format.as_string()
        assert (
            properties(template, "AWS::Logs::LogGroup", "/Api/AccessLogs/Resource")["RetentionInDays"] == 30
        )


def test_response_stream_mode_streams_to_the_web_adapter_for_up_to_15_minutes(full: Template) -> None:
    function = _api_function(full)
    for method in _methods(full).values():
        integration = method["Properties"]["Integration"]
        assert integration["Type"] == "AWS_PROXY"
        assert integration["ResponseTransferMode"] == "STREAM"
        assert integration["TimeoutInMillis"] == 15 * 60 * 1000
        uri = integration["Uri"]["Fn::Join"][1]
        assert uri[-3:] == [
            ":lambda:path/2021-11-15/functions/",
            {"Fn::GetAtt": [function, "Arn"]},
            "/response-streaming-invocations",
        ]
    api = properties(full, "AWS::Lambda::Function", "/Functions/Api/Resource")
    assert api["Handler"] == "run.sh"
    assert api["Timeout"] == 900
    assert api["Layers"] == [
        {
            "Fn::Join": [
                "",
                [
                    "arn:",
                    {"Ref": "AWS::Partition"},
                    ":lambda:",
                    {"Ref": "AWS::Region"},
                    f":{WEB_ADAPTER_ACCOUNT}:layer:LambdaAdapterLayerX86:{WEB_ADAPTER_VERSION}",
                ],
            ]
        }
    ]
    variables = api["Environment"]["Variables"]
    assert {key: variables[key] for key in variables if key.startswith("AWS_")} == {
        "AWS_LAMBDA_EXEC_WRAPPER": "/opt/bootstrap",
        "AWS_LWA_INVOKE_MODE": "response_stream",
        "AWS_LWA_PORT": "8080",
        "AWS_LWA_READINESS_CHECK_PATH": "/healthz",
    }


def test_buffered_mode_has_no_web_adapter(default: Template) -> None:
    api = properties(default, "AWS::Lambda::Function", "/Functions/Api/Resource")
    assert "Layers" not in api
    assert not [key for key in api["Environment"]["Variables"] if key.startswith("AWS_")]


def test_custom_domain_is_regional_tls12_and_mapped_to_the_stage(
    full: Template, full_service: A2AService
) -> None:
    domain_name = full_service.api.custom_domain
    assert domain_name is not None
    full.has_resource_properties(
        "AWS::ApiGateway::DomainName",
        {
            "DomainName": domain_name.domain_name,
            "RegionalCertificateArn": domain_name.certificate_arn,
            "EndpointConfiguration": {"Types": ["REGIONAL"]},
            "SecurityPolicy": "TLS_1_2",
        },
    )
    domain = logical_id(full, "AWS::ApiGateway::DomainName", "/Api/Api/Domain/Resource")
    full.has_resource_properties(
        "AWS::ApiGateway::BasePathMapping",
        {
            "DomainName": {"Ref": domain},
            "RestApiId": {"Ref": logical_id(full, "AWS::ApiGateway::RestApi", "/Api/Api/Resource")},
            "Stage": {
                "Ref": logical_id(full, "AWS::ApiGateway::Stage", "/Api/Api/DeploymentStage.prod/Resource")
            },
        },
    )


def test_web_acl_is_associated_with_the_stage_when_given(
    default: Template, full: Template, full_service: A2AService
) -> None:
    default.resource_count_is("AWS::WAFv2::WebACLAssociation", 0)
    stage = logical_id(full, "AWS::ApiGateway::Stage", "/Api/Api/DeploymentStage.prod/Resource")
    association = properties(full, "AWS::WAFv2::WebACLAssociation", "/Api/WebAcl")
    assert association["WebACLArn"] == full_service.api.web_acl_arn
    assert {"Ref": stage} in association["ResourceArn"]["Fn::Join"][1]


@pytest.mark.parametrize(
    ("output", "suffix"),
    [("AgentUrl", "/prod/"), ("AgentCardUrl", "/prod/.well-known/agent.json")],
)
def test_stack_outputs_the_agent_and_card_urls(default: Template, output: str, suffix: str) -> None:
    api = logical_id(default, "AWS::ApiGateway::RestApi", "/Api/Api/Resource")
    default.has_output(
        output,
        {
            "Value": {
                "Fn::Join": [
                    "",
                    [
                        "https://",
                        {"Ref": api},
                        ".execute-api.",
                        {"Ref": "AWS::Region"},
                        ".",
                        {"Ref": "AWS::URLSuffix"},
                        suffix,
                    ],
                ]
            }
        },
    )


def test_stack_outputs_what_the_aws_backend_needs(default: Template) -> None:
    default.has_output(
        "TableName", {"Value": {"Ref": logical_id(default, "AWS::DynamoDB::Table", "/Table/Resource")}}
    )
    default.has_output(
        "QueueUrl", {"Value": {"Ref": logical_id(default, "AWS::SQS::Queue", "/Runs/Resource")}}
    )
    default.has_output(
        "BucketName", {"Value": {"Ref": logical_id(default, "AWS::S3::Bucket", "/Parts/Resource")}}
    )
    assert set(default.find_outputs("*")) == {
        "AgentUrl",
        "AgentCardUrl",
        "TableName",
        "QueueUrl",
        "BucketName",
        "ApiKeyIdDefault",  # the default auth mode's one key (test_auth.py)
    }
