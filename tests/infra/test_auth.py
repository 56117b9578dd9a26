"""Caller authentication in the templates: each mode's methods, authorizer, usage plan, keys,
gateway responses and the environment the app reads it from.

Stacks (conftest): ``Default`` API keys, ``Full`` JWT (and response streaming), ``Iam`` SigV4,
``Open`` none with the opt-out.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from aws_cdk import App, Duration, Stack
from aws_cdk import aws_iam as iam
from aws_cdk.assertions import Match, Template

from a2a_core.auth import api_key, bearer, build_authenticator
from a2a_core.auth import iam as iam_auth
from a2a_core.auth.api_key import ApiKeyAuthenticator
from a2a_core.auth.base import NoAuthenticator
from a2a_core.auth.bearer import BearerAuthenticator
from a2a_core.auth.iam import IamAuthenticator
from a2a_core.cdk import A2AService, A2AServiceProps
from a2a_core.cdk.assets import SKIP_BUNDLING_CONTEXT
from a2a_core.cdk.auth import BEARER_PATTERN, PUBLIC_PATHS, error_template
from a2a_core.cdk.options import ApiKeyLimits, AuthMode, ConfigurationError, JwtIssuer
from a2a_core.cdk.testing import logical_id, properties, routes
from a2a_core.protocol.card import security_scheme
from a2a_core.settings import Settings
from a2a_core.web.edge import GRPC_STATUS
from infra import app as infra_app

PROTECTED = {("/", "ANY"), ("/{proxy+}", "ANY")}
PUBLIC = {(path, "GET") for path in PUBLIC_PATHS}
# What each stack's protected methods carry.
PROTECTED_BY: dict[str, dict[str, object]] = {
    "default": {"AuthorizationType": "NONE", "ApiKeyRequired": True},
    "full": {"AuthorizationType": "CUSTOM"},
    "iam": {"AuthorizationType": "AWS_IAM"},
    "open_": {"AuthorizationType": "NONE"},
}
ISSUER = JwtIssuer("https://issuer.example.com/", "agent", "https://issuer.example.com/.well-known/jwks.json")


def _service(**props: Any) -> A2AService:
    context = {SKIP_BUNDLING_CONTEXT: True, "aws:cdk:enable-path-metadata": True}
    return A2AService(Stack(App(context=context), "Stack"), "Service", A2AServiceProps(**props))


def _template(service: A2AService) -> Template:
    return Template.from_stack(Stack.of(service))


def _gateway_responses(template: Template) -> dict[str, dict[str, Any]]:
    return {
        body["Properties"]["ResponseType"]: body["Properties"]
        for body in template.find_resources("AWS::ApiGateway::GatewayResponse").values()
    }


def _api_environment(template: Template) -> dict[str, Any]:
    variables = properties(template, "AWS::Lambda::Function", "/Functions/Api/Resource")["Environment"]
    return dict(variables["Variables"])


def _render(template: str) -> Any:
    """A gateway response body as API Gateway fills it in."""
    filled = template.replace("$context.error.messageString", json.dumps('Forbidden "quoted"'))
    return json.loads(filled.replace("$context.requestId", "6f1b2c3d"))


# --- every mode -------------------------------------------------------------------------------


@pytest.mark.parametrize("stack", ["default", "full", "iam", "open_"])
def test_public_documents_are_open_and_everything_else_is_protected(
    stack: str, request: pytest.FixtureRequest
) -> None:
    template: Template = request.getfixturevalue(stack)
    found = routes(template)
    assert set(found) == PROTECTED | PUBLIC
    for route in PUBLIC:
        assert found[route]["AuthorizationType"] == "NONE"
        assert not found[route].get("ApiKeyRequired")
        assert "AuthorizerId" not in found[route]
    expected = PROTECTED_BY[stack]
    for route in PROTECTED:
        assert {key: found[route].get(key) for key in expected} == expected
        if stack != "default":
            assert not found[route].get("ApiKeyRequired")


ERROR_INFO = {
    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
    "domain": "a2a-protocol.org",
    "metadata": {"requestId": "6f1b2c3d"},
}
# What a refusal's body must read as, per response: its JSON-RPC code, or, where the status is
# fixed, the google.rpc.Status its error also is.
DEFAULTS = {"DEFAULT_4XX": -32600, "DEFAULT_5XX": -32603}


def _reads_in_both_bindings(response_type: str, props: dict[str, Any]) -> dict[str, Any]:
    """The body, checked to be a JSON-RPC error (0.x: code and message; 1.0: an ErrorInfo in
    ``data``) and, where API Gateway's status is fixed, a google.rpc.Status of that status."""
    body: dict[str, Any] = _render(props["ResponseTemplates"]["application/json"])
    assert (body["jsonrpc"], body["id"]) == ("2.0", None)
    error = body["error"]
    assert isinstance(error["code"], int)
    assert error["message"]
    internal = response_type in {"DEFAULT_5XX", "AUTHORIZER_FAILURE"}
    assert error["data"] == [{**ERROR_INFO, "reason": "INTERNAL_ERROR" if internal else "INVALID_REQUEST"}]
    if response_type in DEFAULTS:
        assert "StatusCode" not in props  # API Gateway's own status
        assert error["code"] == DEFAULTS[response_type]
    else:
        status = int(props["StatusCode"])
        assert (error["code"], error["status"]) == (status, GRPC_STATUS[status])
    return body


