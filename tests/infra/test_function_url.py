"""The function URL front door: invoke mode, who may call it per auth mode, the app's own auth
settings, and what it cannot do refused at synth. Stacks from conftest: ``url`` (API keys,
streaming, push), ``url_iam`` (SigV4, buffered, one granted role)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from aws_cdk import App, Environment, Stack
from aws_cdk.assertions import Capture, Match, Template

from a2a_core.auth import build_authenticator
from a2a_core.auth.bearer import BearerAuthenticator
from a2a_core.auth.iam import IamAuthenticator
from a2a_core.auth.key_store import InMemoryApiKeyStore
from a2a_core.auth.rate_limit import InMemoryRateBuckets
from a2a_core.auth.stored_keys import StoredKeyAuthenticator
from a2a_core.cdk import A2AService, A2AServiceProps
from a2a_core.cdk.assets import SKIP_BUNDLING_CONTEXT
from a2a_core.cdk.function_url import AgentFunctionUrl
from a2a_core.cdk.options import (
    AuthMode,
    ConfigurationError,
    CustomDomain,
    EdgeOptions,
    FrontDoor,
    JwtIssuer,
    StreamingMode,
)
from a2a_core.cdk.testing import logical_id, properties
from a2a_core.settings import Settings
from infra import app as infra_app

ISSUER = JwtIssuer("https://issuer.example.com/", "agent", "https://issuer.example.com/keys")
CALLER_ROLE = "arn:aws:iam::123456789012:role/agent-callers"


def _service(**props: Any) -> A2AService:
    context = {SKIP_BUNDLING_CONTEXT: True, "aws:cdk:enable-path-metadata": True}
    stack = Stack(App(context=context), "Stack", env=props.pop("env", None))
    return A2AService(stack, "Service", A2AServiceProps(**{"front_door": FrontDoor.FUNCTION_URL, **props}))


def _function(template: Template, name: str = "Api") -> dict[str, Any]:
    return properties(template, "AWS::Lambda::Function", f"/Functions/{name}/Resource")


def _environment(template: Template, name: str = "Api") -> dict[str, Any]:
    return dict(_function(template, name)["Environment"]["Variables"])


def _url(template: Template) -> dict[str, Any]:
    (url,) = template.find_resources("AWS::Lambda::Url").values()
    return dict(url["Properties"])


def _settings(environment: dict[str, Any]) -> Settings:
    """What the deployed function's settings would be (tokens stand in for resource names, a GUID
    for the stack id's)."""
    resolved = {"A2A_PAGE_TOKEN_SECRET": "5b2f3e60-8a3b-11ef-9c1d-0a1b2c3d4e5f"}
    return Settings.from_env(
        {k: v if isinstance(v, str) else resolved.get(k, "token") for k, v in environment.items()}
    )


def test_the_url_streams_from_the_app_behind_the_web_adapter(url: Template) -> None:
    api = logical_id(url, "AWS::Lambda::Function", "/Functions/Api/Resource")
    assert _url(url) == {
        "AuthType": "NONE",  # the app checks every API key itself
        "InvokeMode": "RESPONSE_STREAM",
        "TargetFunctionArn": {"Fn::GetAtt": [api, "Arn"]},
    }
    function = _function(url)
    assert function["Handler"] == "run.sh"
    assert function["Timeout"] == 900  # a stream may last the full 15 minutes
    layer = Capture()
    url.has_resource_properties("AWS::Lambda::Function", {"Handler": "run.sh", "Layers": [layer]})
    assert "LambdaAdapterLayerArm64" in str(layer.as_object())
    environment = _environment(url)
    assert environment["AWS_LWA_INVOKE_MODE"] == "response_stream"
    assert environment["A2A_FRONT_DOOR"] == "function_url"
    for resource_type in ("AWS::ApiGateway::RestApi", "AWS::ApiGatewayV2::Api", "AWS::ApiGateway::ApiKey"):
        url.resource_count_is(resource_type, 0)


def test_a_public_url_is_invocable_by_anyone_only_through_the_url(url: Template) -> None:
    api = logical_id(url, "AWS::Lambda::Function", "/Functions/Api/Resource")
    public = url.find_resources("AWS::Lambda::Permission", {"Properties": {"Principal": "*"}})
    assert sorted(
        (
            body["Properties"]["Action"],
            body["Properties"].get("FunctionUrlAuthType"),
            body["Properties"].get("InvokedViaFunctionUrl"),
        )
        for body in public.values()
    ) == [("lambda:InvokeFunction", None, True), ("lambda:InvokeFunctionUrl", "NONE", None)]
    for body in public.values():
        assert body["Properties"]["FunctionName"] == {"Fn::GetAtt": [api, "Arn"]}