@pytest.mark.parametrize("stack", ["default", "full", "iam", "open_"])
def test_gateway_refusals_read_as_each_bindings_error(stack: str, request: pytest.FixtureRequest) -> None:
    template: Template = request.getfixturevalue(stack)
    responses = _gateway_responses(template)
    assert {"DEFAULT_4XX", "DEFAULT_5XX", "ACCESS_DENIED"} <= set(responses)
    for response_type, props in responses.items():
        _reads_in_both_bindings(response_type, props)
    default_4xx = _reads_in_both_bindings("DEFAULT_4XX", responses["DEFAULT_4XX"])
    assert default_4xx["error"]["message"] == 'Forbidden "quoted"'  # API Gateway's own, JSON-escaped
    assert responses["ACCESS_DENIED"]["StatusCode"] == ("401" if stack == "full" else "403")


def test_error_template_escapes_its_message() -> None:
    body = _render(error_template(-32600, 'a "quoted"\nmessage'))
    assert body["error"]["message"] == 'a "quoted"\nmessage'


@pytest.mark.parametrize(
    ("stack", "mode", "authenticator"),
    [
        ("default", "api_key", ApiKeyAuthenticator),
        ("full", "jwt", BearerAuthenticator),
        ("iam", "iam", IamAuthenticator),
        ("open_", "none", NoAuthenticator),
    ],
)
def test_the_app_accepts_the_environment_and_its_card_declares_the_mode(
    stack: str, mode: str, authenticator: type, request: pytest.FixtureRequest
) -> None:
    template: Template = request.getfixturevalue(stack)
    variables = {k: v for k, v in _api_environment(template).items() if isinstance(v, str)}
    assert variables["A2A_AUTH_MODE"] == mode
    settings = Settings.from_env(variables, backend="memory")
    assert isinstance(build_authenticator(settings), authenticator)  # raises on an unsafe setup
    assert (security_scheme(mode) is None) == (mode == "none")
    # Only the web adapter (response streaming) passes the request context as a header.
    streaming = stack == "full"
    assert variables.get("A2A_TRUST_REQUEST_CONTEXT_HEADER") == ("true" if streaming else None)


# --- API keys ---------------------------------------------------------------------------------


def test_api_keys_have_a_usage_plan_that_throttles_and_meters_each_key(default: Template) -> None:
    api = logical_id(default, "AWS::ApiGateway::RestApi", "/Api/Api/Resource")
    stage = logical_id(default, "AWS::ApiGateway::Stage", "/Api/Api/DeploymentStage.prod/Resource")
    default.has_resource_properties(
        "AWS::ApiGateway::UsagePlan",
        {
            "ApiStages": [Match.object_like({"ApiId": {"Ref": api}, "Stage": {"Ref": stage}})],
            "Throttle": {"RateLimit": 10, "BurstLimit": 20},
            "Quota": {"Limit": 100_000, "Period": "DAY"},
        },
    )
    key = logical_id(default, "AWS::ApiGateway::ApiKey", "/ApiKeys/Key-default/Resource")
    plan = logical_id(default, "AWS::ApiGateway::UsagePlan", "/UsagePlan/Resource")
    default.has_resource_properties(
        "AWS::ApiGateway::UsagePlanKey",
        {"KeyId": {"Ref": key}, "KeyType": "API_KEY", "UsagePlanId": {"Ref": plan}},
    )
    assert "Value" not in properties(default, "AWS::ApiGateway::ApiKey", "/Key-default/Resource")
    default.has_output("ApiKeyIdDefault", {"Value": {"Ref": key}})
    default.resource_count_is("AWS::ApiGateway::Authorizer", 0)


def test_a_missing_or_wrong_api_key_gets_the_apps_challenge(default: Template) -> None:
    responses = _gateway_responses(default)
    invalid = responses["INVALID_API_KEY"]
    assert invalid["StatusCode"] == "403"  # API Gateway cannot tell missing from wrong
    assert invalid["ResponseParameters"] == {
        "gatewayresponse.header.WWW-Authenticate": f"'{api_key.CHALLENGE}'"
    }
    assert "x-api-key" in _render(invalid["ResponseTemplates"]["application/json"])["error"]["message"]
    assert not {"UNAUTHORIZED", "MISSING_AUTHENTICATION_TOKEN"} & set(responses)


def test_more_keys_can_be_added_and_limits_changed() -> None:
    service = _service(
        api_keys=["alice", "bob"], api_key_limits=ApiKeyLimits(rate_limit=2, burst_limit=4, quota=None)
    )
    service.add_api_key("carol")
    template = _template(service)
    template.resource_count_is("AWS::ApiGateway::ApiKey", 3)
    template.resource_count_is("AWS::ApiGateway::UsagePlanKey", 3)
    plan = properties(template, "AWS::ApiGateway::UsagePlan", "/UsagePlan/Resource")
    assert plan["Throttle"] == {"RateLimit": 2, "BurstLimit": 4}
    assert "Quota" not in plan
    with pytest.raises(ConfigurationError, match="exists already"):
        service.add_api_key("bob")
    with pytest.raises(ConfigurationError, match="api_keys must be unique names"):
        service.add_api_key("no spaces")


def test_no_per_key_limits_leaves_only_the_stage_throttle() -> None:
    plan = properties(
        _template(_service(api_key_limits=None)), "AWS::ApiGateway::UsagePlan", "/UsagePlan/Resource"
    )
    assert "Throttle" not in plan
    assert "Quota" not in plan


# --- JWT --------------------------------------------------------------------------------------


def test_jwt_mode_checks_bearer_tokens_with_a_cached_token_authorizer(
    full: Template, full_service: A2AService
) -> None:
    issuer = full_service.jwt
    assert issuer is not None
    api = logical_id(full, "AWS::ApiGateway::RestApi", "/Api/Api/Resource")
    authorizer = logical_id(full, "AWS::ApiGateway::Authorizer", "/JwtAuthorizer/Resource")
    function = logical_id(full, "AWS::Lambda::Function", "/Functions/Authorizer/Resource")
    full.has_resource_properties(
        "AWS::ApiGateway::Authorizer",
        {
            "Type": "TOKEN",
            "RestApiId": {"Ref": api},
            "IdentitySource": "method.request.header.Authorization",
            "IdentityValidationExpression": BEARER_PATTERN,
            "AuthorizerResultTtlInSeconds": 300,
            "AuthorizerUri": Match.any_value(),
        },
    )
    for route in PROTECTED:
        assert routes(full)[route]["AuthorizerId"] == {"Ref": authorizer}
    full.has_resource_properties(
        "AWS::Lambda::Permission",
        {
            "Action": "lambda:InvokeFunction",
            "FunctionName": {"Fn::GetAtt": [function, "Arn"]},
            "Principal": "apigateway.amazonaws.com",
        },
    )
    authorizer_function = properties(full, "AWS::Lambda::Function", "/Functions/Authorizer/Resource")
    assert authorizer_function["Handler"] == "a2a_core.functions.authorizer.handler.handler"
    assert authorizer_function["Timeout"] == 10
    variables = authorizer_function["Environment"]["Variables"]
    assert {key: variables[key] for key in variables if key.startswith("A2A_JWT_")} == {
        "A2A_JWT_ISSUER": issuer.issuer,
        "A2A_JWT_AUDIENCE": issuer.audience,
        "A2A_JWT_JWKS_URL": issuer.jwks_url,
        "A2A_JWT_ALGORITHMS": '["RS256"]',
    }
    full.resource_count_is("AWS::ApiGateway::UsagePlan", 0)
    full.resource_count_is("AWS::ApiGateway::ApiKey", 0)


def test_the_authorizer_may_read_nothing_but_its_logs(full: Template) -> None:
    policy = properties(full, "AWS::IAM::Policy", "/Functions/AuthorizerRole/DefaultPolicy/Resource")
    actions = {
        action
        for statement in policy["PolicyDocument"]["Statement"]
        for action in ([statement["Action"]] if isinstance(statement["Action"], str) else statement["Action"])
    }
    assert actions <= {
        "xray:PutTraceSegments",
        "xray:PutTelemetryRecords",
        "logs:CreateLogStream",
        "logs:PutLogEvents",
    }