def test_api_keys_are_the_apps_own_with_the_stacks_rate_limit(url: Template) -> None:
    environment = _environment(url)
    assert environment["A2A_AUTH_MODE"] == "api_key"
    assert (environment["A2A_API_KEY_RATE_LIMIT"], environment["A2A_API_KEY_BURST_LIMIT"]) == ("10", "20")
    settings = _settings(environment)
    assert settings.api_key_rate_limit == 10
    built = build_authenticator(settings, api_keys=InMemoryApiKeyStore(), rate_buckets=InMemoryRateBuckets())
    assert isinstance(built, StoredKeyAuthenticator)
    assert not [name for name in url.to_json()["Outputs"] if name.startswith("ApiKeyId")]


def test_the_api_function_reads_keys_and_writes_rate_buckets_in_its_table(url: Template) -> None:
    table = logical_id(url, "AWS::DynamoDB::Table", "/Storage/Table/Resource")
    statements = Capture()
    url.has_resource_properties(
        "AWS::IAM::Policy",
        {
            "PolicyName": Match.string_like_regexp("ApiRoleDefaultPolicy"),
            "PolicyDocument": {"Statement": statements},
        },
    )
    granted = [s for s in statements.as_array() if s.get("Resource") == {"Fn::GetAtt": [table, "Arn"]}]
    (actions,) = [set(s["Action"]) for s in granted]
    assert {"dynamodb:GetItem", "dynamodb:UpdateItem"} <= actions


def test_the_url_names_the_agent_but_only_other_functions_carry_it(url: Template) -> None:
    address = logical_id(url, "AWS::Lambda::Url", "/Functions/Api/FunctionUrl/Resource")
    url.has_output("AgentUrl", {"Value": {"Fn::GetAtt": [address, "FunctionUrl"]}})
    # The API function derives it per request: carrying it would make the function depend on itself.
    assert "A2A_PUBLIC_URL" not in _environment(url)
    for name in ("Worker", "DeadLetter", "Push"):
        assert _environment(url, name)["A2A_PUBLIC_URL"] == {"Fn::GetAtt": [address, "FunctionUrl"]}


def test_5xx_from_the_url_raise_an_alarm(url: Template) -> None:
    api = logical_id(url, "AWS::Lambda::Function", "/Functions/Api/Resource")
    url.has_resource_properties(
        "AWS::CloudWatch::Alarm",
        {
            "Namespace": "AWS/Lambda",
            "MetricName": "Url5xxCount",
            "Dimensions": [{"Name": "FunctionName", "Value": {"Ref": api}}],
            "Statistic": "Sum",
            "Threshold": 0,
        },
    )


def test_iam_callers_sign_and_only_granted_principals_may_call(url_iam: Template) -> None:
    api = logical_id(url_iam, "AWS::Lambda::Function", "/Functions/Api/Resource")
    assert _url(url_iam) == {
        "AuthType": "AWS_IAM",
        "InvokeMode": "BUFFERED",
        "TargetFunctionArn": {"Fn::GetAtt": [api, "Arn"]},
    }
    assert _function(url_iam)["Handler"] == "a2a_core.functions.api.handler.handler"  # Mangum
    assert url_iam.find_resources("AWS::Lambda::Permission", {"Properties": {"Principal": "*"}}) == {}
    url_iam.has_resource_properties(
        "AWS::IAM::Policy",
        {
            "Roles": ["agent-callers"],
            "PolicyDocument": {
                "Statement": Match.array_with(
                    [
                        {
                            "Action": "lambda:InvokeFunctionUrl",
                            "Condition": {"StringEquals": {"lambda:FunctionUrlAuthType": "AWS_IAM"}},
                            "Effect": "Allow",
                            "Resource": {"Fn::GetAtt": [api, "Arn"]},
                        },
                        {
                            "Action": "lambda:InvokeFunction",
                            "Condition": {"Bool": {"lambda:InvokedViaFunctionUrl": True}},
                            "Effect": "Allow",
                            "Resource": {"Fn::GetAtt": [api, "Arn"]},
                        },
                    ]
                )
            },
        },
    )
    environment = _environment(url_iam)
    assert environment["A2A_AUTH_MODE"] == "iam"
    assert isinstance(build_authenticator(_settings(environment)), IamAuthenticator)