def test_missing_token_is_401_with_the_bearer_challenge_and_a_down_issuer_503(full: Template) -> None:
    responses = _gateway_responses(full)
    assert responses["UNAUTHORIZED"]["StatusCode"] == "401"
    assert responses["UNAUTHORIZED"]["ResponseParameters"] == {
        "gatewayresponse.header.WWW-Authenticate": f"'{bearer.CHALLENGE}'"
    }
    assert responses["AUTHORIZER_FAILURE"]["StatusCode"] == "503"


def test_a_token_the_authorizer_denies_is_401_invalid_token(full: Template) -> None:
    # RFC 6750 3.1 (issue 22 item 15): a token that is not valid asks the client for a new one;
    # 403 would say the token is good and lacks the rights. The authorizer's Deny is ACCESS_DENIED.
    denied = _gateway_responses(full)["ACCESS_DENIED"]
    assert denied["StatusCode"] == "401"
    assert denied["ResponseParameters"] == {
        "gatewayresponse.header.WWW-Authenticate": '\'Bearer realm="a2a", error="invalid_token", '
        'error_description="The access token is not valid"\''
    }
    error = _reads_in_both_bindings("ACCESS_DENIED", denied)["error"]
    assert (error["code"], error["status"]) == (401, "UNAUTHENTICATED")
    assert error["message"] == bearer.NOT_VALID


@pytest.mark.parametrize(
    "header", ["Bearer eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln", "Bearer abc-_.~+/=", "Bearer a=="]
)
def test_the_validation_pattern_lets_bearer_tokens_through(header: str) -> None:
    import re

    assert re.match(BEARER_PATTERN, header)


@pytest.mark.parametrize(
    "header", ["", "Basic dXNlcjpwYXNz", "Bearer", "Bearer ", "bearer abc", "Bearer a b", "Bearer a\n"]
)
def test_the_validation_pattern_answers_401_without_invoking_the_authorizer(header: str) -> None:
    import re

    assert not re.fullmatch(BEARER_PATTERN, header)


# --- IAM --------------------------------------------------------------------------------------


def test_unsigned_requests_get_401_with_the_sigv4_challenge(iam: Template) -> None:
    responses = _gateway_responses(iam)
    missing = responses["MISSING_AUTHENTICATION_TOKEN"]
    assert missing["StatusCode"] == "401"
    assert missing["ResponseParameters"] == {
        "gatewayresponse.header.WWW-Authenticate": f"'{iam_auth.CHALLENGE}'"
    }
    iam.resource_count_is("AWS::ApiGateway::UsagePlan", 0)
    iam.resource_count_is("AWS::ApiGateway::Authorizer", 0)


def test_grant_invoke_allows_execute_api_on_the_stage_only() -> None:
    service = _service(auth=AuthMode.IAM)
    caller = iam.Role(Stack.of(service), "Caller", assumed_by=iam.AccountRootPrincipal())
    service.grant_invoke(caller)
    template = _template(service)
    api = logical_id(template, "AWS::ApiGateway::RestApi", "/Api/Api/Resource")
    template.has_resource_properties(
        "AWS::IAM::Policy",
        {
            "PolicyDocument": {
                "Statement": [
                    {
                        "Action": "execute-api:Invoke",
                        "Effect": "Allow",
                        "Resource": {
                            "Fn::Join": [
                                "",
                                [
                                    "arn:",
                                    {"Ref": "AWS::Partition"},
                                    ":execute-api:",
                                    {"Ref": "AWS::Region"},
                                    ":",
                                    {"Ref": "AWS::AccountId"},
                                    ":",
                                    {"Ref": api},
                                    "/prod/*/*",
                                ],
                            ]
                        },
                    }
                ]
            }
        },
    )


def test_grants_and_keys_belong_to_their_modes() -> None:
    with pytest.raises(ConfigurationError, match="grant_invoke"):
        _service().grant_invoke(iam.AccountRootPrincipal())
    with pytest.raises(ConfigurationError, match="add_api_key"):
        _service(auth=AuthMode.IAM).add_api_key("alice")


# --- none and the option checks ---------------------------------------------------------------


def test_the_default_is_api_keys() -> None:
    service = _service()
    assert service.auth is AuthMode.API_KEY
    assert service.api_keys is not None
    assert list(service.api_keys.keys) == ["default"]


def test_no_auth_needs_the_explicit_opt_out(open_: Template) -> None:
    with pytest.raises(ConfigurationError, match=r"allow_unauthenticated=True"):
        _service(auth=AuthMode.NONE)
    assert _api_environment(open_)["A2A_ALLOW_UNAUTHENTICATED"] == "true"
    open_.resource_count_is("AWS::ApiGateway::UsagePlan", 0)


@pytest.mark.parametrize(
    ("props", "named"),
    [
        ({"allow_unauthenticated": True}, "only confirms auth=AuthMode.NONE"),
        ({"auth": AuthMode.JWT}, "jwt=JwtIssuer"),
        ({"jwt": ISSUER}, "jwt=JwtIssuer"),
        ({"auth": AuthMode.IAM, "api_keys": ["alice"]}, "api_keys are only used"),
        ({"api_keys": ["alice", "alice"]}, "api_keys must be unique"),
        ({"api_keys": [""]}, "api_keys must be unique"),
        ({"api_key_limits": ApiKeyLimits(rate_limit=0)}, "api_key_limits"),
        ({"api_key_limits": ApiKeyLimits(quota=0)}, "api_key_limits"),
        ({"auth": AuthMode.JWT, "jwt": JwtIssuer("http://issuer", "aud", "https://k")}, "jwt.issuer"),
        ({"auth": AuthMode.JWT, "jwt": JwtIssuer("https://issuer", "aud", "http://k")}, "jwt.jwks_url"),
        ({"auth": AuthMode.JWT, "jwt": JwtIssuer("https://issuer", "", "https://k")}, "jwt.audience"),
        (
            {"auth": AuthMode.JWT, "jwt": JwtIssuer("https://i", "a", "https://k", algorithms=("HS256",))},
            "jwt.algorithms",
        ),
        (
            {"auth": AuthMode.JWT, "jwt": JwtIssuer("https://i", "a", "https://k", algorithms=())},
            "jwt.algorithms",
        ),
        (
            {
                "auth": AuthMode.JWT,
                "jwt": JwtIssuer("https://i", "a", "https://k", cache_ttl=Duration.hours(2)),
            },
            "jwt.cache_ttl",
        ),
    ],
)
def test_inconsistent_auth_props_are_refused(props: dict[str, Any], named: str) -> None:
    with pytest.raises(ConfigurationError, match=named):
        _service(**props)


def test_jwt_cache_can_be_turned_off() -> None:
    service = _service(
        auth=AuthMode.JWT, jwt=JwtIssuer("https://i", "a", "https://k", cache_ttl=Duration.seconds(0))
    )
    props = properties(_template(service), "AWS::ApiGateway::Authorizer", "/JwtAuthorizer/Resource")
    assert props["AuthorizerResultTtlInSeconds"] == 0


def test_the_app_reads_the_auth_mode_from_context(tmp_path: Path) -> None:
    def build(**context: str) -> A2AService:
        app = App(outdir=str(tmp_path), context={SKIP_BUNDLING_CONTEXT: "true", **context})
        return infra_app.build(app).service

    assert build().auth is AuthMode.API_KEY
    keys = build(**{"a2a:api_keys": "alice,bob-2"})
    assert keys.api_keys is not None
    assert sorted(keys.api_keys.keys) == ["alice", "bob-2"]
    assert {"ApiKeyIdAlice", "ApiKeyIdBob2"} <= set(Template.from_stack(Stack.of(keys)).find_outputs("*"))
    jwt = build(
        **{
            "a2a:auth": "jwt",
            "a2a:jwt_issuer": ISSUER.issuer,
            "a2a:jwt_audience": ISSUER.audience,
            "a2a:jwt_jwks_url": ISSUER.jwks_url,
        }
    )
    assert jwt.jwt == JwtIssuer(ISSUER.issuer, ISSUER.audience, ISSUER.jwks_url)
    assert build(**{"a2a:auth": "iam"}).auth is AuthMode.IAM
    assert build(**{"a2a:auth": "none", "a2a:allow_unauthenticated": "true"}).auth is AuthMode.NONE
    with pytest.raises(ConfigurationError, match="allow_unauthenticated=True"):
        build(**{"a2a:auth": "none"})
    with pytest.raises(ConfigurationError, match="a2a:jwt_issuer, a2a:jwt_audience and a2a:jwt_jwks_url"):
        build(**{"a2a:auth": "jwt", "a2a:jwt_issuer": ISSUER.issuer})
    with pytest.raises(ValueError, match="'oauth' is not a valid AuthMode"):
        build(**{"a2a:auth": "oauth"})