def test_jwt_is_checked_by_the_app_against_the_issuers_keys() -> None:
    template = Template.from_stack(Stack.of(_service(auth=AuthMode.JWT, jwt=ISSUER)))
    assert _url(template)["AuthType"] == "NONE"
    environment = _environment(template)
    assert environment["A2A_JWT_JWKS_URL"] == "https://issuer.example.com/keys"
    authenticator = build_authenticator(_settings(environment))
    assert isinstance(authenticator, BearerAuthenticator)
    assert authenticator.validator is not None
    assert not [name for name in template.find_resources("AWS::Lambda::Function") if "Authorizer" in name]


def test_no_unauthenticated_url_without_the_opt_out() -> None:
    with pytest.raises(ConfigurationError, match="allow_unauthenticated=True"):
        _service(auth=AuthMode.NONE)
    template = Template.from_stack(Stack.of(_service(auth=AuthMode.NONE, allow_unauthenticated=True)))
    assert _url(template)["AuthType"] == "NONE"
    assert _environment(template)["A2A_ALLOW_UNAUTHENTICATED"] == "true"


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"web_acl_arn": "arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/a/1"}, "CloudFront in front"),
        (
            {"custom_domain": CustomDomain("a.example.com", "arn:aws:acm:us-east-1:1:certificate/1")},
            "no custom domain",
        ),
        ({"api_keys": ["partner"]}, "a2a-serverless keys create"),
        ({"edge": EdgeOptions(), "auth": AuthMode.IAM}, "caller's SigV4 identity never reaches"),
        ({"edge": EdgeOptions(), "streaming": StreamingMode.BUFFERED}, "RESPONSE_STREAM"),
        (
            {"edge": EdgeOptions(web_acl_arn="arn:aws:wafv2:eu-west-1:1:regional/webacl/a/1")},
            "scope CLOUDFRONT",
        ),
        (
            {
                "edge": EdgeOptions(
                    web_acl_arn="arn:aws:wafv2:us-east-1:123456789012:global/webacl/a/1", waf=False
                )
            },
            "contradicts",
        ),
        (
            {
                "edge": EdgeOptions(),
                "custom_domain": CustomDomain("a.example.com", "arn:aws:acm:eu-west-1:1:certificate/1"),
            },
            "us-east-1 only",
        ),
        ({"edge": EdgeOptions()}, "explicit region"),
        (
            {"edge": EdgeOptions(), "env": Environment(account="123456789012", region="eu-west-1")},
            "only be created in us-east-1",
        ),
    ],
)
def test_what_cannot_work_is_refused_at_synth(props: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        _service(**props)


def test_edge_is_for_the_function_url_only() -> None:
    with pytest.raises(ConfigurationError, match="front of a function URL"):
        _service(front_door=FrontDoor.REST_API, edge=EdgeOptions())


def test_keys_and_grants_follow_the_front_door() -> None:
    service = _service()
    with pytest.raises(ConfigurationError, match="keys create"):
        service.add_api_key("partner")


def test_the_default_app_serves_a_function_url_with_context(tmp_path: Path) -> None:
    app = App(outdir=str(tmp_path), context={SKIP_BUNDLING_CONTEXT: "true", "a2a:front_door": "function_url"})
    stack = infra_app.build(app)
    assert stack.service.front_door is FrontDoor.FUNCTION_URL
    assert stack.service.streaming is StreamingMode.RESPONSE_STREAM  # the function URL default
    assert stack.service.api_keys is None


def test_the_default_app_puts_cloudfront_in_front_with_a_region(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    context = {
        SKIP_BUNDLING_CONTEXT: "true",
        "a2a:front_door": "function_url",
        "a2a:edge": "true",
        "a2a:edge_waf": "false",
    }
    monkeypatch.delenv("CDK_DEFAULT_REGION", raising=False)
    with pytest.raises(ConfigurationError, match="AWS_REGION"):
        infra_app.build(App(outdir=str(tmp_path), context=context))
    monkeypatch.setenv("CDK_DEFAULT_REGION", "eu-central-1")
    monkeypatch.setenv("CDK_DEFAULT_ACCOUNT", "123456789012")
    stack = infra_app.build(App(outdir=str(tmp_path / "again"), context=context))
    assert stack.region == "eu-central-1"
    api = stack.service.api
    assert isinstance(api, AgentFunctionUrl)
    assert api.edge is not None
    assert api.web_acl_arn is None  # a2a:edge_waf=false
